"""The working context of one engine step: the state being changed (a
clone of the caller's), the step's time, and the events it produced."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from .clock import whole_ms
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
    """`seconds` after `t`, on the engine's clock (whole milliseconds)."""
    return whole_ms(t + seconds)


class Step:
    # A plain class with slots: built once per step, it costs half of a
    # dataclass with a default factory.
    __slots__ = ("emit", "events", "now", "state")

    def __init__(self, state: State, now: float):
        self.state = state
        self.now = now
        self.events: list[Event] = []
        #: add an event to the step's (the list's own append: no Python call)
        self.emit: Callable[[Event], None] = self.events.append

    def after(self, seconds: float) -> float:
        t = self.now + seconds
        return t if type(t) is int else whole_ms(t)  # whole seconds need no rounding: most times


def require(condition: bool, rule: str, code: str, **params: Any) -> None:
    """Refuse the action (rule, code, params: see errors.py) unless `condition`.
    The busiest actions' handlers (speeches, ballots) write `if ...: raise
    IllegalAction(...)` instead: this call builds its params even when the
    check passes."""
    if not condition:
        raise IllegalAction(rule, code, **params)
