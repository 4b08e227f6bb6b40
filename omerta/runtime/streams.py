"""Per-seat event streams, numbered per seat.

Each seat (and the spectators, as seat None) has its own log of the events
it may see, numbered 1, 2, 3... within that log. A single counter shared by
all seats would leak: the gaps in a seat's numbers would tell it that
something private happened to someone else. Events are deterministic, so
replaying the record rebuilds the same logs with the same numbers."""

from __future__ import annotations

from array import array
from collections.abc import Iterable

from ..table import Event
from .messages import event_json

#: Stream key of spectators: they see only `everyone` events.
SPECTATORS = None


class Streams:
    """The table's events as JSON, once each, and per seat the positions of
    the ones it may see (arrays of numbers: the garbage collector does not
    walk them, which keeps its pauses short on a busy server)."""

    def __init__(self, seats: Iterable[int]):
        self._events: list[str] = []
        self._logs: dict[int | None, array[int]] = {seat: array("I") for seat in seats}
        self._logs[SPECTATORS] = array("I")

    def add(self, events: Iterable[Event]) -> None:
        """Append each event, as JSON, to the log of every seat it is for."""
        for event in events:
            self._events.append(event_json(event.to_dict()))
            at = len(self._events) - 1
            for seat, log in self._logs.items():
                if event.audience.includes(seat):
                    log.append(at)

    def last(self, seat: int | None) -> int:
        """The number of the newest event in `seat`'s stream (0: none yet)."""
        return len(self._logs[seat])

    def told(self) -> list[str]:
        """Every event of the table so far, in order, the record's own
        included: the delayed stream's history (spectators.py), which
        reveals what its live part does (`views.told`)."""
        return list(self._events)

    def since(self, seat: int | None, last: int) -> list[tuple[int, str]]:
        """`seat`'s events numbered after `last`, as (number, event JSON)."""
        log = self._logs[seat]
        return [(n, self._events[log[n - 1]]) for n in range(last + 1, len(log) + 1)]
