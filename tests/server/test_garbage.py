"""The server's collector policy (omerta/server/garbage.py): the young
generations are collected on the clock, whatever the allocation count says."""

from __future__ import annotations

import asyncio

from omerta.server.garbage import MIDDLE_EVERY, YOUNG_EVERY, Collector


async def test_the_young_generations_are_collected_on_the_clock_the_middle_one_every_few():
    collected: list[int] = []
    collector = Collector(collected.append)
    collector.start(asyncio.get_running_loop())
    try:
        # At least 2 * MIDDLE_EVERY ticks, however slowly a loaded machine runs them.
        for _ in range(1000):
            if len(collected) >= 2 * MIDDLE_EVERY:
                break
            await asyncio.sleep(YOUNG_EVERY)
    finally:
        collector.stop()
    assert len(collected) >= 2 * MIDDLE_EVERY
    assert collected[:MIDDLE_EVERY] == [0] * (MIDDLE_EVERY - 1) + [1]
    ticks = len(collected)
    await asyncio.sleep(3 * YOUNG_EVERY)
    assert len(collected) == ticks  # stopped
