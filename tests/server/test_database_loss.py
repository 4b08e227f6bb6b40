"""Losing the database answers 503 with a clear error and no traceback,
and the server recovers by itself when the database comes back (issue 12,
finding 12). The test owns a TCP proxy between the server and Postgres and
cuts it; the shared Postgres server is never touched."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestServer
from sqlalchemy.engine import make_url

from omerta.server import create_app
from omerta.server.app import server_options

from .conftest import Client, FakeRuntime, make_config


class Proxy:
    """Forwards 127.0.0.1:port to Postgres until cut; restored, it listens
    on the same port again."""

    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self.port = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    async def open(self) -> None:
        self._server = await asyncio.start_server(self._link, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._links |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._links -= {writer, up_writer}

    async def cut(self) -> None:
        """Every connection dropped; new ones refused."""
        assert self._server is not None
        self._server.close()
        for link in list(self._links):
            link.transport.abort()
        self._links.clear()
        await self._server.wait_closed()

    async def close(self) -> None:
        if self._server is not None and self._server.is_serving():
            await self.cut()


@pytest.fixture
async def proxy() -> AsyncIterator[Proxy]:
    from .conftest import POSTGRES

    url = make_url(POSTGRES)
    found = Proxy(url.host or "127.0.0.1", url.port or 5432)
    await found.open()
    yield found
    await found.close()


async def test_losing_postgres_answers_503_and_the_server_recovers_when_it_returns(
    postgres_schema, proxy, caplog
):
    url = make_url(postgres_schema).set(host="127.0.0.1", port=proxy.port)
    config = make_config(url.render_as_string(hide_password=False), FakeRuntime())
    server = TestServer(create_app(config))
    await server.start_server(**server_options(config))
    client = Client(server)
    try:
        assert (await client.get("/api/tables")).status == 200
        await proxy.cut()
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            for path in ("/api/tables", "/api/tables/1", "/api/leaderboard", "/api/players/bob"):
                down = await client.get(path)
                assert down.status == 503, (path, down.body)
                assert down.body == {"error": "the database is unavailable; try again shortly"}
                assert int(down.response.headers["Retry-After"]) > 0
            refused = await client.post(
                "/api/register", {"username": "alice", "password": "correct horse"}
            )
            assert refused.status == 503
        assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
        await proxy.open()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30  # generous: a loaded machine
        while True:  # a pooled connection may still be the dead one once
            back = await client.get("/api/tables")
            if back.status == 200 or loop.time() > deadline:
                break
            assert back.status == 503, back.body
            await asyncio.sleep(0.2)
        assert back.status == 200, back.body
        # the schema is this run's, shared with other tests: a name of its own
        back = await client.post(
            "/api/register",
            {"username": f"back_{secrets.token_hex(4)}", "password": "correct horse"},
        )
        assert back.status == 201, back.body
    finally:
        await client.session.close()
        await server.close()
