"""Runtime measurements for the load benchmark (`omerta serve --debug-stats`)
and the metrics (`/metrics`, omerta/server/health.py)."""

from __future__ import annotations

import asyncio
import gc
import time
from array import array
from collections.abc import Iterable
from typing import Any

# Enough samples for a stable p99 over a benchmark run, in bounded memory.
SAMPLES = 200_000


class Samples:
    """The newest SAMPLES numbers. An array, not a deque: it holds no
    object references, so the garbage collector never walks it."""

    def __init__(self) -> None:
        self._ring = array("d", bytes(8 * SAMPLES))
        self._count = 0

    def append(self, value: float) -> None:
        self._ring[self._count % SAMPLES] = value
        self._count += 1

    def extend(self, values: Iterable[float]) -> None:
        for value in values:
            self.append(value)

    def clear(self) -> None:
        self._count = 0

    @property
    def count(self) -> int:
        """How many numbers were ever appended (since the last `clear`)."""
        return self._count

    def since(self, count: int) -> list[float]:
        """The numbers appended after the first `count` (those still kept)."""
        start = max(count, self._count - SAMPLES, 0)
        return [self._ring[n % SAMPLES] for n in range(start, self._count)]

    def values(self) -> list[float]:
        return self._ring[: min(self._count, SAMPLES)].tolist()


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


class Stats:
    def __init__(self) -> None:
        #: wall seconds between a deadline's due time and the actor firing it
        self.lateness = Samples()
        #: wall seconds from a step's start to its messages handed to the
        #: connections (its record write included)
        self.steps = Samples()
        #: wall seconds of each group commit, and the steps it carried
        self.commits = Samples()
        self.batches = Samples()
        #: how late the event loop ran a callback it was asked to run
        self.loop_lag = Samples()
        #: wall seconds of each full garbage collection (it stops the loop)
        self.full_gc = Samples()
        self._gc_started = 0.0
        #: actions the engine refused, and our own errors (each logged)
        self.refusals = 0
        self.errors = 0
        #: record writes refused because another node held the table's lease
        self.fenced = 0

    def reset(self) -> None:
        for samples in (
            self.lateness,
            self.steps,
            self.commits,
            self.batches,
            self.loop_lag,
            self.full_gc,
        ):
            samples.clear()

    def snapshot(self, tables: int) -> dict[str, Any]:
        def summary(samples: Samples) -> dict[str, Any]:
            values = samples.values()
            return {
                "count": len(values),
                "p50_ms": _ms(percentile(values, 50)),
                "p99_ms": _ms(percentile(values, 99)),
                "max_ms": _ms(max(values, default=None)),
            }

        batches = self.batches.values()
        return {
            "tables": tables,
            "cpu_seconds": time.process_time(),
            "timer_lateness": summary(self.lateness),
            "steps": summary(self.steps),
            "commits": summary(self.commits),
            "loop_lag": summary(self.loop_lag),
            "full_gc": summary(self.full_gc),
            "steps_per_commit": round(sum(batches) / len(batches), 2) if batches else None,
        }

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.full_gc.append(time.perf_counter() - self._gc_started)


async def watch_loop(stats: Stats, every: float = 0.05) -> None:
    """Sample the event loop's lag (a busy or blocked loop delays every
    timer and every message, whatever the runtime does) and time the full
    garbage collections, the usual cause of a blocked loop."""
    loop = asyncio.get_running_loop()
    gc.callbacks.append(stats.on_gc)
    try:
        while True:
            due = loop.time() + every
            await asyncio.sleep(every)
            stats.loop_lag.append(loop.time() - due)
    finally:
        gc.callbacks.remove(stats.on_gc)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)
