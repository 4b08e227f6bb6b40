"""Table settings shared by every ruleset's day (RULES.md §3)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from .errors import BadSettings

CHOICES: dict[str, tuple[Any, ...]] = {
    "auto_deal": (False, True),
    "agreement": ("silent", "sound"),
    "voting": ("closed", "open"),
    "break_at_zero": (False, True),
    "lift_at_zero": (False, True),
}


@dataclass(frozen=True, slots=True)
class DaySettings:
    auto_deal: bool = False
    agreement: str = "silent"
    voting: str = "closed"
    break_at_zero: bool = False
    lift_at_zero: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> Any:
    # bool is a subclass of int: compare types too so "on"/1 never pass as True.
    if not any(value == c and type(value) is type(c) for c in choices):
        shown = ", ".join("on/true" if c is True else "off/false" if c is False else repr(c)
                          for c in choices)
        raise BadSettings(f"setting {name!r} must be one of {shown}; got {value!r}")
    return value


def read_settings(raw: Mapping[str, Any] | None, ruleset: str,
                  extra: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the shared day settings of `raw`; return them as keyword
    arguments. `extra` maps each ruleset-specific name to its validator."""
    raw = dict(raw or {})
    named = raw.pop("ruleset", ruleset)
    if named != ruleset:
        raise BadSettings(f"setting 'ruleset' is {named!r} but the table plays {ruleset!r}")
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name in CHOICES:
            out[name] = check_choice(name, value, CHOICES[name])
        elif name in extra:
            out[name] = extra[name](value)
        else:
            known = ", ".join(sorted([*CHOICES, *extra]))
            raise BadSettings(f"unknown setting {name!r} for {ruleset}; known: {known}")
    return out
