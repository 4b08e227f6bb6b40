"""The working context of one engine step: the state being changed (a
clone of the caller's), the step's time, and the events it produced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import IllegalAction
from .events import Event
from .state import State

#: What a step does once a part of the game is over: the handlers and
#: timeouts of each part return it and `flow.proceed` runs it, so no part
#: needs to know what follows it. "queue": the next queued speech, or what
#: follows the queue; "end_day": E2's count, then night or the draw;
#: "meeting": roles are dealt, the first night (N1) begins.
Next = Literal["queue", "end_day", "meeting"]


def later(t: float, seconds: float) -> float:
    """Times are whole milliseconds, kept as the float nearest to them, so a
    record that writes them with three decimals replays exactly."""
    return round(t + seconds, 3)


@dataclass(slots=True)
class Step:
    state: State
    now: float
    events: list[Event] = field(default_factory=list)

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def after(self, seconds: float) -> float:
        return later(self.now, seconds)


def require(condition: bool, rule: str, code: str, **params: Any) -> None:
    """Refuse the action (rule, code, params: see errors.py) unless `condition`."""
    if not condition:
        raise IllegalAction(rule, code, **params)
