"""Group commit: every live table's record writes go through one writer,
which commits whatever has queued up while the previous commit ran in a
single transaction, with a single INSERT for all its lines.

Each table's step is still all-or-nothing (its lines are in one committed
transaction before its actor sends anything), but a busy server pays for
one commit and a handful of round trips per batch instead of per step, and
tables never wait on each other's locks.

Every write carries its table's lease token (omerta/store/leases.py): the
transaction that writes checks it, and a table whose lease another node
holds now gets nothing written and `Fenced` back.

On Postgres several batches commit at once: a step queued while a commit is
under way is written in the next batch straight away instead of waiting
for that commit to end, and Postgres flushes the overlapping commits
together. A table never has two writes in flight (its actor waits for
each), so its lines still land in order. SQLite has one writer at a time:
one batch at a time there."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
from sqlalchemy import exc
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from ..store import Database, tables
from ..store.leases import Fenced, append_fenced_asyncpg, fenced_out
from ..store.tables import RecordLine
from .stats import Stats

#: More work in the same transaction (a game's end), after the lines.
Finish = Callable[[AsyncSession], Awaitable[None]]
#: Batches committing at once on Postgres.
POSTGRES_IN_FLIGHT = 4


#: Errors of the way to the database, not answers from it: a write that
#: failed with one may land when tried again.
_CONNECTION_ERRORS = (
    OSError,
    TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,
    exc.OperationalError,
    exc.InterfaceError,
)


def lost_connection(error: BaseException) -> bool:
    """Whether `error` (or what caused it) is the connection failing rather
    than the database refusing the statement."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, _CONNECTION_ERRORS) or (
            isinstance(seen, exc.DBAPIError) and seen.connection_invalidated
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@dataclass(frozen=True, slots=True)
class Write:
    table_id: int
    token: int
    lines: Sequence[RecordLine]
    finish: Finish | None
    done: asyncio.Future[None]


class GroupWriter:
    def __init__(self, db: Database, stats: Stats):
        self.db = db
        self.stats = stats
        self._postgres = db.engine.dialect.name == "postgresql"
        self.in_flight = POSTGRES_IN_FLIGHT if self._postgres else 1
        #: the lease token of each table this node holds (runtime/ownership.py)
        self.tokens: dict[int, int] = {}
        self._queue: list[Write] = []
        self._running: set[asyncio.Task[None]] = set()
        #: Postgres connections kept for lines-only batches, with their
        #: asyncpg connection, so no batch pays for a pool checkout
        self._held: list[tuple[AsyncConnection, Any]] = []

    async def write(
        self, table_id: int, lines: Sequence[RecordLine], finish: Finish | None = None
    ) -> None:
        """Append `lines` to the table's record (then run `finish`) in a
        transaction, if the table's lease still has the token in `tokens`;
        return once it is committed, or raise what the database raised
        (Fenced: another node holds the lease, nothing was written)."""
        token = self.tokens.get(table_id)
        if token is None:
            raise Fenced(table_id)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(Write(table_id, token, lines, finish, done))
        self._start()
        await done

    async def stored_lines(self, table_id: int, first: int) -> list[RecordLine]:
        """The table's record from line `first` on, as the database has it."""
        async with self.db.begin() as s:
            return [r for r in await tables.read_record_lines(s, table_id) if r.line >= first]

    def _start(self) -> None:
        """Commit what has queued up, unless enough batches are committing:
        then it waits, growing, for one of them to end."""
        if self._queue and len(self._running) < self.in_flight:
            batch, self._queue = self._queue, []
            task = asyncio.create_task(self._write(batch), name="record-writer")
            self._running.add(task)
            task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._start()

    async def _write(self, batch: list[Write]) -> None:
        try:
            await self._commit(batch)
        except Exception:
            # One write failed and took the batch down with it: do each
            # alone, so only the failing table hears of it.
            for write in batch:
                try:
                    await self._commit([write])
                except Exception as e:
                    if not write.done.done():
                        write.done.set_exception(e)

    async def _commit(self, batch: list[Write]) -> None:
        started = time.perf_counter()
        tokens = {w.table_id: w.token for w in batch}
        lines = [(w.table_id, line) for w in batch for line in w.lines]
        if any(w.finish is not None for w in batch):
            async with self.db.begin() as s:
                lost = await fenced_out(s, tokens)
                await tables.append_records_of_tables(
                    s, [(t, line) for t, line in lines if t not in lost]
                )
                for write in batch:
                    if write.finish is not None and write.table_id not in lost:
                        await write.finish(s)
        elif self._postgres:
            # Lines only (nearly always): one statement, atomic by itself,
            # so one round trip instead of BEGIN, the rows and COMMIT.
            lost = set(tokens) - await self._append_held(lines, tokens)
        else:
            async with self.db.engine.begin() as conn:
                lost = await fenced_out(conn, tokens)
                await tables.append_records_of_tables(
                    conn, [(t, line) for t, line in lines if t not in lost]
                )
        self.stats.commits.append(time.perf_counter() - started)
        self.stats.batches.append(len(batch))
        self.stats.fenced += len(lost)
        for write in batch:
            if write.done.done():  # its table's actor was stopped meanwhile
                continue
            if write.table_id in lost:
                write.done.set_exception(Fenced(write.table_id))
            else:
                write.done.set_result(None)

    async def _append_held(
        self, lines: Sequence[tuple[int, RecordLine]], tokens: dict[int, int]
    ) -> set[int]:
        if self._held:
            conn, driver = self._held.pop()
        else:
            conn = await self.db.engine.connect()
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            driver = (await conn.get_raw_connection()).driver_connection
        try:
            written = await append_fenced_asyncpg(driver, lines, tokens)
        except BaseException:
            # A broken connection (the database restarted) is not reused;
            # the next batch connects afresh.
            await conn.invalidate()
            await conn.close()
            raise
        self._held.append((conn, driver))
        return written

    async def close(self) -> None:
        """Stop once nothing is queued or committing (the actors are
        stopped first: nothing new comes in)."""
        while self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        while self._held:
            await self._held.pop()[0].close()
