"""The Commissar (M9): checks one living player and learns "black" (Don,
Mafia) or "red" (everyone else, the Maniac included)."""

from __future__ import annotations

from omerta.table.state import State

from .checks import Checker


class Commissar(Checker):
    turn = "commissar"
    holders = frozenset({"commissar"})
    title = "Commissar"
    rule = "M9"

    def shows(self, state: State, target: int) -> str:
        return "black" if state.team_of(target) == "black" else "red"


COMMISSAR = Commissar()
