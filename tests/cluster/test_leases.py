"""Leases and fencing (issue 17): a live table is run by one node at a
time, and a node that lost a table's lease can never write another line of
its record, whatever its own clock says: the database checks every write."""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta

import pytest

from omerta.runtime.stats import Stats
from omerta.runtime.writer import GroupWriter
from omerta.store import Database, leases, tables, users
from omerta.store.leases import Fenced
from omerta.store.models import utcnow
from omerta.store.tables import RecordLine


async def _table(db: Database) -> int:
    async with db.begin() as s:
        creator = await users.add_user(s, f"leases{next(_names)}", "!")
        table_id = await tables.create_table(s, creator.id, "classic", {}, 1)
        table = await tables.get_table(s, table_id)
        assert table is not None
        table.status = "playing"
    return table_id


_names = itertools.count()


async def _take(db: Database, table_id: int, node: str, seconds: float = 60.0):
    async with db.begin() as s:
        return await leases.acquire(s, table_id, node, seconds)


def _writer(db: Database, table_id: int, token: int) -> GroupWriter:
    writer = GroupWriter(db, Stats())
    writer.tokens[table_id] = token
    return writer


async def _record(db: Database, table_id: int) -> list[str]:
    async with db.begin() as s:
        return await tables.read_record(s, table_id)


@pytest.fixture
async def db(database_url):
    database = Database.connect(database_url)
    try:
        yield database
    finally:
        await database.close()


async def test_one_node_holds_a_lease_until_it_expires_and_each_holder_has_a_new_token(db):
    table_id = await _table(db)
    first = await _take(db, table_id, "a", seconds=0.3)
    assert first is not None and first.token == 1
    assert await _take(db, table_id, "b") is None  # a holds it
    again = await _take(db, table_id, "a", seconds=0.3)  # a restarted under its name
    assert again is not None and again.token == 2
    await asyncio.sleep(0.5)  # by the database's clock
    taken = await _take(db, table_id, "b")
    assert taken is not None and taken.token == 3
    async with db.begin() as s:
        assert await leases.owner(s, table_id) == ("b", None)
        assert await leases.claimable(s, "c") == []
        assert await leases.claimable(s, "b") == [(table_id, True)]
        assert await leases.claimable(s, "b", restart=False) == []  # a running node's look


async def test_a_node_that_lost_the_lease_writes_no_line_and_no_games_end(db):
    table_id = await _table(db)
    old = await _take(db, table_id, "a", seconds=0.2)
    assert old is not None
    a = _writer(db, table_id, old.token)
    await a.write(table_id, [RecordLine(0, "header")])
    await asyncio.sleep(0.4)
    new = await _take(db, table_id, "b")
    assert new is not None
    b = _writer(db, table_id, new.token)
    ended = []

    async def finish(s) -> None:
        ended.append(True)

    with pytest.raises(Fenced):  # lines only (Postgres: the one-statement path)
        await a.write(table_id, [RecordLine(1, "from a")])
    with pytest.raises(Fenced):  # with a game's end (a transaction)
        await a.write(table_id, [RecordLine(1, "from a")], finish)
    await b.write(table_id, [RecordLine(1, "from b")])
    assert ended == []
    assert await _record(db, table_id) == ["header", "from b"]
    await a.close()
    await b.close()


async def test_in_one_batch_only_the_fenced_tables_write_fails(db):
    one, two = await _table(db), await _table(db)
    held = await _take(db, one, "a")
    lost = await _take(db, two, "a", seconds=0.0)
    assert held is not None and lost is not None
    assert await _take(db, two, "b") is not None
    writer = GroupWriter(db, Stats())
    writer.tokens.update({one: held.token, two: lost.token})
    done = await asyncio.gather(
        writer.write(one, [RecordLine(0, "one")]),
        writer.write(two, [RecordLine(0, "two")]),
        return_exceptions=True,
    )
    assert done[0] is None and isinstance(done[1], Fenced)
    assert await _record(db, one) == ["one"] and await _record(db, two) == []
    await writer.close()


async def test_renewing_keeps_the_leases_still_held_and_names_the_lost_ones(db):
    one, two = await _table(db), await _table(db)
    a1, a2 = await _take(db, one, "a", 0.0), await _take(db, two, "a", 0.0)
    assert a1 is not None and a2 is not None
    assert await _take(db, two, "b") is not None  # expired: b adopts it
    async with db.begin() as s:
        kept = await leases.renew(s, "a", {one: a1.token, two: a2.token}, 60.0)
    assert kept == {one}
    assert await _take(db, one, "b") is None  # renewed: a holds it again


async def test_a_released_lease_is_adopted_at_once_with_the_game_time_it_stopped_at(db):
    table_id = await _table(db)
    lease = await _take(db, table_id, "a")
    assert lease is not None
    async with db.begin() as s:
        assert await leases.release(s, table_id, lease.token, 12.5)
    # A renewal under way (its node's tokens read before the hand-over)
    # that lands after the release does not hold the lease again.
    async with db.begin() as s:
        assert await leases.renew(s, "a", {table_id: lease.token}, 60.0) == set()
        assert await leases.claimable(s, "b") == [(table_id, False)]
    adopted = await _take(db, table_id, "b")
    assert adopted is not None and adopted.handoff_t == 12.5
    again = await _take(db, table_id, "b")
    assert again is not None and again.handoff_t is None  # told once


async def test_taking_a_lease_waits_for_the_old_holders_write_so_it_loads_that_line(db):
    """The write's share lock on the lease row: on Postgres a node that
    takes the lease while the old holder's write is committing waits for
    it, and then reads the line (on SQLite one writer at a time)."""
    table_id = await _table(db)
    old = await _take(db, table_id, "a", seconds=0.2)
    assert old is not None
    a = _writer(db, table_id, old.token)
    await a.write(table_id, [RecordLine(0, "header")])
    await asyncio.sleep(0.4)
    writing, release = asyncio.Event(), asyncio.Event()

    async def slow(s) -> None:
        writing.set()
        await release.wait()

    write = asyncio.create_task(a.write(table_id, [RecordLine(1, "from a")], slow))
    await writing.wait()
    take = asyncio.create_task(_take(db, table_id, "b"))
    await asyncio.sleep(0.3)
    assert not take.done()  # waits for the write's transaction
    release.set()
    await write
    assert (await take) is not None
    assert await _record(db, table_id) == ["header", "from a"]
    await a.close()


async def test_a_table_just_started_is_left_to_the_node_that_started_it_for_a_grace(db):
    table_id = await _table(db)
    async with db.begin() as s:
        table = await tables.get_table(s, table_id)
        assert table is not None
        table.started_at = utcnow()
    async with db.begin() as s:
        assert await leases.claimable(s, "b", restart=False) == []  # its node takes it now
        assert await leases.claimable(s, "b") == [(table_id, False)]  # a restart takes all
        table = await tables.get_table(s, table_id)
        assert table is not None
        table.started_at = utcnow() - timedelta(seconds=leases.START_GRACE + 1)
    async with db.begin() as s:  # its node never took it: anybody's now
        assert await leases.claimable(s, "b", restart=False) == [(table_id, False)]
