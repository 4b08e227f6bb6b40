"""The shape of one city night role: its turn, who acts in it, the action
they take, the rule a refusal cites, and what the choice does at dawn.

A role only records choices while the night runs; dawn (`night.dawn`) turns
every role's `harmed` and `protected` into deaths at once (M11)."""

from __future__ import annotations

from typing import Any

from omerta.table.actions import NightAction
from omerta.table.errors import IllegalAction
from omerta.table.events import Audience, Cause, Event, NightChoice, to_seat
from omerta.table.state import State


class NightRole:
    #: its turn: the phase name and its key in the `night_turn_seconds` setting
    turn: str = ""
    #: the roles whose living holders act, and see each other, in the turn
    holders: frozenset[str] = frozenset()
    #: the role's name in refusals ("Putana")
    title: str = ""
    #: the action its holders take; its module is the role's own
    action: type[NightAction] = NightAction
    #: the rule cited when a choice is refused
    rule: str = ""
    #: how its victim's departure is recorded (roles that harm only)
    cause: Cause | None = None
    #: M5, M8: never the same player two nights in a row
    not_twice_in_a_row: bool = False

    def actors(self, state: State) -> list[int]:
        """The living holders: a dead holder's turn still runs (M4) but he is
        not in its room and chooses nothing."""
        alive, roles, holders = state.alive, state.roles, self.holders  # read once, not per seat
        return [s for s in range(1, state.n + 1) if alive[s] and roles[s] in holders]

    def hears(self, state: State) -> bool:
        """M13: whether the room hears as well as sees."""
        return True

    def chosen(self, state: State) -> dict[int, int]:
        """This night's choices, actor -> target."""
        chosen: dict[int, int] = state.choices.get(self.turn, {})
        return chosen

    def actor_refusal(self, state: State, seat: int) -> IllegalAction | None:
        if not state.alive[seat] or state.roles[seat] not in self.holders:
            return self.refusal("not_your_turn", turn=self.turn, title=self.title)
        if seat in self.chosen(state):
            return self.refusal("choice_is_final")
        return None

    def target_refusal(self, state: State, seat: int, target: int) -> IllegalAction | None:
        """Why `seat` may not choose the living `target` (None: it may)."""
        return None

    def refusal(self, code: str, **params: Any) -> IllegalAction:
        """A refusal of this role's choice, citing its rule (see errors.py)."""
        return IllegalAction(self.rule, code, **params)

    def _refusal(self, state: State, seat: int, target: int) -> IllegalAction | None:
        """The limits every role's target has, then the role's own."""
        if not state.alive[target]:
            return self.refusal("not_alive", seat=target)
        if self.not_twice_in_a_row and state.memory.get(self.turn) == (state.night - 1, target):
            return self.refusal("same_target_twice", turn=self.turn, title=self.title, seat=target)
        return self.target_refusal(state, seat, target)

    def options(self, state: State, seat: int) -> list[NightAction]:
        if self.actor_refusal(state, seat) is not None:
            return []
        return [self.action(seat, t) for t in state.seats if self._refusal(state, seat, t) is None]

    def act(self, state: State, action: NightAction, now: float) -> list[Event]:
        seat, target = action.seat, action.target
        why = self.actor_refusal(state, seat) or self._refusal(state, seat, target)
        if why is not None:
            raise why
        state.choices = {
            **state.choices,
            self.turn: {**state.choices.get(self.turn, {}), seat: target},
        }
        self.remember(state, seat, target)
        ack = NightChoice(now, action.name, seat, target, audience=self.audience(state, seat))
        return [ack, *self.results(state, seat, target, now)]

    def remember(self, state: State, seat: int, target: int) -> None:
        """Keep what the limits across nights need. They count a choice the
        Putana blocked too (M5), so it is kept when made, not at dawn."""
        if self.not_twice_in_a_row:
            state.memory = {**state.memory, self.turn: (state.night, target)}

    def audience(self, state: State, seat: int) -> Audience:
        """Who sees the choice being made: the actor only."""
        return to_seat(seat)

    def results(self, state: State, seat: int, target: int, now: float) -> list[Event]:
        """Private results of the choice, at once (a check's answer)."""
        return []

    def harmed(self, state: State) -> int | None:
        """The seat this role's choice would remove at dawn, if any."""
        return None

    def protected(self, state: State) -> frozenset[int]:
        """Seats this role's choice keeps from every harm this night."""
        return frozenset()
