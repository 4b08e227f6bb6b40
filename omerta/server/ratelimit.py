"""Sliding-window rate limits, in memory (one server process)."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

# Past this many keys, a hit also forgets keys whose window has passed, so
# a flood of distinct names or addresses cannot grow memory without bound.
PRUNE_ABOVE = 10_000


@dataclass(frozen=True)
class Limit:
    attempts: int
    seconds: float


class RateLimiter:
    def __init__(self, limit: Limit, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}

    def hit(self, key: str) -> float | None:
        """Count one attempt for `key`. Returns None if it is allowed, else
        the seconds until the next one will be (the attempt is not counted)."""
        now = self.clock()
        if len(self._hits) > PRUNE_ABOVE:
            self._prune(now)
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.limit.seconds:
            hits.popleft()
        if len(hits) >= self.limit.attempts:
            return hits[0] + self.limit.seconds - now
        hits.append(now)
        return None

    def reset(self, key: str) -> None:
        self._hits.pop(key, None)

    def _prune(self, now: float) -> None:
        cutoff = now - self.limit.seconds
        for key in [k for k, hits in self._hits.items() if not hits or hits[-1] <= cutoff]:
            del self._hits[key]
