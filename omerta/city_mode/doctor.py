"""The Doctor (M8): heals one living player, who survives the shot and the
Maniac this night. Never the same player two nights in a row; himself at
most once per game. Both limits count a heal the Putana blocked (M5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from omerta.table.actions import NightAction
from omerta.table.errors import IllegalAction
from omerta.table.state import State

from .putana import blocked
from .role import NightRole


@dataclass(frozen=True, slots=True)
class Heal(NightAction):
    name: ClassVar[str] = "heal"
    rule: ClassVar[str] = "M8"


SELF_HEALED = "doctor_self_healed"  # memory: the night the Doctor chose himself


class Doctor(NightRole):
    turn = "doctor"
    holders = frozenset({"doctor"})
    title = "Doctor"
    action = Heal
    rule = "M8"
    not_twice_in_a_row = True

    def target_refusal(self, state: State, seat: int, target: int) -> IllegalAction | None:
        if target == seat and SELF_HEALED in state.memory:
            return self.refusal("heal_yourself_twice")
        return None

    def remember(self, state: State, seat: int, target: int) -> None:
        super().remember(state, seat, target)
        if target == seat:
            state.memory = {**state.memory, SELF_HEALED: state.night}

    def protected(self, state: State) -> frozenset[int]:
        return frozenset(t for s, t in self.chosen(state).items() if not blocked(state, s))


DOCTOR = Doctor()
