"""Watching a live table (issue 19): who may watch, and the delayed
full-reveal stream for streamers.

A spectator of the live table is an ordinary connection with seat None
(fanout.py): the spectators' share of the events and their view
(`views.spectator_view`), what a red player who has left knows. The stream
is the opposite: every card, ballot, check and night choice, as
`views.reveal` and every event but the moderators' copies show them, held
back until the table's game clock has run `delay` seconds past the step.
Nothing of a step reaches a stream viewer before that: the held steps are
kept here, not in the client."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from ..table import Event, State
from ..table.views import NEVER_TOLD, reveal, told
from . import messages
from .fanout import Peer

#: Who may watch a table live.
SPECTATORS = ("anyone", "signed_in")
#: The stream's delay in game seconds: its least, its most, and the default.
MIN_DELAY, MAX_DELAY, DEFAULT_DELAY = 30, 3600, 180


@dataclass(frozen=True)
class WatchSettings:
    """A table's watch settings (stored beside the engine's, docs/api.md)."""

    spectators: str = "signed_in"
    stream: bool = False
    stream_delay: int = DEFAULT_DELAY

    @classmethod
    def parse(cls, raw: object) -> WatchSettings:
        """From a client's or the database's JSON; ValueError says what is wrong."""
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise ValueError("'watch' must be a JSON object")
        unknown = sorted(set(raw) - {"spectators", "stream", "stream_delay"})
        if unknown:
            raise ValueError(
                f"unknown watch setting {unknown[0]!r}; known: spectators, stream, stream_delay"
            )
        spectators = raw.get("spectators", cls.spectators)
        if spectators not in SPECTATORS:
            raise ValueError(f"'spectators' is one of {', '.join(SPECTATORS)}, got {spectators!r}")
        stream = raw.get("stream", cls.stream)
        if not isinstance(stream, bool):
            raise ValueError(f"'stream' is true or false, got {stream!r}")
        delay = raw.get("stream_delay", cls.stream_delay)
        if (
            isinstance(delay, bool)
            or not isinstance(delay, int)
            or not (MIN_DELAY <= delay <= MAX_DELAY)
        ):
            raise ValueError(
                f"'stream_delay' is a whole number of seconds from {MIN_DELAY} to"
                f" {MAX_DELAY}, got {delay!r}"
            )
        return cls(spectators, stream, delay)

    def to_dict(self) -> dict[str, Any]:
        return {
            "spectators": self.spectators,
            "stream": self.stream,
            "stream_delay": self.stream_delay,
        }


def stream_events(events: Iterable[Event]) -> list[str]:
    """The events a stream shows (`views.told`), as JSON."""
    return [messages.event_json(e.to_dict()) for e in told(events)]


class Broadcast:
    """One table's delayed stream. `publish` takes each step as it is sent
    to the table; `release` (called often, with the game clock) hands the
    viewers every step whose time plus the delay has come, never earlier."""

    def __init__(
        self,
        table_id: int,
        delay: float,
        now: Callable[[], float],
        state: State,
        told: list[str],
    ):
        self.table_id = table_id
        self.delay = delay
        self._now = now
        #: (game time it may be shown at, state, events as JSON), oldest first.
        #: What the table had before the stream began is held as one step:
        #: its times are not known here, so all of it waits the full delay.
        told = [text for text in told if orjson.loads(text)["event"] not in NEVER_TOLD]
        self._held: deque[tuple[float, State, list[str]]] = deque([(now() + delay, state, told)])
        self._events: list[str] = []  # released
        self._state: State | None = None  # the newest released state
        self._view = ""
        self._viewers: dict[Peer, int] = {}  # -> events it was sent

    @property
    def viewers(self) -> int:
        return len(self._viewers)

    @property
    def held(self) -> bool:
        """Steps wait for their time."""
        return bool(self._held)

    @property
    def done(self) -> bool:
        """The game's end is released: nothing more will come."""
        return not self._held and self._state is not None and self._state.over

    def publish(self, state: State, events: Iterable[Event]) -> None:
        self._held.append((self._now() + self.delay, state, stream_events(events)))

    def release(self) -> None:
        now = self._now()
        fresh = False
        while self._held and self._held[0][0] <= now:
            _, state, events = self._held.popleft()
            self._events += events
            self._state = state
            fresh = True
        if not fresh:
            return
        self._view = self._view_message()
        for peer in self._viewers:
            self._catch_up(peer)

    def join(self, peer: Peer) -> None:
        peer.send(messages.stream_hello(self.table_id, self.delay))
        self._viewers[peer] = 0
        if self._state is not None:
            self._catch_up(peer)

    def leave(self, peer: Peer) -> None:
        self._viewers.pop(peer, None)

    def close(self, code: int, reason: str) -> None:
        for peer in self._viewers:
            peer.close(code, reason)
        self._viewers.clear()

    def _catch_up(self, peer: Peer) -> None:
        sent = self._viewers[peer]
        for seq in range(sent + 1, len(self._events) + 1):
            peer.send(messages.event(seq, self._events[seq - 1]))
        self._viewers[peer] = len(self._events)
        peer.send(self._view)

    def _view_message(self) -> str:
        assert self._state is not None
        state = self._state
        return messages.view(len(self._events), state.now, None, messages.view_json(reveal(state)))
