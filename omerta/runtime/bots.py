"""Server-side bots: they play random legal moves (omerta.bots.choose)
through the table's queue like any player, and their moves are recorded
like any other.

Each bot thinks a short random while (in game time) after the table last
changed, so people at the table see a natural pace; then it chooses from
the state as it is at that moment. Each bot's randomness comes from the
table's seed and its seat, so a table's bots are reproducible."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterable

from ..bots import choose
from ..table import Action, State
from ..table.legal import legal_actions
from .clock import GameClock

#: How long a bot thinks before it acts, in game seconds. Under the
#: shortest windows (5 s per candidate in an open vote, 7 s night windows).
THINK = (1.0, 4.0)


class Bots:
    def __init__(self, seats: Iterable[int], seed: int | str):
        self._rngs = {seat: random.Random(f"{seed}/bot/{seat}") for seat in sorted(seats)}
        self._waking: dict[int, asyncio.TimerHandle] = {}

    def schedule(self, state: State, clock: GameClock, wake: Callable[[int], None]) -> None:
        """After a step: every bot that has something to do and is not
        already thinking starts thinking. Technical calls do not wake a bot:
        bots never call one."""
        for seat, rng in self._rngs.items():
            if seat in self._waking or not legal_actions(state, seat, tech_calls=False):
                continue
            at = clock.wall(clock.now() + rng.uniform(*THINK))
            self._waking[seat] = clock.loop.call_at(at, wake, seat)

    def choose(self, state: State, seat: int) -> Action | None:
        """The bot at `seat` has finished thinking: its move now, if any.
        Never a technical call: bots leave those to people."""
        self._waking.pop(seat, None)
        return choose(state, seat, self._rngs[seat], tech_calls=False)

    def cancel(self) -> None:
        for handle in self._waking.values():
            handle.cancel()
        self._waking.clear()
