"""A test table that reads like a game: `t.nominate(3, 7)`, `t.wait()`.

It drives the pure engine on a virtual clock the test controls, and keeps
every event, so tests assert on what happened and when."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self

from omerta.table import CLASSIC, IllegalAction, Timeout, advance, apply, new_game
from omerta.table.actions import (
    Check,
    EndSpeech,
    Interject,
    Lift,
    Nominate,
    Pick,
    Shoot,
    TechCall,
    TechVote,
    Vote,
)
from omerta.table.views import gate, view

# Don 1, Mafia 2 and 3, Sheriff 4, Civilians 5-10: easy to read in tests.
DEAL = {
    1: "don",
    2: "mafia",
    3: "mafia",
    4: "sheriff",
    5: "civilian",
    6: "civilian",
    7: "civilian",
    8: "civilian",
    9: "civilian",
    10: "civilian",
}


class Table:
    def __init__(
        self,
        deal: dict[int, str] | None = DEAL,
        settings: dict[str, Any] | None = None,
        seed: int = 1,
        bots=(),
        ruleset=CLASSIC,
        stand_ins=(),
    ):
        self.state, self.events = new_game(ruleset, settings or {}, seed, deal, bots, stand_ins)
        self.clock = 0.0

    # --- the clock ------------------------------------------------------
    def wait(self, seconds: float | None = None) -> Self:
        """Run to the next deadline (firing it), or `seconds` on."""
        if seconds is None:
            due = self.state.next_deadline
            assert due is not None, "no deadline pending"
            self._take(*apply(self.state, Timeout(), due))
            self.clock = due
        else:
            self.clock += seconds
            self._take(*advance(self.state, self.clock))
        return self

    def run_until(self, done: Callable[[Self], bool], limit: int = 500) -> Self:
        for _ in range(limit):
            if done(self):
                return self
            self.wait()
        raise AssertionError("condition never reached")

    def to_speech(self, seat: int, kind: str = "day") -> Self:
        return self.run_until(lambda t: t.state.speaker == seat and t.state.speech_kind == kind)

    def to_day(self, day: int) -> Self:
        return self.run_until(
            lambda t: t.state.day == day and t.state.stage not in ("meeting", "night")
        )

    def to_phase(self, name: str) -> Self:
        return self.run_until(lambda t: t.phase == name)

    def skip_day(self) -> Self:
        """Let every speech and vote of the current day run out."""
        night = self.state.day + 1
        return self.run_until(lambda t: t.state.night == night or t.state.over)

    # --- actions ----------------------------------------------------------
    def do(self, action) -> Self:
        self._take(*apply(self.state, action, self.clock))
        return self

    def refused(self, action) -> IllegalAction:
        before = self.state
        try:
            apply(self.state, action, self.clock)
        except IllegalAction as e:
            assert self.state is before
            return e
        raise AssertionError(f"{action} was accepted")

    def pick(self, seat, card):
        return self.do(Pick(seat, card))

    def end_speech(self, seat):
        return self.do(EndSpeech(seat))

    def nominate(self, seat, target):
        return self.do(Nominate(seat, target))

    def interject(self, seat):
        return self.do(Interject(seat))

    def vote(self, seat, target):
        return self.do(Vote(seat, target))

    def lift(self, seat, yes):
        return self.do(Lift(seat, yes))

    def shoot(self, seat, target):
        return self.do(Shoot(seat, target))

    def check(self, seat, target):
        return self.do(Check(seat, target))

    def tech_call(self, seat, kind, target):
        return self.do(TechCall(seat, kind, target))

    def tech_vote(self, seat, yes):
        return self.do(TechVote(seat, yes))

    def votes(self, ballots: dict[int, int]) -> Self:
        for seat, target in ballots.items():
            self.vote(seat, target)
        return self

    def shot(self, target: int) -> Self:
        """Every living black player shoots `target`."""
        self.to_phase("shot")
        for seat in self.state.black_seats():
            if self.state.alive[seat]:
                self.shoot(seat, target)
        return self

    def nominations(self, *pairs: tuple[int, int]) -> Self:
        """Day speeches in order; each (speaker, target) nominates in turn."""
        for seat, target in pairs:
            self.to_speech(seat).nominate(seat, target)
        return self

    # --- what happened ----------------------------------------------------
    def _take(self, state, events) -> None:
        self.state = state
        self.events.extend(events)

    def of(self, name: str) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.events if e.event == name]

    def last(self, name: str) -> dict[str, Any]:
        found = self.of(name)
        assert found, f"no {name} event"
        return found[-1]

    def left(self) -> list[tuple[int, str]]:
        return [(e["seat"], e["cause"]) for e in self.of("left")]

    @property
    def phase(self) -> str:
        return view(self.state, None)["phase"]

    def view(self, seat):
        return view(self.state, seat)

    def gate(self):
        return gate(self.state)
