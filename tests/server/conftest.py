"""Fixtures: a migrated database (SQLite and real Postgres), a running
server on it with a fake table runtime, and signed-in HTTP clients.

Postgres: $OMERTA_TEST_POSTGRES, by default the CI server's database
`test` at 127.0.0.1:5432 (trust auth). Each run works in a schema of its
own, dropped afterwards, so runs never see each other's rows. When that server
is unreachable the Postgres variants skip, unless CI=true: then they fail."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import asyncpg
import pytest
from aiohttp.test_utils import TestServer
from argon2 import PasswordHasher
from sqlalchemy.engine import make_url

from omerta.server import DB, Config, create_app
from omerta.server.app import server_options
from omerta.server.limits import UNLIMITED
from omerta.store import Database, upgrade
from omerta.store.models import Base

POSTGRES = os.environ.get(
    "OMERTA_TEST_POSTGRES", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
HOW_TO_RUN = (
    "run a Postgres server at 127.0.0.1:5432 with a database `test` that user"
    " `postgres` may use without a password (or point OMERTA_TEST_POSTGRES at one)"
)
# argon2id still, but cheap: the suite hashes hundreds of passwords.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
PASSWORD = "correct horse"
T = TypeVar("T")


def in_thread(make_coro: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from a synchronous fixture, on a loop
    of its own in another thread, away from the tests' event loops."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, make_coro()).result()


async def _postgres_admin() -> asyncpg.Connection:
    dsn = make_url(POSTGRES).set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        return await asyncpg.connect(dsn, timeout=3)
    except (OSError, asyncpg.PostgresError, TimeoutError) as e:
        message = f"Postgres at {POSTGRES} is not reachable ({e}); to run these tests, {HOW_TO_RUN}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


async def _admin(sql: str) -> None:
    admin = await _postgres_admin()
    try:
        await admin.execute(sql)
    finally:
        await admin.close()


def _sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture(params=["sqlite", "postgres"])
async def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of an empty database of each kind."""
    if request.param == "sqlite":
        yield _sqlite_url(tmp_path / "omerta.db")
        return
    schema = f"omerta_test_{secrets.token_hex(6)}"
    await _admin(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{POSTGRES}?search_path={schema}"
    finally:
        await _admin(f'DROP SCHEMA "{schema}" CASCADE')


# Migrating takes a good part of a second; the server tests start from a
# database migrated once per run and emptied (Postgres) or copied (SQLite).


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "omerta.db"
    in_thread(lambda: upgrade(_sqlite_url(path)))
    return path


@pytest.fixture(scope="session")
def postgres_schema() -> Iterator[str]:
    """This run's own migrated schema."""
    schema = f"omerta_test_{secrets.token_hex(6)}"
    in_thread(lambda: _admin(f'CREATE SCHEMA "{schema}"'))
    try:
        url = f"{POSTGRES}?search_path={schema}"
        in_thread(lambda: upgrade(url))
        yield url
    finally:
        in_thread(lambda: _admin(f'DROP SCHEMA "{schema}" CASCADE'))


#: For the longest live tests: SQLite in the README's test command, Postgres
#: with the slow suites, which CI runs too; the command stays under 8 minutes.
POSTGRES_WITH_THE_SLOW = pytest.mark.parametrize(
    "database_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.slow)], indirect=True
)


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a migrated database of each kind, with no rows."""
    if request.param == "sqlite":
        shutil.copy(request.getfixturevalue("sqlite_template"), tmp_path / "omerta.db")
        return _sqlite_url(tmp_path / "omerta.db")
    url = request.getfixturevalue("postgres_schema")
    schema = make_url(url).query["search_path"]
    names = ", ".join(f'"{schema}"."{name}"' for name in Base.metadata.tables)
    in_thread(lambda: _admin(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    return url


class FakeRuntime:
    """Records what the lobby asks of the table runtime."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.resumed = 0
        self.stopped = 0
        self.fail_start = False

    async def start(self, table_id: int) -> None:
        self.started.append(table_id)
        if self.fail_start:
            raise RuntimeError("the runtime broke")

    async def resume_all(self) -> None:
        self.resumed += 1

    async def shutdown(self) -> None:
        self.stopped += 1

    def table(self, table_id: int) -> None:
        return None

    def snapshot(self, reset: bool = False) -> dict[str, Any]:
        return {}


@dataclass
class Reply:
    status: int
    body: Any
    response: aiohttp.ClientResponse


class Client:
    """One browser: its own cookies, and the CSRF header sent like a web
    page would send it (the value of the csrf cookie)."""

    def __init__(self, server: TestServer):
        self.server = server
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    def cookie(self, name: str) -> str | None:
        found = self.session.cookie_jar.filter_cookies(self.server.make_url("/")).get(name)
        return found.value if found else None

    async def request(
        self,
        method: str,
        path: str,
        json: Any = None,
        *,
        data: bytes | None = None,
        csrf: bool = True,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        headers = dict(headers or {})
        if csrf and method not in ("GET", "HEAD", "OPTIONS"):
            if self.cookie("omerta_csrf") is None:
                await self.request("GET", "/api/csrf")
            headers["X-CSRF-Token"] = self.cookie("omerta_csrf") or ""
        async with self.session.request(
            method, self.server.make_url(path), json=json, data=data, headers=headers
        ) as response:
            body = (
                await response.json()
                if response.content_type == "application/json"
                else await response.text()
            )
            return Reply(response.status, body, response)

    async def get(self, path: str, **kw: Any) -> Reply:
        return await self.request("GET", path, **kw)

    async def post(self, path: str, json: Any = None, **kw: Any) -> Reply:
        return await self.request("POST", path, json, **kw)

    async def register(self, username: str, password: str = PASSWORD) -> Reply:
        reply = await self.post("/api/register", {"username": username, "password": password})
        assert reply.status == 201, reply.body
        return reply


@dataclass
class Harness:
    server: TestServer
    runtime: FakeRuntime
    clients: list[Client] = field(default_factory=list)

    @property
    def db(self) -> Database:
        return self.server.app[DB]

    def client(self) -> Client:
        self.clients.append(Client(self.server))
        return self.clients[-1]

    async def player(self, username: str) -> Client:
        """A client signed in as a new user."""
        client = self.client()
        await client.register(username)
        return client


def make_config(database_url: str, fake: FakeRuntime, **overrides: Any) -> Config:
    """A test server's Config: the fake runtime and a fast hasher unless overridden."""
    return Config(
        database_url=database_url,
        **{"runtime": lambda db, time_scale: fake, "password_hasher": FAST_HASHER, **overrides},
    )


@pytest.fixture
def config_overrides() -> dict[str, Any]:
    """Override in a test module (or with indirect parametrization) to change the Config."""
    return {"limits": UNLIMITED}


@pytest.fixture
async def harness(database_url: str, config_overrides: dict[str, Any]) -> AsyncIterator[Harness]:
    runtime = FakeRuntime()
    config = make_config(database_url, runtime, **config_overrides)
    server = TestServer(create_app(config))
    await server.start_server(**server_options(config))
    h = Harness(server, runtime)
    try:
        yield h
    finally:
        for client in h.clients:
            await client.session.close()
        await server.close()
