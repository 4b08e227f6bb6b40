"""The server's one garbage-collector policy (bench/SERVER_RESULTS.md).

A collection stops the event loop, every table's timers and messages with
it, for as long as it walks its objects, about a microsecond each on a busy
node. So:

- What start-up made (modules, the resumed tables) is frozen out of every
  later collection, after one collection so that no garbage is frozen with it.
- The young generations are collected on a clock, not only by count. Python
  collects the youngest generation when allocations outrun deallocations by
  a threshold, and every deallocation counts, an old object's too. On a node
  with 10,000 sockets each message replaces the futures and coroutines its
  socket waits on: about as many old objects die as new ones are made, the
  count hardly moves, and the young generation grew to 100,000 objects
  between two collections, each then stalling the loop for 60–100 ms. A
  collection every YOUNG_EVERY seconds walks only what was made since (a few
  milliseconds' worth, still in the cache); every MIDDLE_EVERY-th takes the
  middle generation too, so what lives longer moves on to the old one.
- Full passes, which walk every live object (some 100 per open socket: a
  second or two at 10,000 sockets), stay rare: FULL_AFTER middle collections
  between two, and Python's own rule (a quarter of the old generation new
  since the last) on top. Nearly all garbage dies young.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable

#: Seconds between two timed collections of the youngest generation.
YOUNG_EVERY = 0.1
#: Every this many timed collections, the middle generation is collected too.
MIDDLE_EVERY = 2
#: Net new objects after which Python collects the youngest generation
#: anyway (its default is 700): a burst of allocations between two ticks.
YOUNG_AFTER = 10_000
#: Collections of the middle generation between two full ones (Python: 10);
#: with the clock's five a second, at most one full pass in half an hour.
FULL_AFTER = 10_000


def settle() -> None:
    """Once start-up is over: freeze what it made, set the thresholds."""
    gc.collect()
    gc.freeze()
    _, middle, _ = gc.get_threshold()
    gc.set_threshold(YOUNG_AFTER, middle, FULL_AFTER)


class Collector:
    """Collects the young generations on the loop's clock until `stop`
    (`collect`: `gc.collect`, a fake in tests)."""

    def __init__(self, collect: Callable[[int], object] = gc.collect) -> None:
        self._collect = collect
        self._timer: asyncio.TimerHandle | None = None
        self._ticks = 0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = loop.call_later(YOUNG_EVERY, self._tick, loop)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = loop.call_later(YOUNG_EVERY, self._tick, loop)
        self._ticks += 1
        self._collect(1 if self._ticks % MIDDLE_EVERY == 0 else 0)
