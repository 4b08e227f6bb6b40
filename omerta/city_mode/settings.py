"""City table settings (docs/rules.md §3): the shared day settings plus the day
speech length (M2), the night turn timers (M4), the number of Mafia and of
seats (M1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from omerta.table.errors import BadSettings
from omerta.table.settings import DaySettings, check_choice, read_settings, without_default_off

from .night import TURNS

SPEECH_SECONDS = (30, 45, 60, 90)  # M2
TURN_SECONDS = range(5, 31)  # M4
DEFAULT_TURN_SECONDS = 10  # M4
MAFIA_COUNTS = (1, 2, 3)  # M1
SEAT_COUNTS = (10, 11, 12)  # M1


@dataclass(frozen=True, slots=True)
class CitySettings(DaySettings):
    speech_seconds: int = 60
    #: (turn, seconds) for every turn in night order
    night_turn_seconds: tuple[tuple[str, int], ...] = tuple(
        (turn, DEFAULT_TURN_SECONDS) for turn in TURNS
    )
    mafia_count: int = 2
    seats: int = 10

    def to_dict(self) -> dict[str, Any]:
        """JSON form that `parse` reads back to the same settings: one number
        when every turn has the same timer, else the map turn -> seconds."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        timers = dict(self.night_turn_seconds)
        same = set(timers.values())
        out["night_turn_seconds"] = same.pop() if len(same) == 1 else timers
        return without_default_off(out)


def parse(raw: Mapping[str, Any] | None) -> CitySettings:
    given = read_settings(
        raw,
        "city",
        {
            "speech_seconds": lambda v: check_choice("speech_seconds", v, SPEECH_SECONDS),
            "night_turn_seconds": _night_turn_seconds,
            "mafia_count": lambda v: check_choice("mafia_count", v, MAFIA_COUNTS),
            "seats": lambda v: check_choice("seats", v, SEAT_COUNTS),
        },
    )
    if "mafia_count" not in given:
        given["mafia_count"] = 3 if given.get("seats") == 12 else 2  # M1
    return CitySettings(**given)


def _night_turn_seconds(value: Any) -> tuple[tuple[str, int], ...]:
    """One number for every turn, or a map turn -> seconds (a turn left out
    keeps the default)."""
    if not isinstance(value, Mapping):
        return tuple((turn, _seconds(value)) for turn in TURNS)
    unknown = sorted(set(value) - set(TURNS), key=str)
    if unknown:
        raise BadSettings(
            f"setting 'night_turn_seconds' names no turn {unknown[0]!r};"
            f" the turns are {', '.join(TURNS)}"
        )
    return tuple((turn, _seconds(value.get(turn, DEFAULT_TURN_SECONDS))) for turn in TURNS)


def _seconds(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in TURN_SECONDS:
        raise BadSettings(
            f"setting 'night_turn_seconds' must be whole seconds from"
            f" {TURN_SECONDS.start} to {TURN_SECONDS.stop - 1}; got {value!r}"
        )
    return value
