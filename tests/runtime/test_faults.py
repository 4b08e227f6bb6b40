"""Faults between the server and Postgres (issue 12, "Fault tests"): a TCP
proxy owned by the test sits between them and, while a game is played,
swallows Postgres's replies (a commit that went through, its reply lost)
and cuts every connection. The game still ends for every seat, its record
replays to the same game, and it is rated exactly once. The shared
Postgres itself is never restarted."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from omerta.runtime.live import LiveTables
from omerta.store import Database, tables
from omerta.store.models import Game, PlayerRating

from .players import (
    Live,
    SeatClient,
    live_server,
    play,
    played,
    seat_events,
    seat_table,
    steady_play,
)


class Proxy:
    """127.0.0.1:port -> Postgres, with faults on demand."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.port = 0
        self._server: asyncio.AbstractServer | None = None
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._swallow = 0
        self.swallowed = 0
        self.cuts = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def swallow_next_reply(self) -> None:
        """The next reply Postgres sends on any connection is dropped and
        that connection cut: whatever it answered (a commit) is done, and
        the server never hears so. (One at a time: faults asked for while
        nothing was sent do not pile up.)"""
        self._swallow = 1

    def cut_all(self) -> None:
        for client, server in list(self._links):
            client.close()
            server.close()
        self.cuts += 1

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(*self.target)
        link = (client_w, server_w)
        self._links.add(link)
        try:
            await asyncio.gather(
                self._pump(client_r, server_w, link, replies=False),
                self._pump(server_r, client_w, link, replies=True),
            )
        finally:
            self._links.discard(link)
            client_w.close()
            server_w.close()

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        link: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
        replies: bool,
    ) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                if replies and self._swallow:
                    self._swallow -= 1
                    self.swallowed += 1
                    link[0].close()
                    link[1].close()
                    return
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            writer.close()

    async def close(self) -> None:
        self.cut_all()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@pytest.fixture
async def proxied(database_url: str) -> AsyncIterator[tuple[Live, Proxy, str]]:
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        pytest.skip("the proxy sits in front of Postgres (SQLite has no connection to cut)")
    proxy = Proxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.start()

    def runtime(db: Any, scale: float) -> LiveTables:
        return LiveTables(db, scale, grace=0.0)

    proxied_url = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    try:
        async with live_server(proxied_url, runtime, 50.0) as live:
            yield live, proxy, database_url
    finally:
        await proxy.close()


async def faults(proxy: Proxy, clients: list[SeatClient], every: float, rounds: int) -> None:
    """Lost replies all game long, and every connection cut now and then."""
    for n in range(rounds):
        await asyncio.sleep(every)
        if all(c.close_code is not None for c in clients):
            return
        if n % 4 == 3:
            proxy.cut_all()
        else:
            proxy.swallow_next_reply()


async def a_game_through_faults(
    live: Live, proxy: Proxy, direct_url: str, every: float, rounds: int
) -> None:
    people = await live.browsers(10)
    table_id, _ = await seat_table(people)
    clients = [SeatClient(person, table_id, steady_play) for person in people]
    for client in clients:
        await client.connect(resume=True)
    breaking = asyncio.create_task(faults(proxy, clients, every, rounds))
    await play(clients, timeout=240)
    await breaking
    assert proxy.swallowed + proxy.cuts >= 3, (proxy.swallowed, proxy.cuts)

    # Read past the proxy: a fault asked for as the game ended may still be
    # armed, and the server's pooled connections may have been cut.
    db = Database.connect(direct_url)
    try:
        async with db.begin() as s:
            lines = await tables.read_record_lines(s, table_id)
            games = await s.scalar(select(func.count()).select_from(Game))
            rated = (await s.scalars(select(PlayerRating.games))).all()
            table = await tables.get_table(s, table_id)
    finally:
        await db.close()
    # The record is whole and replays to the game everyone saw end.
    assert [r.line for r in lines] == list(range(len(lines)))
    record = [r.text for r in lines]
    assert played(record).state.over
    for client in clients:
        assert client.events[client.last]["event"] == "game_over", client.seat
        whole = seat_events(record, client.seat)
        assert all(whole[seq - 1] == event for seq, event in client.events.items())
    assert table is not None and table.status == "finished"
    assert games == 1 and sorted(rated) == [1] * 10


async def test_a_game_ends_whole_and_rated_once_through_lost_replies_and_cut_connections(proxied):
    await a_game_through_faults(*proxied, every=0.4, rounds=8)


@pytest.mark.slow
async def test_a_game_ends_whole_and_rated_once_through_faults_all_game_long(proxied):
    await a_game_through_faults(*proxied, every=0.15, rounds=400)
