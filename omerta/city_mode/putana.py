"""The Putana (M5): first of the night, she visits one living player other
than herself. The visited player's own action this night has no effect, and
nobody can shoot or kill them this night."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import ClassVar

from omerta.table.actions import NightAction
from omerta.table.errors import IllegalAction
from omerta.table.state import State

from .role import NightRole


@dataclass(frozen=True, slots=True)
class Visit(NightAction):
    name: ClassVar[str] = "visit"
    rule: ClassVar[str] = "M5"


class Putana(NightRole):
    turn = "putana"
    holders = frozenset({"putana"})
    title = "Putana"
    action = Visit
    rule = "M5"
    not_twice_in_a_row = True

    def target_refusal(self, state: State, seat: int, target: int) -> IllegalAction | None:
        return self.refusal("visit_yourself") if target == seat else None

    def protected(self, state: State) -> frozenset[int]:
        return frozenset(self.chosen(state).values())


PUTANA = Putana()


def visited(state: State) -> Collection[int]:
    """The seats the Putana visited tonight: their own actions have no
    effect (M5). She acts first, so every later turn already knows."""
    return PUTANA.chosen(state).values()


def blocked(state: State, seat: int) -> bool:
    """Whether the Putana visited `seat` tonight (M5)."""
    return seat in visited(state)
