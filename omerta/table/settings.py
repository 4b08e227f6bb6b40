"""Table settings shared by every ruleset's day (docs/rules.md §3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .errors import BadSettings

CHOICES: dict[str, tuple[Any, ...]] = {
    "auto_deal": (False, True),
    "agreement": ("silent", "sound"),
    "voting": ("closed", "open"),
    "break_at_zero": (False, True),
    "lift_at_zero": (False, True),
    "best_move": (False, True),
}


@dataclass(frozen=True, slots=True)
class DaySettings:
    auto_deal: bool = False
    agreement: str = "silent"
    voting: str = "closed"
    break_at_zero: bool = False
    lift_at_zero: bool = False
    best_move: bool = False  # B1

    def to_dict(self) -> dict[str, Any]:
        return without_default_off({f.name: getattr(self, f.name) for f in fields(self)})


def without_default_off(settings: dict[str, Any]) -> dict[str, Any]:
    """B1's setting is written only when on: a table without best move shows
    the same settings as before the rule existed."""
    if not settings.get("best_move"):
        settings.pop("best_move", None)
    return settings


#: docs/rules.md §3: the strings "on"/"off" mean the same as true/false
ON_OFF = {"on": True, "off": False}


def check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> Any:
    if choices == (False, True) and isinstance(value, str) and value in ON_OFF:
        value = ON_OFF[value]
    # bool is a subclass of int: compare types too so 1 never passes as True.
    if not any(value == c and type(value) is type(c) for c in choices):
        shown = ", ".join(
            "on/true" if c is True else "off/false" if c is False else repr(c) for c in choices
        )
        raise BadSettings(f"setting {name!r} must be one of {shown}; got {value!r}")
    return value


def read_settings(
    raw: Mapping[str, Any] | None, ruleset: str, extra: Mapping[str, Any]
) -> dict[str, Any]:
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
