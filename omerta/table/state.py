"""The whole state of one table, as plain data.

The engine never mutates a state it was given: `apply` works on `clone()`
and returns it, so a refused action leaves the caller's state untouched.
A clone is shallow: every value in a state is either immutable or replaced,
never changed in place, so clones share them instead of copying them every
step. Per-seat values are tuples indexed by seat number (index 0 is unused)
that the rare steps changing one replace (`put`); the dicts (`choices`,
`checked`, `memory`, `ballots`), the deck and `tech` are replaced whole."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .actions import TechKind
from .ruleset import Ruleset, Turn

# The names below are typed string literals rather than Enums: they go on the
# wire as they are, mypy (--strict) refuses any other spelling, and they cost
# nothing, whereas reading an Enum member on Python 3.11 goes through
# EnumType.__getattr__ (+19% engine time when tried).

#: Where the table is; each stage has its own deadline and actions:
#: "draw" K1; "meeting" N1; "night" S1-S5, M4 (`State.turns`); "day" only
#: between two parts of a day, never at the end of a step; "speech" D1
#: (`State.speech_kind`); "vote" V2-V3 (`State.vote_round`); "lift" V6;
#: "over" E4.
Stage = Literal["draw", "meeting", "night", "day", "speech", "vote", "lift", "over"]

#: "day" D1, "tie" V5, "leader" V7, "farewell" V4, "last_word" S6
SpeechKind = Literal["day", "tie", "leader", "farewell", "last_word"]

#: "vote" V2, "revote" V5, "lift" V6
Round = Literal["vote", "revote", "lift"]

#: What follows once the queued speeches are over: "opening" the day speeches
#: (D3) after the last words; "verdict" V1 (no vote, a single nominee, or the
#: vote); "revote" V5 after the tie speeches; "night" the day ends (E2).
Then = Literal["opening", "verdict", "revote", "night"]


#: `object.__new__` read once, not looked up on `object` in every clone
_new = object.__new__


def put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """`values` with one item replaced."""
    return values[:index] + (value,) + values[index + 1 :]


@dataclass(frozen=True, slots=True)
class TechState:
    """A technical vote under way (T1–T2). The other clocks are frozen.
    Frozen, so clones share it: a ballot replaces it."""

    kind: TechKind
    by: int
    target: int
    called_at: float
    end: float
    during: str
    ballots: dict[int, bool] = field(default_factory=dict)

    def with_ballot(self, seat: int, yes: bool) -> TechState:
        """This vote with one more ballot (`dataclasses.replace` looks at
        every field first: a third of a ballot's step)."""
        ballots = {**self.ballots, seat: yes}
        return TechState(
            self.kind, self.by, self.target, self.called_at, self.end, self.during, ballots
        )


@dataclass(eq=False)
class State:
    # An instance dict of its own rather than CPython's managed one: a clone
    # (a new instance given a copy of the dict) then costs less than half.
    __slots__ = ("__dict__",)

    ruleset: Ruleset
    settings: Any
    seed: int | str
    n: int
    bots: frozenset[int]
    roles: tuple[str | None, ...]
    alive: tuple[bool, ...]
    fouls: tuple[int, ...]
    interjections: tuple[int, ...]
    short_next: tuple[bool, ...]
    deck: list[str | None] | None = None
    now: float = 0.0
    stage: Stage = "draw"
    day: int = 0
    night: int = 0
    deadline: float | None = None
    # speeches (D1–D5)
    speaker: int | None = None
    speech_kind: SpeechKind | None = None
    speech_nominated: bool = False
    queue: tuple[tuple[int, SpeechKind], ...] = ()
    then: Then = "night"
    interjector: int | None = None
    interjection_end: float | None = None
    opener: int = 0
    # nominations and votes (D2, V1–V7)
    nominees: tuple[int, ...] = ()
    nominations_closed: bool = False
    vote_round: Round | None = None
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
    #: seats the table removed (T3) or handed a technical defeat (T4): their
    #: awards are forfeit (docs/ratings.md)
    forfeits: frozenset[int] = frozenset()
    # best move (B1): who may name one (the first night's dead, once known),
    # and each seat's naming; replaced, never changed in place
    best_move_seats: frozenset[int] = frozenset()
    best_moves: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # the end (E1–E4)
    winner: str | None = None
    reason: str | None = None
    #: bot seats playing for an absent tournament player (A1)
    stand_ins: frozenset[int] = frozenset()

    def clone(self) -> State:
        new = _new(State)
        new.__dict__ = self.__dict__.copy()  # far cheaper than setting each field
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

    # The helpers below read the state's values once, not in every round of
    # their loops: the rules ask them in most steps (a city dawn, ten times).

    def living(self) -> list[int]:
        alive = self.alive
        return [s for s in range(1, self.n + 1) if alive[s]]

    def living_count(self) -> int:
        """How many seats live: `alive` counted in C (its unused index 0 is
        always False), without the list `living` builds; every closed ballot asks."""
        return self.alive.count(True)

    def team_of(self, seat: int) -> str:
        role = self.roles[seat]
        return self.ruleset.team(role) if role else "unknown"

    def black_seats(self) -> list[int]:
        roles, black = self.roles, self.ruleset.black_roles
        return [s for s in range(1, self.n + 1) if roles[s] in black]

    def living_humans(self) -> list[int]:
        alive, bots = self.alive, self.bots
        return [s for s in range(1, self.n + 1) if alive[s] and s not in bots]

    def seats_with(self, role: str) -> list[int]:
        roles = self.roles
        return [s for s in range(1, self.n + 1) if roles[s] == role]

    def role(self, seat: int) -> str:
        """The role of a seat that has been dealt one (every seat, after the draw)."""
        role = self.roles[seat]
        assert role is not None, f"seat {seat} holds no card yet"
        return role

    def night_turn(self) -> Turn:
        """The night window under way (only at night)."""
        turn = self.current_turn()
        assert turn is not None, "no night window is under way"
        return turn

    def current_turn(self) -> Turn | None:
        if self.stage == "night" and self.turns:
            return self.turns[self.turn]
        return None
