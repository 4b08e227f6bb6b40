"""A media plane's signal that no message asked for (Janus: a subscription
offer when another seat publishes, a new connection after a failover)
reaches that seat's table sockets only, through the live runtime."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from omerta.media import MediaPlane, Signal
from omerta.runtime.live import LiveTables
from omerta.table.views import Gate
from tests.runtime.players import Live, live_server, seat_table
from tests.server.conftest import FAST_HASHER, database_url, postgres_schema, sqlite_template  # noqa: F401

# What is tested is the runtime's delivery, the same on either database.
pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


class Pushing(MediaPlane):
    """On each attach, tells every other seat that this one published."""

    def __init__(self, seats: int):
        self.seats = range(1, seats + 1)
        self.send: Callable[[int, Signal], None] | None = None

    def deliver(self, send: Callable[[int, Signal], None]) -> None:
        self.send = send

    async def attach(self, seat: int) -> Signal:
        assert self.send is not None
        for other in self.seats:
            if other != seat:
                self.send(other, {"op": "description", "pc": "subscribe-1", "new": seat})
        return {"op": "offer-request", "pc": "publish-1"}

    async def answer(self, seat: int, message: Signal) -> None:
        return None

    async def add_candidate(self, seat: int, message: Signal) -> None:
        return None

    async def detach(self, seat: int) -> None:
        return None

    def set_gate(self, gate: Gate) -> None:
        return None

    async def close(self) -> None:
        return None


@pytest.fixture
async def live(database_url: str) -> AsyncIterator[Live]:
    def runtime(db: Any, scale: float) -> LiveTables:
        return LiveTables(db, scale, grace=0.0, media=lambda table_id, seats: Pushing(seats))

    async with live_server(database_url, runtime, 1.0) as live:
        yield live


async def media(ws) -> dict:
    while True:
        message = await ws.receive_json(timeout=5)
        if message["type"] == "media":
            return message


async def test_a_planes_unasked_signal_reaches_only_its_seat(live):
    alice, bob, carol = await live.browsers(3)
    table_id, seats = await seat_table([alice, bob, carol], bots=True)
    sockets = {p.username: await p.socket(table_id, last=0) for p in (alice, bob, carol)}
    await sockets["player0"].send_json({"type": "media", "op": "attach"})
    assert (await media(sockets["player0"]))["op"] == "offer-request"
    for name in ("player1", "player2"):
        pushed = await media(sockets[name])
        assert pushed == {
            "type": "media",
            "op": "description",
            "pc": "subscribe-1",
            "new": seats["player0"],
        }
    # ...and nobody else's: the next one player0 gets is about player2.
    await sockets["player2"].send_json({"type": "media", "op": "attach"})
    assert (await media(sockets["player0"]))["new"] == seats["player2"]
