"""Group commit: every live table's record writes go through one writer,
which commits whatever has queued up while the previous commit ran in a
single transaction, with a single INSERT for all its lines.

Each table's step is still all-or-nothing (its lines are in one committed
transaction before its actor sends anything), but a busy server pays for
one commit and a handful of round trips per batch instead of per step, and
tables never wait on each other's locks (SQLite has one writer at a time
anyway)."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Awaitable, Callable, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from ..store import Database, tables
from ..store.tables import RecordLine
from .stats import Stats

#: More work in the same transaction (a game's end), after the lines.
Finish = Callable[[AsyncSession], Awaitable[None]]


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
        self._queue: list[Write] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._busy = False

    async def write(self, table_id: int, lines: Sequence[RecordLine],
                    finish: Finish | None = None) -> None:
        """Append `lines` to the table's record (then run `finish`) in a
        transaction; return once it is committed, or raise what the
        database raised."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="record-writer")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(Write(table_id, lines, finish, done))
        self._wake.set()
        await done

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._queue = self._queue, []
            self._busy = True
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
            finally:
                self._busy = False

    async def _commit(self, batch: list[Write]) -> None:
        started = time.perf_counter()
        lines = [(w.table_id, line) for w in batch for line in w.lines]
        if any(w.finish is not None for w in batch):
            async with self.db.begin() as s:
                await tables.append_records_of_tables(s, lines)
                for write in batch:
                    if write.finish is not None:
                        await write.finish(s)
        else:
            # Lines only (nearly always): a bare connection, no ORM session to set up.
            async with self.db.engine.begin() as conn:
                await tables.append_records_of_tables(conn, lines)
        self.stats.commits.append(time.perf_counter() - started)
        self.stats.batches.append(len(batch))
        for write in batch:
            if not write.done.done():
                write.done.set_result(None)

    async def close(self) -> None:
        """Stop once nothing is queued or committing (the actors are
        stopped first: nothing new comes in)."""
        if self._task is not None:
            while self._queue or self._busy:
                await asyncio.sleep(0.01)
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
