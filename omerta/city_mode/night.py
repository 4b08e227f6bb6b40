"""The city night: its turns in order (M4) and dawn (M11)."""

from __future__ import annotations

from omerta.table.actions import register
from omerta.table.events import Cause
from omerta.table.state import State

from .commissar import COMMISSAR
from .doctor import DOCTOR
from .don import DON
from .mafia import MAFIA
from .maniac import MANIAC
from .putana import PUTANA
from .role import NightRole

#: M4: the turns of every night from the second on, in order
NIGHT: tuple[NightRole, ...] = (PUTANA, MAFIA, MANIAC, DOCTOR, COMMISSAR, DON)
BY_TURN: dict[str, NightRole] = {role.turn: role for role in NIGHT}
TURNS: tuple[str, ...] = tuple(BY_TURN)

for _role in NIGHT:  # each role's action is known wherever city mode is
    register(_role.action)


#: The roles whose choices protect or harm at all, in turn order: the others
#: keep NightRole's hooks, which never do (asking them was a tenth of a dawn).
PROTECTING = tuple(role for role in NIGHT if type(role).protected is not NightRole.protected)
HARMING = tuple(role for role in NIGHT if type(role).harmed is not NightRole.harmed)


def dawn(state: State) -> list[tuple[int, Cause]]:
    """M11: every choice takes effect at once. A protected seat (visited,
    healed) survives every harm; a seat harmed twice leaves once, named by
    the earliest turn, so shot and killed leaves as shot. Seat order."""
    protected: frozenset[int] = frozenset().union(*(role.protected(state) for role in PROTECTING))
    deaths: dict[int, Cause] = {}
    for role in HARMING:
        victim = role.harmed(state)
        if victim is not None and victim not in protected:
            assert role.cause is not None
            deaths.setdefault(victim, role.cause)
    return sorted(deaths.items())
