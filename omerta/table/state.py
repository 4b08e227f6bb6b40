"""The whole state of one table, as plain data.

The engine never mutates a state it was given: `apply` works on `clone()`
and returns it, so a refused action leaves the caller's state untouched.
Per-seat values are tuples indexed by seat number (index 0 is unused): the
rare steps that change one replace the tuple (`put`), so a clone shares
them instead of copying them every step."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .ruleset import Ruleset, Turn


def put(values: tuple, index: int, value) -> tuple:
    """`values` with one item replaced."""
    return values[:index] + (value,) + values[index + 1:]


@dataclass(slots=True)
class TechState:
    """A technical vote under way (T1–T2). The other clocks are frozen."""

    kind: str
    by: int
    target: int
    called_at: float
    end: float
    during: str
    ballots: dict[int, bool] = field(default_factory=dict)

    def copy(self) -> "TechState":
        return TechState(self.kind, self.by, self.target, self.called_at, self.end,
                         self.during, dict(self.ballots))


@dataclass(eq=False)
class State:
    ruleset: Ruleset
    settings: Any
    seed: int
    n: int
    bots: frozenset[int]
    roles: tuple[str | None, ...]
    alive: tuple[bool, ...]
    fouls: tuple[int, ...]
    interjections: tuple[int, ...]
    short_next: tuple[bool, ...]
    deck: list[str | None] | None = None
    now: float = 0.0
    # "draw", "meeting", "night", "speech", "vote", "lift", "over"
    stage: str = "draw"
    day: int = 0
    night: int = 0
    deadline: float | None = None
    # speeches (D1–D5)
    speaker: int | None = None
    speech_kind: str | None = None
    speech_nominated: bool = False
    queue: tuple[tuple[int, str], ...] = ()
    then: str = ""
    interjector: int | None = None
    interjection_end: float | None = None
    opener: int = 0
    # nominations and votes (D2, V1–V7)
    nominees: tuple[int, ...] = ()
    nominations_closed: bool = False
    vote_round: str | None = None
    candidates: tuple[int, ...] = ()
    calling: int = 0
    #: replaced, never changed in place, so clones may share it
    ballots: dict[int, Any] = field(default_factory=dict)
    tied: tuple[int, ...] = ()
    # night
    turns: tuple[Turn, ...] = ()
    turn: int = 0
    choices: dict[str, Any] = field(default_factory=dict)
    checked: dict[int, frozenset[int]] = field(default_factory=dict)
    #: ruleset memory across nights; values must be immutable
    memory: dict[str, Any] = field(default_factory=dict)
    # technical votes (T1–T5)
    tech: TechState | None = None
    # the E2 draw count
    quiet: int = 0
    departed: bool = False
    # the end (E1–E4)
    winner: str | None = None
    reason: str | None = None

    def clone(self) -> "State":
        new = object.__new__(State)
        new.__dict__ = self.__dict__.copy()   # far cheaper than setting each field
        if self.deck is not None:
            new.deck = self.deck[:]
        new.choices = {k: (dict(v) if isinstance(v, dict) else v)
                       for k, v in self.choices.items()} if self.choices else {}
        new.checked = dict(self.checked) if self.checked else {}
        new.memory = dict(self.memory) if self.memory else {}
        if self.tech is not None:
            new.tech = self.tech.copy()
        return new

    # --- derived facts -------------------------------------------------

    @property
    def seats(self) -> range:
        return range(1, self.n + 1)

    @property
    def over(self) -> bool:
        return self.stage == "over"

    @property
    def next_deadline(self) -> float | None:
        """When the next timeout is due; the shell arms its timer for this."""
        if self.tech is not None:
            return self.tech.end
        if self.interjection_end is not None and self.deadline is not None:
            return min(self.deadline, self.interjection_end)
        return self.deadline

    def living(self) -> list[int]:
        return [s for s in self.seats if self.alive[s]]

    def team_of(self, seat: int) -> str:
        role = self.roles[seat]
        return self.ruleset.team(role) if role else "unknown"

    def black_seats(self) -> list[int]:
        return [s for s in self.seats if self.roles[s] in self.ruleset.black_roles]

    def living_humans(self) -> list[int]:
        return [s for s in self.seats if self.alive[s] and s not in self.bots]

    def seats_with(self, role: str) -> list[int]:
        return [s for s in self.seats if self.roles[s] == role]

    def current_turn(self) -> Turn | None:
        if self.stage == "night" and self.turns:
            return self.turns[self.turn]
        return None

