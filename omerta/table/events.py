"""Events a step produces. Each carries its audience: who at the table may
see it. Live play sends a seat only the events whose audience includes it;
`omerta replay` and moderators see them all."""

from __future__ import annotations

import json
import math
from _json import make_encoder
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from functools import lru_cache
from json.encoder import encode_basestring_ascii as quote
from typing import Any, ClassVar, Literal

from .actions import TechKind
from .clock import whole_ms


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


@lru_cache(maxsize=64)  # audiences are immutable; a table has at most a dozen seats
def to_seat(seat: int) -> Audience:
    return Audience("seat", frozenset((seat,)))


def to_team(name: str, seats: Iterable[int]) -> Audience:
    return Audience(name, frozenset(seats))


@dataclass(slots=True)
class Event:
    """An event's fields may be passed by position, after `t` (the engine's
    busiest steps do: a keyword call costs twice as much); `audience` only
    by name."""

    t: float
    audience: Audience = field(default=EVERYONE, kw_only=True)
    event: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """The event's fields in order, as JSON values; optional fields
        that do not apply (None by default) are left out. Each class gets
        its own compiled copy of this (`_compile_to_dict`)."""
        out: dict[str, Any] = {"event": self.event, "t": wire_time(self.t)}
        for name, optional, nested in _spec(type(self)):
            value = getattr(self, name)
            if value is None and optional:
                continue
            out[name] = _jsonable(value) if nested else value
        return out

    def to_json(self) -> str:
        """`json.dumps(self.to_dict())`, byte for byte. Each class gets its
        own compiled copy of this that writes the text itself (`_compile_to_json`)."""
        return "".join(_ENCODE(self.to_dict(), 0))


#: The C encoder `json.dumps` builds on every call, with its default
#: settings (", " and ": ", ASCII only), built once.
_ENCODE = make_encoder(
    None, json.JSONEncoder().default, quote, None, ": ", ", ", False, False, True
)


def _spec(cls: type[Event]) -> tuple[tuple[str, bool, bool], ...]:
    """What `to_dict` writes: (field name, left out when None, a dict or list by its type)."""
    return tuple(
        (f.name, f.default is None, str(f.type).startswith(("dict", "list", "tuple")))
        for f in fields(cls)
        if f.name not in ("t", "audience")
    )


#: How `_compile_to_json` writes a field of each plain type: a check that
#: the value is of that type exactly (a bool passes for an int, and an int
#: for a float, with mypy: they print differently), and the text `json.dumps`
#: writes for it. Other types (dicts, lists, a union) go through the encoder.
_PLAIN_JSON = {
    "int": ("type({v}) is int", "{v}!r"),
    "float": ("type({v}) in NUMBER and -INF < {v} < INF", "{v}!r"),
    "bool": ("({v} is True or {v} is False)", "(TRUE if {v} else FALSE)"),
    "str": ("type({v}) is str", "quote({v})"),
}
for _alias in ("Cause", "TechKind"):  # string literals
    _PLAIN_JSON[_alias] = _PLAIN_JSON["str"]


def _compile_to_json(cls: type[Event]) -> None:
    """Give `cls` a `to_json` that writes its JSON text in one f-string: the
    text `json.dumps(self.to_dict())` writes, at a third of the cost of
    building the dict and encoding it. A value of another type than its
    field's (which mypy lets through for bool and int) takes the general way."""
    known: dict[str, Any] = {}
    # The f-string's text: its braces doubled, a field's value in braces.
    text = [
        f"{{{{{quote('event')}: {quote(cls.event)}, {quote('t')}: {{repr(t) if type(t) is int else when(t)}}"
    ]
    checks, names = [], []
    types = {f.name: str(f.type) for f in fields(cls)}
    for name, optional, _ in _spec(cls):
        names.append(name)
        kind = types[name].removesuffix(" | None") if optional else types[name]
        check, value = _PLAIN_JSON.get(kind, ("True", "nested({v})"))
        check, value = check.format(v=name), value.format(v=name)
        key = f", {quote(name)}: "
        if optional:  # left out when None, as to_dict does
            known[f"key_{name}"] = key
            checks.append(f"({name} is None or {check})")
            shown = f"repr({name})" if value.endswith("!r") else value
            text.append(f"{{EMPTY if {name} is None else key_{name} + {shown}}}")
        else:
            checks.append(check)
            text.append(f"{key}{{{value}}}")
    text.append("}}")
    lines = [
        "def to_json(self):",
        "    if self.__class__ is not cls:  # a subclass of it has fields of its own",
        "        return generic(self)",
        "    t = self.t",
        *(f"    {name} = self.{name}" for name in names),
        f"    if {' and '.join(checks) or 'True'}:",
        f"        return f{''.join(text)!r}",
        "    return generic(self)",
    ]
    known |= {
        "cls": cls,
        "generic": Event.to_json,
        "when": time_json,
        "quote": quote,
        "nested": _nested_json,
        "NUMBER": (int, float),
        "INF": math.inf,
        "TRUE": "true",
        "FALSE": "false",
        "EMPTY": "",
    }
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), known, namespace)
    cls.to_json = namespace["to_json"]  # type: ignore[method-assign]


#: The last float time written and its text. Every event of a step carries
#: the step's own `now` object, so most events repeat the time of the one
#: before, and a float time's text (its rounding and `repr`) was half of a
#: speech's JSON. One tuple, replaced whole: a thread sees a matching pair.
_last_time: tuple[object, str] = (object(), "")


def time_json(t: float) -> str:
    """`repr(wire_time(t))`: the JSON text of a time."""
    global _last_time
    last = _last_time
    if last[0] is t:
        return last[1]
    text = repr(wire_time(t))
    _last_time = (t, text)
    return text


#: Dict keys the encoder writes as `_jsonable`'s `str(key)` does, and values
#: it writes as they are (`_jsonable` changes only containers and keys).
_KEYS = frozenset((int, str))
_SCALARS = frozenset((int, str, bool, float, type(None)))
_SEQUENCES = (list, tuple)


def _nested_json(value: Any) -> str:
    """`_ENCODE(_jsonable(value))`. Most dicts and lists of events are flat
    (seat -> seat, seat -> role, a list of seats): the encoder writes those
    as they are, which spares `_jsonable` a Python call per item (a vote's
    JSON cost as much as six speeches')."""
    if type(value) is dict:
        if _KEYS.issuperset(map(type, value)) and _SCALARS.issuperset(map(type, value.values())):
            return "".join(_ENCODE(value, 0))
    elif type(value) in _SEQUENCES and _SCALARS.issuperset(map(type, value)):
        return "".join(_ENCODE(value, 0))
    return "".join(_ENCODE(_jsonable(value), 0))


def _compile_to_dict(cls: type[Event]) -> None:
    """Give `cls` a `to_dict` written out for its own fields, as `dataclasses`
    writes `__init__`: the same output as `Event.to_dict` without its loop,
    `getattr` and `fields` on every call, which were most of an event's cost."""
    lines = [
        "def to_dict(self):",
        "    if self.__class__ is not cls:  # a subclass of it has fields of its own",
        "        return generic(self)",
        f"    out = {{'event': {cls.event!r}, 't': wire_time(self.t)}}",
    ]
    for name, optional, nested in _spec(cls):
        value = f"_jsonable(self.{name})" if nested else f"self.{name}"
        if optional:
            lines.append(f"    if self.{name} is not None:")
            lines.append(f"        out[{name!r}] = {value}")
        else:
            lines.append(f"    out[{name!r}] = {value}")
    lines.append("    return out")
    namespace: dict[str, Any] = {}
    known = {"cls": cls, "generic": Event.to_dict, "wire_time": wire_time, "_jsonable": _jsonable}
    exec("\n".join(lines), known, namespace)
    cls.to_dict = namespace["to_dict"]  # type: ignore[method-assign]


def wire_time(t: float) -> int | float:
    """Whole seconds print as integers; other times keep millisecond precision
    (the engine's rounding: a record replays where the engine applied it)."""
    if type(t) is int:  # most of the engine's times
        return t
    r = whole_ms(t)
    return int(r) if r.is_integer() else r  # r is a finite float: whole_ms refuses the rest


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


@dataclass(slots=True)
class Seated(Event):
    roles: dict[int, str]
    event: ClassVar[str] = "seated"


@dataclass(slots=True)
class RoleDealt(Event):
    seat: int
    role: str
    event: ClassVar[str] = "role"


@dataclass(slots=True)
class Picked(Event):
    seat: int
    card: int
    event: ClassVar[str] = "picked"


@dataclass(slots=True)
class Team(Event):
    """Teammates learn each other (C2: the black team, from the first night)."""

    roles: dict[int, str]
    event: ClassVar[str] = "team"


@dataclass(slots=True)
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

    def to_json(self) -> str:
        """As `to_dict` writes it (a class with its own `to_dict` gets no
        compiled writer): the busiest event after speeches."""
        phase, seconds = self.phase, self.seconds
        key, number = ("night", self.night) if self.night is not None else ("day", self.day)
        if (
            type(phase) is str
            and (number is None or type(number) is int)
            and (
                seconds is None
                or (type(seconds) in (int, float) and -math.inf < seconds < math.inf)
            )
        ):
            t = self.t
            return (
                f'{{"event": "phase", "t": {repr(t) if type(t) is int else time_json(t)},'
                f' "phase": {quote(phase)}, "{key}": {"null" if number is None else repr(number)},'
                f' "seconds": {"null" if seconds is None else repr(seconds)}}}'
            )
        return Event.to_json(self)


@dataclass(slots=True)
class Speech(Event):
    seat: int
    seconds: float
    kind: str
    event: ClassVar[str] = "speech"


@dataclass(slots=True)
class SpeechEnded(Event):
    seat: int
    early: bool
    event: ClassVar[str] = "speech_end"


@dataclass(slots=True)
class Nominated(Event):
    by: int
    target: int
    event: ClassVar[str] = "nominated"


@dataclass(slots=True)
class Interjection(Event):
    seat: int
    left: int
    seconds: float
    event: ClassVar[str] = "interjection"


@dataclass(slots=True)
class InterjectionEnded(Event):
    seat: int
    event: ClassVar[str] = "interjection_end"


@dataclass(slots=True)
class Calling(Event):
    """Open voting: this candidate is being called (V3)."""

    candidate: int
    seconds: float
    event: ClassVar[str] = "calling"


@dataclass(slots=True)
class Ballot(Event):
    """One cast vote (`target`) or lift ballot (`yes`): public at once in open
    voting, only to the voter in closed voting until the count (V3)."""

    round: str
    voter: int
    target: int | None = None
    yes: bool | None = None
    event: ClassVar[str] = "ballot"


@dataclass(slots=True)
class Votes(Event):
    round: str
    ballots: dict[int, Any]
    #: votes per candidate; for the lift vote, "yes" and "no"
    counts: dict[int, int] | dict[str, int]
    event: ClassVar[str] = "votes"


#: Why a player left the table: "shot" S1, M6; "killed" M7; "vote" V1, V4;
#: "lift" V6; "removed" T3.
Cause = Literal["shot", "killed", "vote", "lift", "removed"]


@dataclass(slots=True)
class Left(Event):
    seat: int
    cause: Cause
    event: ClassVar[str] = "left"


@dataclass(slots=True)
class NightChoice(Event):
    """A night action, shown to the actor (and to the black team for the shot)."""

    action: str
    by: int
    target: int
    event: ClassVar[str] = "night_action"


@dataclass(slots=True)
class CheckResult(Event):
    by: int
    target: int
    result: str
    event: ClassVar[str] = "check"


@dataclass(slots=True)
class Morning(Event):
    """Dawn: who died in the night (never why in city mode, M11)."""

    dead: list[int]
    event: ClassVar[str] = "morning"


@dataclass(slots=True)
class TechCalled(Event):
    kind: TechKind
    by: int
    target: int
    seconds: float
    event: ClassVar[str] = "tech_call"


@dataclass(slots=True)
class TechBallot(Event):
    voter: int
    yes: bool
    event: ClassVar[str] = "tech_ballot"


@dataclass(slots=True)
class TechResult(Event):
    """T2: a technical vote's public result."""

    kind: TechKind
    by: int
    target: int
    yes: int
    passed: bool
    needed: int
    event: ClassVar[str] = "tech_vote"


@dataclass(slots=True)
class TechRecord(Event):
    """T5: the full technical vote for moderators (record audience only)."""

    kind: TechKind
    by: int
    target: int
    ballots: dict[int, bool]
    passed: bool
    phase: str
    day: int
    called_at: float
    event: ClassVar[str] = "tech_record"


@dataclass(slots=True)
class Foul(Event):
    seat: int
    count: int
    event: ClassVar[str] = "foul"


@dataclass(slots=True)
class VoteCancelled(Event):
    """T3: a removal voids the day's nominations and vote."""

    event: ClassVar[str] = "vote_cancelled"


@dataclass(slots=True)
class BestMoveNamed(Event):
    """B1: the first player shot at night named these seats (public at once)."""

    seat: int
    targets: list[int]
    event: ClassVar[str] = "best_move"


@dataclass(slots=True)
class GameOver(Event):
    winner: str
    reason: str
    roles: dict[int, str]
    #: B1, when a best move was named: [{"seat", "targets", "black": the
    #: named seats that were black}]
    best_move: list[dict[str, Any]] | None = None
    event: ClassVar[str] = "game_over"


for _cls in Event.__subclasses__():
    if "to_dict" not in _cls.__dict__:  # Phase writes its own
        _compile_to_dict(_cls)
        _compile_to_json(_cls)
