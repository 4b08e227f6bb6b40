"""Keeping a node's sockets alive (docs/api.md, "Reconnecting"): one sweep
over all of them, twice a second, instead of aiohttp's heartbeat, which
keeps a timer, a ping task and a pong timer per socket and was most of a
busy node's CPU and loop stalls at 10,000 sockets (bench/SERVER_RESULTS.md).

A socket counts as alive while frames come from it (any frame: a message,
a ping, a pong). One silent for PING_AFTER seconds gets one WebSocket ping;
one still silent DROP_AFTER seconds after its last frame, a ping unanswered,
is cut, and its table tells the others at once. With a sweep every
SWEEP_EVERY seconds a dead connection is cut at most DROP_AFTER +
SWEEP_EVERY = 4 s after the last frame it sent (issue 14), and a ping has
at least SWEEP_EVERY seconds to be answered."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

#: Seconds of silence after which a socket is pinged. The web client sends
#: its own ping every 2 s, so it is seldom pinged; bots that only answer are.
PING_AFTER = 2.5
#: Seconds of silence, a ping unanswered, after which a socket is cut.
DROP_AFTER = 3.5
SWEEP_EVERY = 0.5

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


class Keepalive:
    """The sockets of one node and their sweep. `clock` is the event loop's
    (`loop.time`), the one the sockets stamp `heard` with."""

    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self._sockets: set[Alive] = set()
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._sockets)

    def watch(self, socket: Alive) -> None:
        socket.heard = self.clock()
        socket.pinged = 0.0
        self._sockets.add(socket)

    def forget(self, socket: Alive) -> None:
        self._sockets.discard(socket)

    def sweep(self) -> None:
        """Ping the sockets silent for PING_AFTER, cut those still silent at
        DROP_AFTER after a ping. A plain loop over the set: some 1 ms for
        10,000 sockets, nearly all of them heard from recently."""
        now = self.clock()
        ping_before, drop_before = now - PING_AFTER, now - DROP_AFTER
        dead = []
        for socket in self._sockets:
            heard = socket.heard
            if heard > ping_before:
                continue
            if socket.pinged < heard:  # not pinged since it was last heard
                socket.pinged = now
                socket.ping()
            elif heard <= drop_before:
                dead.append(socket)
        for socket in dead:  # cutting one may end its socket loop, which forgets it
            self._sockets.discard(socket)
            socket.drop()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = loop.call_later(SWEEP_EVERY, self._tick, loop)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        self.start(loop)  # first: a failing sweep must not end the sweeps
        try:
            self.sweep()
        except Exception:
            log.exception("the keep-alive sweep failed; it runs again in %g s", SWEEP_EVERY)
