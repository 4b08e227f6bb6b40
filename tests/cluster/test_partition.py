"""A node cut off from Postgres (issue 17): a TCP proxy the test owns sits
between node A and the database and, mid-game, holds every byte A sends
(a partition: nothing fails, nothing arrives). A stops its table once it
could not renew its lease for two lease periods; node B adopts the table and
the game goes on there; when the partition heals, what A had sent (a record
write) reaches Postgres late and is fenced off: the record stays exactly
what the players saw, and the table is never abandoned."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from sqlalchemy.engine import make_url

from omerta.runtime.live import LiveTables
from omerta.server import TABLES, Config, create_app
from omerta.server.limits import UNLIMITED
from omerta.store import Database, tables
from tests.server.conftest import FAST_HASHER

from ..runtime.players import Browser, SeatClient, register, seat_events, seat_table, steady_play
from ..runtime.test_faults import Proxy
from ..runtime.test_restart import until
from .nodes import SECRET, TIME_SCALE, adopted, owner, reconnect

pytestmark = pytest.mark.slow


class Partition(Proxy):
    """The fault proxy, which can also hold every byte a node sends until
    healed (Postgres's replies to what it had already sent still arrive:
    so the node's next record write is one that Postgres gets late)."""

    def __init__(self, host: str, port: int):
        super().__init__(host, port)
        self.open = asyncio.Event()
        self.open.set()

    async def _pump(self, reader, writer, link, replies) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                if not replies:
                    await self.open.wait()
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            writer.close()


async def _node(database_url: str, name: str) -> TestServer:
    def runtime(db: Any, scale: float) -> LiveTables:
        return LiveTables(db, scale, grace=0.5, node=name)

    config = Config(
        database_url=database_url,
        runtime=runtime,
        time_scale=TIME_SCALE,
        password_hasher=FAST_HASHER,
        limits=UNLIMITED,
        cluster_secret=SECRET,
    )
    server = TestServer(create_app(config))
    await server.start_server()
    server.app[TABLES].ownership.url = str(server.make_url("/"))  # type: ignore[attr-defined]
    return server


@pytest.fixture
async def partition(request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, Partition]]:
    url: str = request.getfixturevalue("postgres_url")
    parsed = make_url(url)
    proxy = Partition(parsed.host or "127.0.0.1", parsed.port or 5432)
    await proxy.start()
    try:
        yield url, proxy
    finally:
        proxy.open.set()
        await proxy.close()


async def _record(database_url: str, table_id: int) -> list[str]:
    db = Database.connect(database_url)
    try:
        async with db.begin() as s:
            return await tables.read_record(s, table_id)
    finally:
        await db.close()


async def test_a_node_cut_off_from_postgres_loses_its_table_and_its_late_write_is_fenced(
    partition,
):
    url, proxy = partition
    through = make_url(url).set(host="127.0.0.1", port=proxy.port)
    a = await _node(through.render_as_string(hide_password=False), "a")
    person = Browser(a.make_url("/"))
    b: TestServer | None = None
    try:
        await register([person])
        table_id, _ = await seat_table([person], bots=True)
        assert await owner(url, table_id) == "a"
        b = await _node(url, "b")
        client = SeatClient(person, table_id, steady_play)
        await reconnect(client, b.make_url("/"))  # forwarded to a
        running = asyncio.create_task(client.run())
        await until(lambda: client.last >= 10, 30)

        proxy.open.clear()  # Postgres hears nothing from a
        cut = time.monotonic()
        holder = await adopted(url, table_id, "a", timeout=15)
        assert holder == "b" and time.monotonic() - cut < 8
        await asyncio.wait_for(running, 15)  # a stopped the table: its socket closed
        await reconnect(client, b.make_url("/"))
        running = asyncio.create_task(client.run())
        seen = client.last
        await until(lambda: client.last >= seen + 10 or running.done(), 30)

        proxy.open.set()  # a's held write reaches Postgres now, too late
        await until(lambda: a.app[TABLES].stats.fenced > 0, 15)
        await until(lambda: client.last >= seen + 15 or running.done(), 30)
        record = await _record(url, table_id)
        whole = seat_events(record, client.seat)
        assert list(client.events.values()) == whole[: client.last]
        async with a.app[TABLES].db.begin() as s:
            table = await tables.get_table(s, table_id)
        assert table is not None and table.status in ("playing", "finished")
        assert a.app[TABLES].table(table_id) is None
        assert a.app[TABLES].stats.fenced >= 1  # not a line written
        running.cancel()
    finally:
        proxy.open.set()  # a's writes end, so a can stop
        await person.close()
        if b is not None:
            await b.close()
        await a.close()
