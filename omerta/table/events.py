"""Events a step produces. Each carries its audience: who at the table may
see it. Live play sends a seat only the events whose audience includes it;
`omerta replay` and moderators see them all."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Audience:
    """`everyone` (seats and spectators), one `seat`, a `team` (a fixed set of
    seats, e.g. the black team), or `record` (the game record and moderators
    only: nobody at the table)."""

    kind: str
    seats: frozenset[int] = frozenset()

    def includes(self, seat: int | None) -> bool:
        if self.kind == "everyone":
            return True
        return seat is not None and seat in self.seats

    def to_dict(self) -> dict[str, Any]:
        if self.kind in ("everyone", "record"):
            return {"kind": self.kind}
        return {"kind": self.kind, "seats": sorted(self.seats)}


EVERYONE = Audience("everyone")
RECORD = Audience("record")


def to_seat(seat: int) -> Audience:
    return Audience("seat", frozenset((seat,)))


def to_team(name: str, seats) -> Audience:
    return Audience(name, frozenset(seats))


@dataclass(slots=True, kw_only=True)
class Event:
    t: float
    audience: Audience = EVERYONE
    event: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.event, "t": wire_time(self.t)}
        for f in fields(self):
            value = getattr(self, f.name)
            # Optional fields that do not apply (None by default) are left out.
            if f.name in ("t", "audience") or (value is None and f.default is None):
                continue
            out[f.name] = _jsonable(value)
        return out


def wire_time(t: float) -> int | float:
    """Whole seconds print as integers; other times keep millisecond precision."""
    r = round(t, 3)
    return int(r) if r == int(r) else r


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


@dataclass(slots=True, kw_only=True)
class Seated(Event):
    roles: dict[int, str]
    event: ClassVar[str] = "seated"


@dataclass(slots=True, kw_only=True)
class RoleDealt(Event):
    seat: int
    role: str
    event: ClassVar[str] = "role"


@dataclass(slots=True, kw_only=True)
class Picked(Event):
    seat: int
    card: int
    event: ClassVar[str] = "picked"


@dataclass(slots=True, kw_only=True)
class Team(Event):
    """Teammates learn each other (C2: the black team, from the first night)."""
    roles: dict[int, str]
    event: ClassVar[str] = "team"


@dataclass(slots=True, kw_only=True)
class Phase(Event):
    phase: str
    day: int | None = None
    night: int | None = None
    seconds: float | None = None
    event: ClassVar[str] = "phase"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": "phase", "t": wire_time(self.t), "phase": self.phase}
        if self.night is not None:
            out["night"] = self.night
        else:
            out["day"] = self.day
        out["seconds"] = self.seconds
        return out


@dataclass(slots=True, kw_only=True)
class Speech(Event):
    seat: int
    seconds: float
    kind: str
    event: ClassVar[str] = "speech"


@dataclass(slots=True, kw_only=True)
class SpeechEnded(Event):
    seat: int
    early: bool
    event: ClassVar[str] = "speech_end"


@dataclass(slots=True, kw_only=True)
class Nominated(Event):
    by: int
    target: int
    event: ClassVar[str] = "nominated"


@dataclass(slots=True, kw_only=True)
class Interjection(Event):
    seat: int
    left: int
    seconds: float
    event: ClassVar[str] = "interjection"


@dataclass(slots=True, kw_only=True)
class InterjectionEnded(Event):
    seat: int
    event: ClassVar[str] = "interjection_end"


@dataclass(slots=True, kw_only=True)
class Calling(Event):
    """Open voting: this candidate is being called (V3)."""
    candidate: int
    seconds: float
    event: ClassVar[str] = "calling"


@dataclass(slots=True, kw_only=True)
class Ballot(Event):
    """One cast vote (`target`) or lift ballot (`yes`): public at once in open
    voting, only to the voter in closed voting until the count (V3)."""
    round: str
    voter: int
    target: int | None = None
    yes: bool | None = None
    event: ClassVar[str] = "ballot"


@dataclass(slots=True, kw_only=True)
class Votes(Event):
    round: str
    ballots: dict[int, Any]
    counts: dict[int, int]
    event: ClassVar[str] = "votes"


@dataclass(slots=True, kw_only=True)
class Left(Event):
    seat: int
    cause: str
    event: ClassVar[str] = "left"


@dataclass(slots=True, kw_only=True)
class NightChoice(Event):
    """A night action, shown to the actor (and to the black team for the shot)."""
    action: str
    by: int
    target: int
    event: ClassVar[str] = "night_action"


@dataclass(slots=True, kw_only=True)
class CheckResult(Event):
    by: int
    target: int
    result: str
    event: ClassVar[str] = "check"


@dataclass(slots=True, kw_only=True)
class Morning(Event):
    """Dawn: who died in the night (never why in city mode, M11)."""
    dead: list[int]
    event: ClassVar[str] = "morning"


@dataclass(slots=True, kw_only=True)
class TechCalled(Event):
    kind: str
    by: int
    target: int
    seconds: float
    event: ClassVar[str] = "tech_call"


@dataclass(slots=True, kw_only=True)
class TechBallot(Event):
    voter: int
    yes: bool
    event: ClassVar[str] = "tech_ballot"


@dataclass(slots=True, kw_only=True)
class TechResult(Event):
    kind: str
    by: int
    target: int
    yes: int
    passed: bool
    needed: int
    event: ClassVar[str] = "tech_vote"


@dataclass(slots=True, kw_only=True)
class TechRecord(Event):
    """T5: the full technical vote for moderators (record audience only)."""
    kind: str
    by: int
    target: int
    ballots: dict[int, bool]
    passed: bool
    phase: str
    day: int
    called_at: float
    event: ClassVar[str] = "tech_record"


@dataclass(slots=True, kw_only=True)
class Foul(Event):
    seat: int
    count: int
    event: ClassVar[str] = "foul"


@dataclass(slots=True, kw_only=True)
class VoteCancelled(Event):
    """T3: a removal voids the day's nominations and vote."""
    event: ClassVar[str] = "vote_cancelled"


@dataclass(slots=True, kw_only=True)
class GameOver(Event):
    winner: str
    reason: str
    roles: dict[int, str]
    event: ClassVar[str] = "game_over"
