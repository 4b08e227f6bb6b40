"""The Don's check (M10), in his own turn after the Commissar's: he learns
"commissar" or "not_commissar". He also shoots with the Mafia (M6)."""

from __future__ import annotations

from omerta.table.state import State

from .checks import Checker


class Don(Checker):
    turn = "don"
    holders = frozenset({"don"})
    title = "Don"
    rule = "M10"

    def shows(self, state: State, target: int) -> str:
        return "commissar" if state.roles[target] == "commissar" else "not_commissar"


DON = Don()
