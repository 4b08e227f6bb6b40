"""The classic ranked ruleset (docs/rules.md §1): 10 seats, Don, 2 Mafia, Sheriff,
6 Civilians; each night from the second on, the shot then the checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import Check, NightAction, Shoot
from .errors import IllegalAction
from .events import Cause, CheckResult, Event, NightChoice, to_seat, to_team
from .ruleset import Ruleset, Turn
from .settings import DaySettings, read_settings
from .state import State
from .step import require

SHOT_SECONDS = 7  # S1
CHECK_SECONDS = 7  # S3
DAY_SPEECH_SECONDS = 60  # D1


#: every night's windows from the second on: immutable, so states share them
NIGHT_TURNS = (Turn("shot", SHOT_SECONDS, room="black"), Turn("checks", CHECK_SECONDS))


class Classic(Ruleset):
    name = "classic"
    black_roles = frozenset({"don", "mafia"})

    def parse_settings(self, raw: Mapping[str, Any] | None) -> DaySettings:
        return DaySettings(**read_settings(raw, self.name, {}))

    def seat_count(self, settings: DaySettings) -> int:
        return 10  # C1

    def deck(self, settings: DaySettings) -> list[str]:
        return ["don", "mafia", "mafia", "sheriff"] + ["civilian"] * 6  # C1

    def speech_seconds(self, settings: DaySettings) -> float:
        return DAY_SPEECH_SECONDS

    def night_turns(self, state: State) -> tuple[Turn, ...]:
        return NIGHT_TURNS

    def room(self, state: State, turn: Turn) -> tuple[frozenset[int], bool]:
        if turn.room == "black":  # S1: living black players may talk during the shot
            return frozenset(s for s in state.black_seats() if state.alive[s]), True
        return frozenset(), False

    def night_action(self, state: State, action: NightAction, now: float) -> list[Event]:
        turn = state.night_turn()
        if isinstance(action, Shoot):
            require(
                turn.name == "shot",
                "S1",
                "wrong_turn",
                action=action.name,
                turns=["shot"],
                turn=turn.name,
            )
            return self._shoot(state, action, now)
        if isinstance(action, Check):
            require(
                turn.name == "checks",
                "S3",
                "wrong_turn",
                action=action.name,
                turns=["checks"],
                turn=turn.name,
            )
            return self._check(state, action, now)
        raise IllegalAction("S1", "not_in_ruleset", action=action.name, ruleset=self.name)

    def _shoot(self, state: State, action: Shoot, now: float) -> list[Event]:
        shots = state.choices.get("shot", {})
        require(
            state.alive[action.seat] and state.team_of(action.seat) == "black",
            "S1",
            "not_your_turn",
            turn="shot",
            title="black players",
        )
        require(action.seat not in shots, "S1", "choice_is_final")
        require(state.alive[action.target], "S2", "not_alive", seat=action.target)
        state.choices = {**state.choices, "shot": {**shots, action.seat: action.target}}
        team = [s for s in state.black_seats() if state.alive[s]]
        return [
            NightChoice(
                t=now,
                audience=to_team("black", team),
                action="shoot",
                by=action.seat,
                target=action.target,
            )
        ]

    def _check(self, state: State, action: Check, now: float) -> list[Event]:
        seat, target = action.seat, action.target
        role = state.roles[seat]
        require(
            role in ("don", "sheriff") and state.alive[seat],
            "S3",
            "not_your_turn",
            turn="checks",
            title="Don and Sheriff",
        )
        made = state.choices.get("check", {})
        require(seat not in made, "S3", "choice_is_final")
        require(state.alive[target], "S3", "not_alive", seat=target)
        require(target != seat, "S3", "check_yourself")
        require(
            target not in state.checked.get(seat, frozenset()), "S3", "already_checked", seat=target
        )
        state.choices = {**state.choices, "check": {**made, seat: target}}
        state.checked = {**state.checked, seat: state.checked.get(seat, frozenset()) | {target}}
        return [
            CheckResult(
                t=now,
                audience=to_seat(seat),
                by=seat,
                target=target,
                result=self.reveal(state, seat, target),
            )
        ]

    def reveal(self, state: State, checker: int, target: int) -> str:
        if state.roles[checker] == "don":
            return "sheriff" if state.roles[target] == "sheriff" else "not_sheriff"
        return "black" if state.team_of(target) == "black" else "red"

    def night_options(self, state: State, seat: int) -> list[NightAction]:
        turn = state.current_turn()
        if turn is None or not state.alive[seat]:
            return []
        living = state.living()
        if turn.name == "shot":
            if state.team_of(seat) != "black" or seat in state.choices.get("shot", {}):
                return []
            return [Shoot(seat, t) for t in living]
        if state.roles[seat] not in ("don", "sheriff") or seat in state.choices.get("check", {}):
            return []
        done = state.checked.get(seat, frozenset())
        return [Check(seat, t) for t in living if t != seat and t not in done]

    def dawn(self, state: State, now: float) -> tuple[list[tuple[int, Cause]], list[Event]]:
        """S1: a hit needs the same target from the Don and every living Mafia."""
        shots = state.choices.get("shot", {})
        shooters = [s for s in state.black_seats() if state.alive[s]]
        targets = {shots.get(s) for s in shooters}
        if shooters and len(targets) == 1 and None not in targets:
            return [(targets.pop(), "shot")], []
        return [], []

    def winner(self, state: State) -> tuple[str, str] | None:
        roles, black_roles = state.roles, self.black_roles  # team_of per seat, without its calls
        black = sum(1 for s in state.living() if roles[s] in black_roles)
        red = state.living_count() - black
        if black == 0:
            return "red", "no_black_left"  # E1
        if black >= red:
            return "black", "black_parity"  # E1
        return None

    def defeat_winner(self, state: State, offender: int) -> str:
        return "red" if state.team_of(offender) == "black" else "black"  # T4

    def ranked(
        self, settings: DaySettings, bots: frozenset[int], stand_ins: frozenset[int] = frozenset()
    ) -> bool:
        return not bots - stand_ins  # A1: a table with bots is practice, but for stand-ins


CLASSIC = Classic()
