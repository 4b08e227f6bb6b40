"""The mafia's shot (M6 as S1–S2): the Don and every living Mafia choose
together; it hits only if all whose choice counts chose the same player."""

from __future__ import annotations

from omerta.table.actions import Shoot
from omerta.table.events import Audience, to_team
from omerta.table.state import State

from .putana import visited
from .role import NightRole


class Mafia(NightRole):
    turn = "mafia"
    holders = frozenset({"don", "mafia"})
    title = "black team"
    action = Shoot
    rule = "M6"
    cause = "shot"

    def hears(self, state: State) -> bool:
        return bool(state.settings.agreement == "sound")  # M13: per `agreement`

    def audience(self, state: State, seat: int) -> Audience:
        return to_team("black", self.actors(state))  # teammates see each choice

    def harmed(self, state: State) -> int | None:
        """M5: a visited black player's choice is ignored; the others must
        still agree. With every shooter visited there is no shot."""
        shots, blocked = self.chosen(state), visited(state)  # read once for every shooter
        counted = [s for s in self.actors(state) if s not in blocked]
        targets = {shots.get(s) for s in counted}
        if counted and len(targets) == 1 and None not in targets:
            return targets.pop()
        return None


MAFIA = Mafia()
