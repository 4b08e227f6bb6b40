"""Player actions and the timeout input, as typed values.

The names and arguments are those of SCRIPTS.md and the WebSocket protocol;
`parse_action` is the one place where a JSON object becomes an action."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from .errors import BadAction


@dataclass(frozen=True, slots=True)
class Action:
    seat: int
    name: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "do": self.name}
        for field in self.__slots__:
            if field != "seat":
                out[field] = getattr(self, field)
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
class Shoot(Action):
    target: int
    name: ClassVar[str] = "shoot"


@dataclass(frozen=True, slots=True)
class Check(Action):
    target: int
    name: ClassVar[str] = "check"


@dataclass(frozen=True, slots=True)
class TechCall(Action):
    kind: str
    target: int
    name: ClassVar[str] = "tech_call"


@dataclass(frozen=True, slots=True)
class TechVote(Action):
    yes: bool
    name: ClassVar[str] = "tech_vote"


@dataclass(frozen=True, slots=True)
class Visit(Action):
    target: int
    name: ClassVar[str] = "visit"


@dataclass(frozen=True, slots=True)
class Kill(Action):
    target: int
    name: ClassVar[str] = "kill"


@dataclass(frozen=True, slots=True)
class Heal(Action):
    target: int
    name: ClassVar[str] = "heal"


@dataclass(frozen=True, slots=True)
class Timeout:
    """The next deadline has passed. Time is an input like any action."""


TECH_KINDS = ("foul", "defeat", "removal")

ACTIONS: dict[str, type[Action]] = {
    cls.name: cls
    for cls in (Pick, EndSpeech, Nominate, Interject, Vote, Lift, Shoot, Check,
                TechCall, TechVote, Visit, Kill, Heal)
}


def _int(raw: Mapping[str, Any], key: str, name: str) -> int:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadAction(f"{name} needs an integer '{key}', got {value!r}")
    return value


def _bool(raw: Mapping[str, Any], key: str, name: str) -> bool:
    value = raw.get(key)
    if not isinstance(value, bool):
        raise BadAction(f"{name} needs '{key}': true or false, got {value!r}")
    return value


def parse_action(raw: Mapping[str, Any], seat: int | None = None) -> Action:
    """Build an action from its JSON form. `seat` overrides the object's own
    (the server knows who is talking; a script says it on the line)."""
    if not isinstance(raw, Mapping):
        raise BadAction("an action must be a JSON object")
    name = raw.get("do")
    cls = ACTIONS.get(name) if isinstance(name, str) else None
    if cls is None:
        known = ", ".join(sorted(ACTIONS))
        raise BadAction(f"unknown action {name!r}; known actions: {known}")
    if seat is None:
        seat = _int(raw, "seat", name)
    if cls in (EndSpeech, Interject):
        return cls(seat)
    if cls is Pick:
        return Pick(seat, _int(raw, "card", name))
    if cls in (Lift, TechVote):
        return cls(seat, _bool(raw, "yes", name))
    if cls is TechCall:
        kind = raw.get("kind")
        if kind not in TECH_KINDS:
            raise BadAction(f"tech_call needs 'kind': one of {', '.join(TECH_KINDS)}, got {kind!r}")
        return TechCall(seat, kind, _int(raw, "target", name))
    return cls(seat, _int(raw, "target", name))
