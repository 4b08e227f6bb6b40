"""A table's connections and what each has been sent: every seat gets the
events its seat may see, numbered in its own stream, and its view when the
view changes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from ..table import Event, State
from . import messages
from .clock import GameClock
from .streams import Streams

#: A reconnecting client missing more events than this gets its view instead.
MAX_CATCH_UP = 1000


class Peer(Protocol):
    """One client connection, as the runtime sees it."""

    seat: int | None  # None: a spectator

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
        self._peers: dict[Peer, int] = {}  # -> the newest event number it was sent
        #: seat -> the view its connections have, as JSON (a string: nothing
        #: for the garbage collector to walk, however many tables there are)
        self._views: dict[int | None, str] = {}
        #: the seats with a connection open, as last told to everyone
        self._present: list[int] = []
        #: viewers of the table's delayed stream (spectators.py), and how
        #: many watch in all, as last told to everyone
        self.stream_viewers = 0
        self._watching = 0
        #: called with each published step (the delayed stream takes them)
        self.watchers: list[Callable[[State, list[Event]], None]] = []

    @property
    def connections(self) -> int:
        return len(self._peers)

    def join(self, peer: Peer, last: int | None, hello: bool, state: State) -> None:
        """Catch `peer` up to `state`: the events it missed if it can be
        caught up, otherwise the view alone (its seq says where the stream
        stands), and from then on everything its seat may see."""
        seat = peer.seat
        newest = self.streams.last(seat)
        if hello:
            peer.send(messages.hello(self.table_id, seat))
        if last is not None and 0 <= last <= newest and newest - last <= MAX_CATCH_UP:
            for seq, text in self.streams.since(seat, last):
                peer.send(messages.event(seq, text))
        self._peers[peer] = newest
        if not self._presence_changed():
            peer.send(messages.presence(self._present))
        if not self.watching_changed() and self._watching:
            peer.send(messages.spectators(self._watching))
        self._views[seat] = messages.views_json(state, (seat,))[seat]
        peer.send(self._view_message(seat, self._timing(state)))

    def leave(self, peer: Peer) -> None:
        self._peers.pop(peer, None)
        self._presence_changed()
        self.watching_changed()

    def watching_changed(self) -> bool:
        """Tell everyone how many watch the table (its spectators and the
        viewers of its stream), if that changed."""
        watching = self.stream_viewers + sum(1 for peer in self._peers if peer.seat is None)
        if watching == self._watching:
            return False
        self._watching = watching
        self.tell(messages.spectators(watching))
        return True

    def _presence_changed(self) -> bool:
        """Tell everyone which seats have a connection open, if that changed
        (not part of the numbered streams: it is not in the record)."""
        present = sorted({peer.seat for peer in self._peers if peer.seat is not None})
        if present == self._present:
            return False
        self._present = present
        self.tell(messages.presence(present))
        return True

    def publish(self, state: State, events: Iterable[Event]) -> None:
        """A step is written: send each connection its seat's share of
        `events`, and its view of `state` if that changed. A view after
        every step would tell a red seat that something secret just happened
        (a shot, a check, a closed ballot), and how often."""
        events = list(events)
        self.streams.add(events)
        for watcher in self.watchers:
            watcher(state, events)
        sends: dict[int | None, str | None] = {}
        timing = self._timing(state)
        for seat, fresh in messages.views_json(state, {peer.seat for peer in self._peers}).items():
            changed = fresh != self._views.get(seat)
            self._views[seat] = fresh
            sends[seat] = self._view_message(seat, timing) if changed else None
        for peer, sent in self._peers.items():
            seat = peer.seat
            for seq, text in self.streams.since(seat, sent):
                peer.send(messages.event(seq, text))
            self._peers[peer] = self.streams.last(seat)
            fresh_view = sends[seat]
            if fresh_view is not None:
                peer.send(fresh_view)

    def refresh(self, state: State) -> None:
        """Send every connection its view again: the clock stood still, so
        the time left to each deadline changed for everyone alike."""
        timing = self._timing(state)
        for peer in self._peers:
            peer.send(self._view_message(peer.seat, timing))

    def tell(self, text: str) -> None:
        """Send every connection the same message (nothing any seat's view
        depends on)."""
        for peer in self._peers:
            peer.send(text)

    def tell_seat(self, seat: int, text: str) -> None:
        """Send `seat`'s connections a message for that seat alone."""
        for peer in self._peers:
            if peer.seat == seat:
                peer.send(text)

    def close(self, code: int, reason: str) -> None:
        for peer in self._peers:
            peer.close(code, reason)
        self._peers.clear()

    def _timing(self, state: State) -> tuple[float, float | None]:
        """The game time now and the wall seconds to the next deadline: the
        same in every seat's view message of a step, so read once."""
        due = state.next_deadline
        deadline_in = (
            None
            if due is None
            else round(max(0.0, self.clock.wall(due) - self.clock.loop.time()), 3)
        )
        return self.clock.now(), deadline_in

    def _view_message(self, seat: int | None, timing: tuple[float, float | None]) -> str:
        now, deadline_in = timing
        return messages.view(self.streams.last(seat), now, deadline_in, self._views[seat])
