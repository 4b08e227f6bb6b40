"""Game time for one live table, from the event loop's monotonic clock.

Game time is what the engine and the record count in: seconds since the
game started, to the millisecond. It runs `scale` times faster than wall
time (`--time-scale`, development and tests only). After a restart it
resumes from the record's last time once a grace period has passed, and
stands still during the grace, so clients can reconnect before any clock
moves on. It also stands still while the table's record cannot be written
(`stopped`), and runs on from where it stopped once it can."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GameClock:
    loop: asyncio.AbstractEventLoop
    scale: float
    #: loop time at which game time would be 0
    origin: float
    #: game time never reads earlier than this (the last recorded time)
    floor: float = 0.0
    #: standing still at `floor` until replaced
    frozen: bool = False

    @classmethod
    def starting(
        cls, loop: asyncio.AbstractEventLoop, scale: float, at: float = 0.0, grace: float = 0.0
    ) -> GameClock:
        """A clock that reads `at` now and keeps reading it for `grace` wall
        seconds, then runs on."""
        return cls(loop, scale, loop.time() + grace - at / scale, at)

    def stopped(self) -> GameClock:
        """This clock standing still at the time it reads now."""
        return GameClock(self.loop, self.scale, self.origin, self.now(), frozen=True)

    def now(self) -> float:
        """The current game time, in whole milliseconds."""
        if self.frozen:
            return self.floor
        return max(self.floor, round((self.loop.time() - self.origin) * self.scale, 3))

    def wall(self, game_t: float) -> float:
        """The loop time at which game time reaches `game_t` (for a stopped
        clock: if it ran on from now)."""
        if self.frozen:
            return self.loop.time() + (game_t - self.floor) / self.scale
        return self.origin + game_t / self.scale
