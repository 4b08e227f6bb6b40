"""The seam between the shared day machinery and a ruleset.

The engine runs what every ruleset shares: the draw, the meeting night,
speeches, nominations, votes, technical votes and the E2 draw count. A
ruleset decides the rest: the deck, the night turns and what each night
action does, what a check reveals, who wins, and what is awarded. Classic
(`omerta.table.classic`) and city mode (`omerta.city_mode`) implement this
interface as peers.

Adding a ruleset: subclass `Ruleset`, give it a `name`, implement each
abstract hook, and register it in `omerta.rulesets`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .actions import NightAction
    from .events import Cause, Event
    from .state import State


@dataclass(frozen=True, slots=True)
class Turn:
    """One timed window of a night. `room` names who sees and hears each
    other during it (a team or role name, resolved by the ruleset), or None."""

    name: str
    seconds: float
    room: str | None = None


class Ruleset(ABC):
    name: str = ""
    #: roles whose holders know each other from the first night (C2)
    black_roles: frozenset[str] = frozenset()
    #: whether the table hears how each night death happened (city mode: M11 no)
    public_night_causes: bool = True

    @abstractmethod
    def parse_settings(self, raw: Mapping[str, Any] | None) -> Any:
        """Validated settings with defaults; raises BadSettings."""

    @abstractmethod
    def seat_count(self, settings: Any) -> int: ...

    @abstractmethod
    def deck(self, settings: Any) -> list[str]:
        """The roles in play, one card each, unshuffled."""

    @abstractmethod
    def speech_seconds(self, settings: Any) -> float:
        """Length of a day speech."""

    @abstractmethod
    def night_turns(self, state: State) -> tuple[Turn, ...]:
        """The windows of night `state.night` (2 and later; night 1 is the
        meeting). Every window runs its full length (S5)."""

    @abstractmethod
    def room(self, state: State, turn: Turn) -> tuple[frozenset[int], bool]:
        """Who sees each other during `turn`, and whether they also hear."""

    @abstractmethod
    def night_action(self, state: State, action: NightAction, now: float) -> list[Event]:
        """Apply a night action to the working state or raise IllegalAction."""

    @abstractmethod
    def night_options(self, state: State, seat: int) -> list[NightAction]:
        """Every night action `seat` may take right now."""

    @abstractmethod
    def reveal(self, state: State, checker: int, target: int) -> str:
        """What `checker`'s check of `target` shows (S3, M9, M10)."""

    @abstractmethod
    def dawn(self, state: State, now: float) -> tuple[list[tuple[int, Cause]], list[Event]]:
        """Resolve the night: (deaths as (seat, cause) in the order they are
        announced, private events such as late check results)."""

    @abstractmethod
    def winner(self, state: State) -> tuple[str, str] | None:
        """(winner, reason) if the game is decided, else None."""

    @abstractmethod
    def defeat_winner(self, state: State, offender: int) -> str:
        """The winner when `offender` is handed a technical defeat (T4)."""

    @abstractmethod
    def ranked(
        self, settings: Any, bots: frozenset[int], stand_ins: frozenset[int] = frozenset()
    ) -> bool:
        """Whether the table is ranked (A1); `stand_ins` are the bots that
        play for an absent tournament player. `ending.awards` says whether
        its finished game awards rating, coins and experience."""

    def team(self, role: str) -> str:
        return "black" if role in self.black_roles else "red"
