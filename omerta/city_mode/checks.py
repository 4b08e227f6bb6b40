"""A night check (M9, M10 with the repeat rules of S3): one living player,
never oneself, never one already checked. The answer reaches the checker
alone, at once; a check the Putana blocked gives no answer and does not count
as checked (M5)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from omerta.table.actions import Check
from omerta.table.errors import IllegalAction
from omerta.table.events import CheckResult, Event
from omerta.table.state import State

from .putana import blocked
from .role import NightRole


class Checker(NightRole, ABC):
    action = Check

    @abstractmethod
    def shows(self, state: State, target: int) -> str:
        """What a check of `target` reveals."""

    def target_refusal(self, state: State, seat: int, target: int) -> IllegalAction | None:
        if target == seat:
            return self.refusal("check_yourself")
        if target in state.checked.get(seat, frozenset()):
            return self.refusal("already_checked", seat=target)
        return None

    def results(self, state: State, seat: int, target: int, now: float) -> list[Event]:
        if blocked(state, seat):
            return []
        state.checked = {**state.checked, seat: state.checked.get(seat, frozenset()) | {target}}
        return [
            CheckResult(
                t=now,
                audience=self.audience(state, seat),
                by=seat,
                target=target,
                result=self.shows(state, target),
            )
        ]
