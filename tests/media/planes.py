"""Either media plane with real aiortc clients seated at it, for the tests
and the benchmark: the in-process SFU, or the Janus plane on a Janus
started on loopback (tests/media/janus_server.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

from omerta.media import MediaPlane, Sfu
from omerta.media.janus import JanusPlane, JanusPool, JanusSettings
from tests.media.janus_server import ADMIN_KEY, API_SECRET, janus
from tests.media.peers import LOOPBACK, Client

#: s for every client's connections (and, on Janus, subscriptions) to come up
READY = 15.0


@contextlib.asynccontextmanager
async def janus_plane(seats: Iterable[int], workdir: Path) -> AsyncIterator[JanusPlane]:
    """A Janus plane for a table of `seats`, on a Janus of its own in `workdir`."""
    with janus(workdir) as server:
        pool = JanusPool(JanusSettings((server.url,), API_SECRET, ADMIN_KEY))
        plane = JanusPlane(seats, pool, LOOPBACK)
        try:
            yield plane
        finally:
            await plane.close()
            await pool.close()


@contextlib.asynccontextmanager
async def sfu_plane(seats: Iterable[int]) -> AsyncIterator[Sfu]:
    plane = Sfu(seats, LOOPBACK)
    # aiortc's own encoder rate: the tests need a lossless loopback, and their
    # clients' receivers report no losses (their media stops at the tap)
    plane.router.max_video = 500_000
    try:
        yield plane
    finally:
        await plane.close()


async def seat(plane: MediaPlane, clients: dict[int, Client]) -> None:
    """Join every client and wait until each receives every other's media."""
    plane.deliver(lambda seat, message: clients[seat].push(message))
    for client in clients.values():
        await client.join(plane)
    everyone = set(clients)
    await asyncio.wait_for(asyncio.gather(*(c.ready(everyone) for c in clients.values())), READY)


@contextlib.asynccontextmanager
async def seated(
    kind: str, seats: Iterable[int], clients: dict[int, Client], workdir: Path
) -> AsyncIterator[MediaPlane]:
    """A plane of `kind` ("sfu" or "janus") with `clients` seated; all closed afterwards."""
    making = sfu_plane(seats) if kind == "sfu" else janus_plane(seats, workdir / "janus")
    async with making as plane:
        try:
            await seat(plane, clients)
            yield plane
        finally:
            for client in clients.values():
                if hasattr(client, "plane"):
                    await client.close()


async def applied(plane: MediaPlane) -> None:
    """Until the gate last set holds: at once in the SFU, after Janus's API
    round trips on Janus."""
    if isinstance(plane, JanusPlane):
        await plane.settled()
