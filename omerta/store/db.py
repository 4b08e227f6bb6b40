"""Where the database is and how to talk to it.

`DATABASE_URL` selects it (`postgresql+asyncpg://…` in production and CI;
`postgres://` and `postgresql://`, as hosting providers write them, mean the
same); without it an embedded SQLite file is used so `omerta serve` needs no
set-up: `$OMERTA_DATA/omerta.db`, or `./omerta.db` when OMERTA_DATA is unset."""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import asyncpg
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, CursorResult, Result, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

# SQLite waits this long for another writer instead of failing at once.
SQLITE_BUSY_MS = 10_000


POSTGRES_EXAMPLE = "postgresql://USER:PASSWORD@HOST:5432/DATABASE"
# The drivers Omerta runs on, by what a URL may name before the "+driver".
DRIVERS = {
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
}


class DatabaseUrlError(ValueError):
    """DATABASE_URL cannot be used; the message says what to write instead."""


def database_url(env: Mapping[str, str] = os.environ) -> str:
    """The configured database, or the embedded SQLite file."""
    if env.get("DATABASE_URL"):
        return driver_url(env["DATABASE_URL"])
    return embedded_url(env)


def driver_url(configured: str) -> str:
    """`configured` with the async driver Omerta uses (`postgres://…` becomes
    `postgresql+asyncpg://…`); DatabaseUrlError when it is no URL of a
    database Omerta runs on."""
    try:
        url = make_url(configured)
    except (ArgumentError, ValueError):
        raise DatabaseUrlError(
            f"DATABASE_URL is not a database URL: write it as {POSTGRES_EXAMPLE}"
            " (or unset it for the embedded SQLite file)"
        ) from None
    backend, _, driver = url.drivername.partition("+")
    wanted = DRIVERS.get(backend)
    if wanted is None or driver not in ("", wanted.partition("+")[2]):
        raise DatabaseUrlError(
            f"DATABASE_URL names {url.drivername!r}, which Omerta does not run"
            f" on: write {POSTGRES_EXAMPLE} (or sqlite:///PATH)"
        )
    return url.set(drivername=wanted).render_as_string(hide_password=False)


def describe(url: str) -> str:
    """Which database `url` is, for people: kind and place, no password."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return f"SQLite {parsed.database}"
    where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}/{parsed.database or ''}"
    schema = parsed.query.get("search_path")
    return f"Postgres {parsed.username + '@' if parsed.username else ''}{where}" + (
        f" (schema {schema})" if schema else ""
    )


def embedded_url(env: Mapping[str, str] = os.environ) -> str:
    folder = Path(env.get("OMERTA_DATA") or ".")
    return f"sqlite+aiosqlite:///{(folder / 'omerta.db').resolve()}"


def is_embedded(env: Mapping[str, str] = os.environ) -> bool:
    return not env.get("DATABASE_URL")


def create_engine(url: str | URL, **kwargs: Any) -> AsyncEngine:
    """An async engine for `url`.

    Postgres: a `search_path` query parameter (`…/db?search_path=s`) puts the
    tables in schema `s`, so one database can hold isolated installations
    (the tests use one schema each).

    SQLite: foreign keys on, WAL, and every transaction opened with BEGIN
    IMMEDIATE. SQLite has one writer at a time; a transaction that reads and
    then writes would otherwise fail with "database is locked" when another
    writer got in between, instead of waiting its turn."""
    url = make_url(url)
    if url.get_backend_name() == "postgresql":
        schema = url.query.get("search_path")
        if schema:
            url = url.difference_update_query(["search_path"])
            kwargs.setdefault("connect_args", {})["server_settings"] = {"search_path": schema}
        return create_async_engine(url, **kwargs)
    if url.get_backend_name() != "sqlite":
        raise ValueError(
            f"unsupported database {url.get_backend_name()!r}: use postgresql+asyncpg"
            " or sqlite+aiosqlite"
        )
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, **kwargs)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take BEGIN out of the driver's hands; the "begin" hook below issues it.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_MS}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE touched: `execute` is typed to return a
    Result, and for these statements it is a CursorResult, which counts them."""
    return cast(CursorResult[Any], result).rowcount


@dataclass(frozen=True)
class Database:
    """The engine plus a session factory. `async with db.begin() as s:`
    runs one transaction: committed on exit, rolled back on an exception."""

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    @classmethod
    def connect(cls, url: str) -> Database:
        engine = create_engine(url)
        # Objects stay readable after commit: handlers build their reply
        # from them once the transaction is over.
        return cls(engine, async_sessionmaker(engine, expire_on_commit=False))

    def begin(self) -> AbstractAsyncContextManager[AsyncSession]:
        return self.sessions.begin()

    async def close(self) -> None:
        await self.engine.dispose()


def database_down(e: Exception) -> bool:
    """Whether `e` says the database is unreachable or gone (Postgres down,
    a connection cut, the pool exhausted, SQLite locked past its wait),
    rather than a bug."""
    if isinstance(e, exc.DBAPIError) and (
        e.connection_invalidated or isinstance(e, (exc.OperationalError, exc.InterfaceError))
    ):
        return True
    # The driver's own error, however SQLAlchemy wrapped it: a connection
    # that broke, closed or could not be made.
    seen: BaseException | None = e
    while seen is not None:
        if isinstance(
            seen,
            (
                exc.DisconnectionError,
                exc.TimeoutError,
                OSError,
                TimeoutError,
                asyncpg.PostgresConnectionError,
                asyncpg.ConnectionDoesNotExistError,
                asyncpg.InterfaceError,
            ),
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
