"""Sliding-window rate limits, in memory (one server process)."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .wire import ApiError

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


def check(limiter: RateLimiter, key: str, what: str) -> None:
    """Count one attempt for `key`; over the limit, a 429 that says how many
    `what` the limit allows and when to try again (also as Retry-After)."""
    wait = limiter.hit(key)
    if wait is not None:
        seconds = max(1, math.ceil(wait))
        limit = limiter.limit
        raise ApiError(
            429,
            f"too many {what}: at most {limit.attempts} in {limit.seconds:g} s;"
            f" try again in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )


class Occupancy:
    """How many of something each key holds at once (open sockets per
    account, per address), with a ceiling."""

    def __init__(self, ceiling: int):
        self.ceiling = ceiling
        self._held: dict[str, int] = {}

    def take(self, key: str) -> bool:
        """Take one for `key`, unless it holds `ceiling` already."""
        held = self._held.get(key, 0)
        if held >= self.ceiling:
            return False
        self._held[key] = held + 1
        return True

    def give_back(self, key: str) -> None:
        held = self._held.get(key, 0) - 1
        if held > 0:
            self._held[key] = held
        else:
            self._held.pop(key, None)
