"""The Maniac (M7): kills one living player other than himself each night.
He is his own side (M12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from omerta.table.actions import NightAction
from omerta.table.errors import IllegalAction
from omerta.table.state import State

from .putana import blocked
from .role import NightRole


@dataclass(frozen=True, slots=True)
class Kill(NightAction):
    name: ClassVar[str] = "kill"
    rule: ClassVar[str] = "M7"


class Maniac(NightRole):
    turn = "maniac"
    holders = frozenset({"maniac"})
    title = "Maniac"
    action = Kill
    rule = "M7"
    cause = "killed"

    def target_refusal(self, state: State, seat: int, target: int) -> IllegalAction | None:
        return self.refusal("kill_yourself") if target == seat else None

    def harmed(self, state: State) -> int | None:
        for seat, target in self.chosen(state).items():
            if not blocked(state, seat):
                return target
        return None


MANIAC = Maniac()
