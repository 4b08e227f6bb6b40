"""Several Janus servers: a table starts on the least-loaded one, and when
that Janus dies mid-game (SIGKILL) the table's room is made again on the
other, its clients connect to it within seconds, and the gate holds there
from the first packet."""

from __future__ import annotations

import asyncio
import time

import pytest

from omerta.media.janus import JanusPlane, JanusPool, JanusSettings
from omerta.media.janus_api import Janus
from omerta.table.views import Gate
from tests.media.janus_server import ADMIN_KEY, API_SECRET, janus
from tests.media.peers import LOOPBACK, Client

SEATS = range(1, 11)
CLIENTS = (1, 2, 3)
#: A day speech by 1: every camera to everyone, only 1's mic (G3).
DAY = Gate(
    {1: frozenset({2, 3})},
    {s: frozenset(set(CLIENTS) - {s}) for s in CLIENTS},
)
REATTACH_BUDGET = 5.0  # s from the kill to media flowing again on the other Janus


def got(client: Client, source: int, kind: str, since: float) -> list[float]:
    return [a.at for a in client.arrivals if (a.source, a.kind) == (source, kind) and a.at > since]


@pytest.mark.slow
async def test_a_table_survives_its_janus_dying_with_the_gate_holding_from_the_first_packet(
    tmp_path,
):
    with janus(tmp_path / "a") as a, janus(tmp_path / "b") as b:
        # Another table already lives on `a`: this one goes to `b`.
        other = Janus(a.url, API_SECRET)
        await other.connect()
        admin = await (await other.session()).attach()
        await admin.message({"request": "create", "room": 5, "admin_key": ADMIN_KEY})
        pool = JanusPool(JanusSettings((a.url, b.url), API_SECRET, ADMIN_KEY))
        plane = JanusPlane(SEATS, pool, LOOPBACK)
        sent: dict[tuple[int, bytes], float] = {}
        clients = {seat: Client(seat, sent) for seat in CLIENTS}
        plane.deliver(lambda seat, message: clients[seat].push(message))
        try:
            assert (await pool.load(a.url), await pool.load(b.url)) == (1, 0)
            for client in clients.values():
                await client.join(plane)
            await asyncio.wait_for(
                asyncio.gather(*(c.ready(set(CLIENTS)) for c in clients.values())), 15
            )
            assert plane.url == b.url  # the least-loaded
            plane.set_gate(DAY)
            await plane.settled()
            await asyncio.sleep(0.5)

            b.kill()
            killed = time.monotonic()
            await asyncio.sleep(0.2)
            assert plane.url == a.url
            await asyncio.wait_for(
                asyncio.gather(*(c.ready(set(CLIENTS)) for c in clients.values())), 10
            )
            await asyncio.sleep(1.0)

            # On `a`, from the first packet: only 1's mic, every camera.
            firsts = []
            for r in CLIENTS:
                for s in CLIENTS:
                    if s == r:
                        continue
                    cameras = got(clients[r], s, "video", killed)
                    assert cameras, f"no camera {s}->{r} after the failover"
                    firsts.append(cameras[0] - killed)
                    mics = got(clients[r], s, "audio", killed)
                    assert bool(mics) == (s == 1), f"mic {s}->{r}: {len(mics)} packets"
            print(f"\nmedia again {min(firsts):.2f}-{max(firsts):.2f} s after the kill")
            assert max(firsts) < REATTACH_BUDGET

            # The gate keeps changing on the new Janus: night, nothing at all.
            plane.set_gate(Gate({}, {}))
            await plane.settled()
            closed = time.monotonic()
            await asyncio.sleep(0.6)
            assert not any(
                got(clients[r], s, kind, closed + 0.05)
                for r in CLIENTS
                for s in CLIENTS
                for kind in ("audio", "video")
            )
        finally:
            for client in clients.values():
                await client.close()
            await plane.close()
            await pool.close()
            await other.close()
