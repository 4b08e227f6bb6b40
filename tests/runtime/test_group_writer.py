"""The record writer: each table's lines land whole and in order while the
writer batches tables together, and on Postgres a step does not wait for
another table's commit to end (SQLite has one writer at a time)."""

from __future__ import annotations

import asyncio

import pytest

from omerta.runtime.stats import Stats
from omerta.runtime.writer import GroupWriter
from omerta.store import Database, leases, tables, users
from omerta.store.tables import RecordLine


async def _tables(db: Database, count: int) -> list[int]:
    async with db.begin() as s:
        creator = await users.add_user(s, "writer", "!")
        return [await tables.create_table(s, creator.id, "classic", {}, 1) for _ in range(count)]


async def _writer(db: Database, table_ids: list[int]) -> GroupWriter:
    """A writer holding the leases of `table_ids`, as a node's does."""
    writer = GroupWriter(db, Stats())
    async with db.begin() as s:
        for table_id in table_ids:
            lease = await leases.acquire(s, table_id, "node", 60.0)
            assert lease is not None
            writer.tokens[table_id] = lease.token
    return writer


async def test_every_tables_lines_land_whole_and_in_order_under_load(database_url):
    db = Database.connect(database_url)
    try:
        ids = await _tables(db, 8)
        writer = await _writer(db, ids)

        async def play(table_id: int) -> None:
            for n in range(20):  # as an actor does: one write at a time per table
                await writer.write(
                    table_id,
                    [
                        RecordLine(2 * n, f"{table_id}/{n}/a"),
                        RecordLine(2 * n + 1, f"{table_id}/{n}/b"),
                    ],
                )

        await asyncio.gather(*(play(t) for t in ids))
        await writer.close()
        async with db.begin() as s:
            for t in ids:
                lines = await tables.read_record_lines(s, t)
                assert [(r.line, r.text) for r in lines] == [
                    (2 * n + k, f"{t}/{n}/{'ab'[k]}") for n in range(20) for k in (0, 1)
                ]
        assert len(writer.stats.batches.values()) < 8 * 20  # tables shared commits
    finally:
        await db.close()


async def test_on_postgres_a_step_does_not_wait_for_another_tables_commit(database_url):
    db = Database.connect(database_url)
    try:
        first, second = await _tables(db, 2)
        writer = await _writer(db, [first, second])
        held, release = asyncio.Event(), asyncio.Event()

        async def slow_finish(_session) -> None:  # a game's end that takes its time
            held.set()
            await release.wait()

        ending = asyncio.create_task(writer.write(first, [RecordLine(0, "end")], slow_finish))
        await held.wait()
        step = asyncio.create_task(writer.write(second, [RecordLine(0, "step")]))
        done, _ = await asyncio.wait({step}, timeout=2.0)
        overlapped = bool(done)
        release.set()
        await asyncio.gather(ending, step)
        await writer.close()
        assert overlapped == (db.engine.dialect.name == "postgresql")
    finally:
        await db.close()


async def test_on_postgres_a_write_after_the_server_dropped_the_writers_connection_lands(
    database_url,
):
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite has no server connection to lose")
    db = Database.connect(database_url)
    try:
        [table_id] = await _tables(db, 1)
        writer = await _writer(db, [table_id])
        await writer.write(table_id, [RecordLine(0, "before")])
        [(_, held)] = writer._held
        async with db.engine.connect() as admin:  # what a database restart does to it
            killed = await admin.exec_driver_sql(
                f"SELECT pg_terminate_backend({held.get_server_pid()})"
            )
            assert killed.scalar() is True
        await writer.write(table_id, [RecordLine(1, "after")])
        await writer.close()
        async with db.begin() as s:
            lines = await tables.read_record_lines(s, table_id)
        assert [r.text for r in lines] == ["before", "after"]
    finally:
        await db.close()
