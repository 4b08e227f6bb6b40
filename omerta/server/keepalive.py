"""Keeping a node's sockets alive (docs/api.md, "Reconnecting"): one sweep
over all of them instead of aiohttp's heartbeat, which keeps a timer, a
ping task and a pong timer per socket and was most of a busy node's CPU and
loop stalls at 10,000 sockets (bench/SERVER_RESULTS.md).

A socket counts as alive while frames come from it (any frame: a message,
a ping, a pong). One silent for PING_AFTER seconds gets one WebSocket ping;
one still silent DROP_AFTER seconds after its last frame, its ping
unanswered for ANSWER_WITHIN, is cut, and its table tells the others at
once. Each socket is looked at every LOOK_EVERY seconds, so a dead
connection is cut at most DROP_AFTER + LOOK_EVERY = 4 s after the last
frame it sent (issue 14); its ping was sent at most PING_AFTER + LOOK_EVERY
after it, so it had ANSWER_WITHIN = 1 s to be answered anyway. That second
matters after the loop stood still: every socket is then pinged at once
and must not be cut a look later. The sockets are looked at in SLICES
slices, one every LOOK_EVERY / SLICES seconds: a ping is a system call, and
pinging thousands in one go would stall the loop (and bring their pongs
back all at once)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

#: Seconds of silence after which a socket is pinged. The web client sends
#: its own ping every 2 s, so it is seldom pinged; bots that only answer are.
PING_AFTER = 2.5
#: Seconds of silence, a ping unanswered, after which a socket is cut.
DROP_AFTER = 3.75
LOOK_EVERY = 0.25
#: Seconds a ping has to be answered (a slow network's, a busy client's).
ANSWER_WITHIN = DROP_AFTER - PING_AFTER - LOOK_EVERY
SLICES = 10

log = logging.getLogger(__name__)


class Alive(Protocol):
    #: clock time of the last frame received from it
    heard: float
    #: clock time of the last ping sent to it (0: none)
    pinged: float

    def ping(self) -> None:
        """Send a WebSocket ping frame; never blocks."""

    def drop(self) -> None:
        """Cut the connection at once (its socket loop then ends, and the
        socket leaves its table)."""

    def unread(self) -> bool:
        """Whether bytes from it wait in the kernel, not read yet."""


class Keepalive:
    """The sockets of one node and their sweep. `clock` is the event loop's
    (`loop.time`), the one the sockets stamp `heard` with."""

    def __init__(
        self,
        clock: Callable[[], float],
        soon: Callable[[Callable[[], None]], object] = lambda call: call(),
    ):
        self.clock = clock
        #: `loop.call_soon` (tests: at once): see `_cut`
        self._soon = soon
        self._slices: list[set[Alive]] = [set() for _ in range(SLICES)]
        self._next_slice = 0
        self._placed = 0
        self._timer: asyncio.TimerHandle | None = None
        #: since start-up, for --debug-stats
        self.pings = 0
        self.cuts = 0

    def __len__(self) -> int:
        return sum(len(part) for part in self._slices)

    def watch(self, socket: Alive) -> None:
        socket.heard = self.clock()
        socket.pinged = 0.0
        self._slices[self._placed % SLICES].add(socket)
        self._placed += 1

    def forget(self, socket: Alive) -> None:
        for part in self._slices:
            part.discard(socket)

    def sweep(self) -> None:
        """Look at the next slice: ping the sockets silent for PING_AFTER,
        cut those still silent at DROP_AFTER whose ping is ANSWER_WITHIN old."""
        part = self._slices[self._next_slice]
        self._next_slice = (self._next_slice + 1) % SLICES
        now = self.clock()
        ping_before, drop_before = now - PING_AFTER, now - DROP_AFTER
        answer_before = now - ANSWER_WITHIN
        dead = []
        for socket in part:
            heard = socket.heard
            if heard > ping_before:
                continue
            if socket.pinged < heard:  # not pinged since it was last heard
                socket.pinged = now
                self.pings += 1
                socket.ping()
            elif heard <= drop_before and socket.pinged <= answer_before:
                dead.append(socket)
        if dead:
            self._soon(lambda: self._cut(part, dead))

    def _cut(self, part: set[Alive], dead: list[Alive]) -> None:
        """Cut the sockets a look found silent, unless they were heard since
        or something from them waits unread. A look runs in the loop's turn
        that read what arrived during a stall, before the sockets' tasks
        stamp it (their turn is the next one), and a busy loop may not have
        read a pong the kernel holds: either would cut a socket that
        answered."""
        drop_before = self.clock() - DROP_AFTER
        for socket in dead:
            if socket.heard > drop_before or socket.unread():
                continue
            part.discard(socket)  # dropping may end its socket loop, which forgets it
            self.cuts += 1
            socket.drop()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = loop.call_later(LOOK_EVERY / SLICES, self._tick, loop)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        self.start(loop)  # first: a failing sweep must not end the sweeps
        try:
            self.sweep()
        except Exception:
            log.exception("the keep-alive sweep failed; it goes on")
