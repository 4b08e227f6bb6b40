"""The table engine: pure rules. `state + action + now -> state + events`.

No I/O, no wall clock, no asyncio; randomness only from the table's seed."""

from .actions import ACTIONS, Action, Timeout, parse_action
from .classic import CLASSIC, Classic
from .engine import ClockError, advance, apply, new_game
from .errors import BadAction, BadSettings, IllegalAction
from .events import Audience, Event
from .ruleset import Ruleset, Turn
from .state import State

__all__ = [
    "ACTIONS",
    "CLASSIC",
    "Action",
    "Audience",
    "BadAction",
    "BadSettings",
    "Classic",
    "ClockError",
    "Event",
    "IllegalAction",
    "Ruleset",
    "State",
    "Timeout",
    "Turn",
    "advance",
    "apply",
    "new_game",
    "parse_action",
]
