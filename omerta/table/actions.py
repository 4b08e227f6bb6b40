"""Player actions and the timeout input, as typed values.

The names and arguments are those of docs/scripts.md and the WebSocket protocol;
`parse_action` is the one place where a JSON object becomes an action."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from types import MemberDescriptorType
from typing import Any, ClassVar, Literal, get_args

from .errors import BadAction, shown


@dataclass(frozen=True, slots=True)
class Action:
    seat: int
    name: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "do": self.name}
        names: tuple[str, ...] = self.__match_args__
        for name in names[1:]:  # the dataclass fields after the seat
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True, slots=True)
class Pick(Action):
    card: int
    name: ClassVar[str] = "pick"


@dataclass(frozen=True, slots=True)
class EndSpeech(Action):
    name: ClassVar[str] = "end_speech"


@dataclass(frozen=True, slots=True)
class Nominate(Action):
    target: int
    name: ClassVar[str] = "nominate"


@dataclass(frozen=True, slots=True)
class Interject(Action):
    name: ClassVar[str] = "interject"


@dataclass(frozen=True, slots=True)
class Vote(Action):
    target: int
    name: ClassVar[str] = "vote"


@dataclass(frozen=True, slots=True)
class Lift(Action):
    yes: bool
    name: ClassVar[str] = "lift"


@dataclass(frozen=True, slots=True)
class NightAction(Action):
    """A choice of one seat in a night window. The ruleset decides whether it
    is legal now and what it does; `rule` is cited when it is tried by day."""

    target: int
    rule: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class Shoot(NightAction):
    name: ClassVar[str] = "shoot"
    rule: ClassVar[str] = "S1"


@dataclass(frozen=True, slots=True)
class Check(NightAction):
    name: ClassVar[str] = "check"
    rule: ClassVar[str] = "S3"


#: "foul" and "removal" T3, "defeat" T4
TechKind = Literal["foul", "defeat", "removal"]


@dataclass(frozen=True, slots=True)
class TechCall(Action):
    kind: TechKind
    target: int
    name: ClassVar[str] = "tech_call"


@dataclass(frozen=True, slots=True)
class TechVote(Action):
    yes: bool
    name: ClassVar[str] = "tech_vote"


@dataclass(frozen=True, slots=True)
class BestMove(Action):
    """B1: the first player shot at night names up to three seats."""

    targets: tuple[int, ...]
    name: ClassVar[str] = "best_move"


@dataclass(frozen=True, slots=True)
class Timeout:
    """The next deadline has passed. Time is an input like any action."""


TECH_KINDS: tuple[TechKind, ...] = get_args(TechKind)


def _int(raw: Mapping[str, Any], key: str, name: str) -> int:
    value = raw.get(key)
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadAction("bad_integer", action=name, key=key, got=shown(value))
    return value


def _bool(raw: Mapping[str, Any], key: str, name: str) -> bool:
    value = raw.get(key)
    if not isinstance(value, bool):
        raise BadAction("bad_boolean", action=name, key=key, got=shown(value))
    return value


def _seats(raw: Mapping[str, Any], key: str, name: str) -> tuple[int, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or any(
        isinstance(v, bool) or not isinstance(v, int) for v in value
    ):
        raise BadAction("bad_seat_list", action=name, key=key, got=shown(value))
    return tuple(value)


def _tech_kind(raw: Mapping[str, Any], key: str, name: str) -> TechKind:
    value = raw.get(key)
    for kind in TECH_KINDS:
        if value == kind and isinstance(value, str):
            return kind
    raise BadAction("bad_tech_kind", kinds=list(TECH_KINDS), got=shown(value))


#: how each argument type is read from JSON (by its annotation)
_READERS: dict[str, Callable[[Mapping[str, Any], str, str], Any]] = {
    "int": _int,
    "bool": _bool,
    "TechKind": _tech_kind,
    "tuple[int, ...]": _seats,
}

#: The inline test that a JSON value already has its argument's type, as
#: almost every value in a record does; a value that fails it goes to the
#: type's reader, which converts it or refuses it.
_EXACT = {"int": "type({v}) is int", "bool": "({v} is True or {v} is False)"}

#: every known action by name, its arguments besides the seat in order, and
#: the parser compiled for it (`_compile_parser`)
ACTIONS: dict[str, type[Action]] = {}
_ARGS: dict[str, tuple[str, ...]] = {}
_PARSERS: dict[str, Callable[[Mapping[str, Any], int | None], Action]] = {}


def register(cls: type[Action]) -> type[Action]:
    """Make `cls` known by its name to `parse_action` (and to table scripts).
    A ruleset registers the actions it adds when it is imported."""
    if ACTIONS.get(cls.name, cls) is not cls:
        raise ValueError(f"two actions are called {cls.name!r}")
    args = tuple((f.name, str(f.type)) for f in fields(cls) if f.name != "seat")
    parser = _compile_parser(cls, args)  # first: a class it refuses is not made known
    ACTIONS[cls.name] = cls
    _ARGS[cls.name] = tuple(key for key, _ in args)
    _PARSERS[cls.name] = parser
    return cls


def _compile_parser(
    cls: type[Action], args: tuple[tuple[str, str], ...]
) -> Callable[[Mapping[str, Any], int | None], Action]:
    """A parser of `cls` from its JSON form written out for its arguments, as
    `dataclasses` writes `__init__`: each value read and checked inline, its
    reader called only for a value of another type, the action built slot
    by slot: no loop, no reader call and no star call for a record's
    values."""
    lines = [
        "def parse(raw, seat):",
        "    if seat is None:",
        "        seat = raw.get('seat')",
        "        if type(seat) is not int:",
        "            seat = read_int(raw, 'seat', NAME)",
    ]
    for key, kind in args:
        local = f"arg_{key}"
        reader = f"READERS[{kind!r}](raw, {key!r}, NAME)"
        lines.append(f"    {local} = raw.get({key!r})")
        if kind in _EXACT:
            lines.append(f"    if not {_EXACT[kind].format(v=local)}:")
            lines.append(f"        {local} = {reader}")
        else:
            lines.append(f"    {local} = {reader}")
    # Each slot set through its own descriptor, as the frozen `__init__`
    # would (it calls `object.__setattr__` by name per field) at a third of
    # the cost.
    values = {"seat": "seat"} | {key: f"arg_{key}" for key, _ in args}
    lines.append("    action = new(cls)")
    lines += [f"    set_{key}(action, {value})" for key, value in values.items()]
    lines.append("    return action")
    known = {
        "cls": cls,
        "NAME": cls.name,
        "READERS": _READERS,
        "read_int": _int,
        "new": object.__new__,
        **{f"set_{key}": _slot(cls, key).__set__ for key in values},
    }
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), known, namespace)
    parse: Callable[[Mapping[str, Any], int | None], Action] = namespace["parse"]
    return parse


def _slot(cls: type[Action], name: str) -> MemberDescriptorType:
    """The slot of field `name` (in `cls` or a base). Actions are frozen
    dataclasses with slots (city_mode/__init__.py shows one); any other is
    refused when registered."""
    found = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
    if type(found) is not MemberDescriptorType:
        raise ValueError(
            f"action {cls.name!r}: field {name!r} is not a slot;"
            " declare the class with @dataclass(frozen=True, slots=True)"
        )
    return found


for _cls in (
    Pick,
    EndSpeech,
    Nominate,
    Interject,
    Vote,
    Lift,
    Shoot,
    Check,
    TechCall,
    TechVote,
    BestMove,
):
    register(_cls)


def parser(name: str) -> Callable[[Mapping[str, Any], int | None], Action]:
    """The parser `parse_action` uses for the known action `name`, for a
    caller that has already checked the object and its name (table
    scripts, a line at a time)."""
    return _PARSERS[name]


def arg_names(name: str) -> tuple[str, ...]:
    """The arguments of action `name` besides the seat, in order."""
    return _ARGS[name]


def parse_action(raw: Mapping[str, Any], seat: int | None = None) -> Action:
    """Build an action from its JSON form. `seat` overrides the object's own
    (the server knows who is talking; a script says it on the line)."""
    if type(raw) is not dict and not isinstance(raw, Mapping):  # an ABC check costs
        raise BadAction("not_an_object")
    name = raw.get("do")
    parse = _PARSERS.get(name) if isinstance(name, str) else None
    if parse is None:
        raise BadAction("unknown_action", got=shown(name), known=sorted(ACTIONS))
    return parse(raw, seat)
