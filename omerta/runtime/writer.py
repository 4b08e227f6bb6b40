"""Group commit: every live table's record writes go through one writer,
which commits whatever has queued up while the previous commit ran in a
single transaction, with a single INSERT for all its lines.

Each table's step is still all-or-nothing (its lines are in one committed
transaction before its actor sends anything), but a busy server pays for
one commit and a handful of round trips per batch instead of per step, and
tables never wait on each other's locks.

On Postgres several batches commit at once: a step queued while a commit is
under way is written in the next batch straight away instead of waiting
for that commit to end, and Postgres flushes the overlapping commits
together. A table never has two writes in flight (its actor waits for
each), so its lines still land in order. SQLite has one writer at a time:
one batch at a time there."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from ..store import Database, tables
from ..store.tables import RecordLine
from .stats import Stats

#: More work in the same transaction (a game's end), after the lines.
Finish = Callable[[AsyncSession], Awaitable[None]]
#: Batches committing at once on Postgres.
POSTGRES_IN_FLIGHT = 4


@dataclass(frozen=True, slots=True)
class Write:
    table_id: int
    lines: Sequence[RecordLine]
    finish: Finish | None
    done: asyncio.Future[None]


class GroupWriter:
    def __init__(self, db: Database, stats: Stats):
        self.db = db
        self.stats = stats
        self._postgres = db.engine.dialect.name == "postgresql"
        self.in_flight = POSTGRES_IN_FLIGHT if self._postgres else 1
        self._queue: list[Write] = []
        self._running: set[asyncio.Task[None]] = set()
        #: Postgres connections kept for lines-only batches, with their
        #: asyncpg connection, so no batch pays for a pool checkout
        self._held: list[tuple[AsyncConnection, Any]] = []

    async def write(self, table_id: int, lines: Sequence[RecordLine],
                    finish: Finish | None = None) -> None:
        """Append `lines` to the table's record (then run `finish`) in a
        transaction; return once it is committed, or raise what the
        database raised."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(Write(table_id, lines, finish, done))
        self._start()
        await done

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
        lines = [(w.table_id, line) for w in batch for line in w.lines]
        if any(w.finish is not None for w in batch):
            async with self.db.begin() as s:
                await tables.append_records_of_tables(s, lines)
                for write in batch:
                    if write.finish is not None:
                        await write.finish(s)
        elif self._postgres:
            # Lines only (nearly always): one statement, atomic by itself,
            # so one round trip instead of BEGIN, the rows and COMMIT.
            await self._append_held(lines)
        else:
            async with self.db.engine.begin() as conn:
                await tables.append_records_of_tables(conn, lines)
        self.stats.commits.append(time.perf_counter() - started)
        self.stats.batches.append(len(batch))
        for write in batch:
            if not write.done.done():
                write.done.set_result(None)

    async def _append_held(self, lines: Sequence[tuple[int, RecordLine]]) -> None:
        if self._held:
            conn, driver = self._held.pop()
        else:
            conn = await self.db.engine.connect()
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            driver = (await conn.get_raw_connection()).driver_connection
        try:
            await tables.append_records_asyncpg(driver, lines)
        except BaseException:
            # A broken connection (the database restarted) is not reused;
            # the next batch connects afresh.
            await conn.invalidate()
            await conn.close()
            raise
        self._held.append((conn, driver))

    async def close(self) -> None:
        """Stop once nothing is queued or committing (the actors are
        stopped first: nothing new comes in)."""
        while self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        while self._held:
            await self._held.pop()[0].close()
