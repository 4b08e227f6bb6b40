"""A table's connections and what each has been sent: every seat gets the
events its seat may see, numbered in its own stream, and its view when the
view changes."""
from __future__ import annotations

from typing import Iterable, Protocol

from ..table import Event, State
from ..table.views import view, views
from . import wire
from .clock import GameClock
from .streams import Streams

#: A reconnecting client missing more events than this gets its view instead.
MAX_CATCH_UP = 1000


class Peer(Protocol):
    """One client connection, as the runtime sees it."""

    seat: int | None   # None: a spectator

    def send(self, text: str) -> None:
        """Queue a message; never blocks (a connection that cannot keep up
        is dropped, and its client reconnects and catches up)."""

    def close(self, code: int, reason: str) -> None:
        """Close once every queued message is sent."""


class Fanout:
    def __init__(self, table_id: int, streams: Streams, clock: GameClock):
        self.table_id = table_id
        self.streams = streams
        self.clock = clock
        self._peers: dict[Peer, int] = {}          # -> the newest event number it was sent
        #: seat -> the view its connections have, as JSON (a string: nothing
        #: for the garbage collector to walk, however many tables there are)
        self._views: dict[int | None, str] = {}

    def join(self, peer: Peer, last: int | None, hello: bool, state: State) -> None:
        """Catch `peer` up to `state`: the events it missed if it can be
        caught up, otherwise the view alone (its seq says where the stream
        stands), and from then on everything its seat may see."""
        seat = peer.seat
        newest = self.streams.last(seat)
        if hello:
            peer.send(wire.hello(self.table_id, seat))
        if last is not None and 0 <= last <= newest and newest - last <= MAX_CATCH_UP:
            for seq, text in self.streams.since(seat, last):
                peer.send(wire.event(seq, text))
        self._peers[peer] = newest
        self._views[seat] = wire.view_json(view(state, seat))
        peer.send(self._view_message(seat, state))

    def leave(self, peer: Peer) -> None:
        self._peers.pop(peer, None)

    def publish(self, state: State, events: Iterable[Event]) -> None:
        """A step is written: send each connection its seat's share of
        `events`, and its view of `state` if that changed. A view after
        every step would tell a red seat that something secret just happened
        (a shot, a check, a closed ballot), and how often."""
        self.streams.add(events)
        messages: dict[int | None, str | None] = {}
        for seat, seat_view in views(state, {peer.seat for peer in self._peers}).items():
            fresh = wire.view_json(seat_view)
            changed = fresh != self._views.get(seat)
            self._views[seat] = fresh
            messages[seat] = self._view_message(seat, state) if changed else None
        for peer, sent in self._peers.items():
            seat = peer.seat
            for seq, text in self.streams.since(seat, sent):
                peer.send(wire.event(seq, text))
            self._peers[peer] = self.streams.last(seat)
            if messages[seat] is not None:
                peer.send(messages[seat])

    def close(self, code: int, reason: str) -> None:
        for peer in self._peers:
            peer.close(code, reason)
        self._peers.clear()

    def _view_message(self, seat: int | None, state: State) -> str:
        due = state.next_deadline
        loop = self.clock.loop
        deadline_in = None if due is None else round(max(0.0, self.clock.wall(due) - loop.time()), 3)
        return wire.view(self.streams.last(seat), self.clock.now(), deadline_in, self._views[seat])
