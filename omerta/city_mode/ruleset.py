"""City mode as a ruleset (docs/rules.md §2): the deck for the table's seats, the
night in turns, what checks reveal, the three-sided end, and no awards."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from omerta.table.actions import NightAction
from omerta.table.errors import IllegalAction
from omerta.table.events import Cause, Event
from omerta.table.ruleset import Ruleset, Turn
from omerta.table.state import State

from . import night, settings
from .commissar import COMMISSAR
from .don import DON
from .settings import CitySettings

SPECIALS = ["commissar", "doctor", "putana", "maniac"]  # M1
CHECKERS = {"commissar": COMMISSAR, "don": DON}


@lru_cache(maxsize=64)  # immutable turns, shared by every night with the same timers
def _night_turns(timers: tuple[tuple[str, int], ...]) -> tuple[Turn, ...]:
    seconds = dict(timers)
    return tuple(Turn(role.turn, seconds[role.turn], room=role.turn) for role in night.NIGHT)


class City(Ruleset):
    name = "city"
    black_roles = frozenset({"don", "mafia"})
    public_night_causes = False  # M11: never why

    def parse_settings(self, raw: Mapping[str, Any] | None) -> CitySettings:
        return settings.parse(raw)

    def seat_count(self, settings: CitySettings) -> int:
        return settings.seats

    def deck(self, settings: CitySettings) -> list[str]:
        roles = ["don"] + ["mafia"] * settings.mafia_count + SPECIALS
        return roles + ["civilian"] * (settings.seats - len(roles))  # M1

    def speech_seconds(self, settings: CitySettings) -> float:
        return settings.speech_seconds  # M2

    def night_turns(self, state: State) -> tuple[Turn, ...]:
        """M4: every turn runs, a dead role's too, so the night's length
        reveals nothing (S5)."""
        return _night_turns(state.settings.night_turn_seconds)

    def room(self, state: State, turn: Turn) -> tuple[frozenset[int], bool]:
        """M13: the turn's living role holders (the living black team in the
        mafia turn); the dead see and hear nothing."""
        assert turn.room is not None
        role = night.BY_TURN[turn.room]
        return frozenset(role.actors(state)), role.hears(state)

    def night_action(self, state: State, action: NightAction, now: float) -> list[Event]:
        role = night.BY_TURN[state.turns[state.turn].name]  # the engine has checked it is night
        if not isinstance(action, role.action):
            turns = [r.turn for r in night.NIGHT if isinstance(action, r.action)]
            raise IllegalAction("M4", "wrong_turn", action=action.name, turns=turns, turn=role.turn)
        return role.act(state, action, now)

    def night_options(self, state: State, seat: int) -> list[NightAction]:
        return night.BY_TURN[state.night_turn().name].options(state, seat)

    def reveal(self, state: State, checker: int, target: int) -> str:
        return CHECKERS[state.role(checker)].shows(state, target)  # M9, M10

    def dawn(self, state: State, now: float) -> tuple[list[tuple[int, Cause]], list[Event]]:
        return night.dawn(state), []  # check answers went out when made

    def winner(self, state: State) -> tuple[str, str] | None:
        """M12. While the Maniac lives only he can win (both other wins need
        him dead); with him dead, red is tested before black, which decides
        the one case where both hold: nobody left alive at all (as E1)."""
        living = state.living()
        black = sum(1 for s in living if state.roles[s] in self.black_roles)
        if any(state.roles[s] == "maniac" for s in living):
            return ("maniac", "maniac_last_two") if len(living) <= 2 else None
        if black == 0:
            return "red", "no_black_or_maniac_left"
        if black >= len(living) - black:
            return "black", "black_parity"
        return None

    def defeat_winner(self, state: State, offender: int) -> str:
        """T4: the opposite side wins; a Maniac offender hands the win to
        red, a red offender to black."""
        return "black" if state.team_of(offender) == "red" else "red"

    def ranked(
        self, settings: CitySettings, bots: frozenset[int], stand_ins: frozenset[int] = frozenset()
    ) -> bool:
        return False  # A1: no rating, coins or experience

    def team(self, role: str) -> str:
        if role in self.black_roles:
            return "black"
        return "maniac" if role == "maniac" else "red"


CITY = City()
