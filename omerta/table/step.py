"""The working context of one engine step: the state being changed (a
clone of the caller's), the step's time, and the events it produced."""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import IllegalAction
from .events import Event
from .state import State


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


def require(condition: bool, rule: str, message: str) -> None:
    if not condition:
        raise IllegalAction(rule, message)
