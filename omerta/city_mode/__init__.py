"""City mode (docs/rules.md §2): a ruleset plug-in, a peer of the classic one.

    ruleset.py   City(Ruleset): deck, turns, rooms, reveal, dawn, winner
    settings.py  CitySettings: the day settings plus M1, M2, M4
    night.py     the turn order (M4) and dawn (M11)
    role.py      NightRole: what every night role has in common
    putana.py mafia.py maniac.py doctor.py commissar.py don.py: one per turn
    checks.py    what the Commissar's and the Don's checks share

Adding a night role (a new file, e.g. `bodyguard.py`, its one home):

    @dataclass(frozen=True, slots=True)
    class Guard(NightAction):              # the action: name, arguments, the rule
        name: ClassVar[str] = "guard"      # cited when it is tried by day; read
        rule: ClassVar[str] = "M14"        # from JSON by its fields' types

    class Bodyguard(NightRole):
        turn = "bodyguard"                 # phase name, night_turn_seconds key
        holders = frozenset({"bodyguard"}) # roles acting (and sharing the room)
        title = "Bodyguard"                # for refusals
        action = Guard
        rule = "M14"                       # cited when a choice is refused
        # optional: target_refusal(state, seat, target) -> refusal | None,
        # not_twice_in_a_row, harmed(state) -> seat | None with `cause`,
        # protected(state) -> seats, results(...) -> private events,
        # audience(state, seat): who sees the choice being made.
        # A role whose own action the Putana blocks checks putana.blocked().

    BODYGUARD = Bodyguard()

then put it in `night.NIGHT` where its turn falls (which also makes its
action known to `parse_action`, the engine and table scripts), add its card
to `ruleset.SPECIALS`, its rule to docs/rules.md and a scenario test to
tests/city/."""

from .doctor import Heal
from .maniac import Kill
from .putana import Visit
from .ruleset import CITY, City
from .settings import CitySettings

__all__ = ["CITY", "City", "CitySettings", "Heal", "Kill", "Visit"]
