"""Tables, their seats and their records (the SCRIPTS.md lines).

Seat changes of one table must not interleave (two players taking the last
two seats must start the table exactly once), so callers take the table
with `get_table(..., lock=True)` first: a row lock on Postgres; on SQLite
every transaction is already one writer at a time (see `db.create_engine`)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import selectinload

from .models import GameTable, Seat, TableRecord, utcnow

_WITH_SEATS = (selectinload(GameTable.seats).selectinload(Seat.user),
               selectinload(GameTable.creator))


async def create_table(s: AsyncSession, creator_id: int, ruleset: str,
                       settings: dict[str, Any], seed: int) -> int:
    table = GameTable(creator_id=creator_id, ruleset=ruleset, settings=settings, seed=seed,
                      status="open")
    s.add(table)
    await s.flush()
    return table.id


async def get_table(s: AsyncSession, table_id: int, *, lock: bool = False) -> GameTable | None:
    """The table with its seats, their users and its creator loaded, read
    afresh from the database (changes made with the functions below show)."""
    query = (select(GameTable).where(GameTable.id == table_id).options(*_WITH_SEATS)
             .execution_options(populate_existing=True))
    if lock:
        query = query.with_for_update(of=GameTable)
    return await s.scalar(query)


async def tables_with_status(s: AsyncSession, status: str) -> Sequence[GameTable]:
    return (await s.scalars(select(GameTable).where(GameTable.status == status)
                            .options(*_WITH_SEATS).order_by(GameTable.id))).all()


async def seated_at(s: AsyncSession, user_id: int) -> int | None:
    """The open or playing table where `user_id` has a seat, if any."""
    return await s.scalar(
        select(Seat.table_id).join(GameTable, GameTable.id == Seat.table_id)
        .where(Seat.user_id == user_id, GameTable.status.in_(("open", "playing"))).limit(1))


async def add_seats(s: AsyncSession, table: GameTable, occupants: Sequence[int | None]) -> None:
    """Seat each occupant (a user id, or None for a bot) in the lowest free
    seats of `table`, whose seats are loaded and current."""
    taken = {seat.seat for seat in table.seats}
    free = (n for n in itertools.count(1) if n not in taken)
    rows = [{"table_id": table.id, "seat": n, "user_id": who, "is_bot": who is None}
            for who, n in zip(occupants, free)]
    if rows:
        await s.execute(insert(Seat), rows)


async def remove_seat(s: AsyncSession, table_id: int, user_id: int) -> bool:
    result = await s.execute(delete(Seat).where(Seat.table_id == table_id,
                                                Seat.user_id == user_id))
    return result.rowcount > 0


async def start_table(s: AsyncSession, table: GameTable, order: Sequence[Seat]) -> None:
    """Mark `table` playing, its occupants re-seated as 1, 2, ... in `order`."""
    await s.execute(delete(Seat).where(Seat.table_id == table.id))
    await s.execute(insert(Seat), [
        {"table_id": table.id, "seat": n, "user_id": seat.user_id, "is_bot": seat.is_bot}
        for n, seat in enumerate(order, start=1)])
    await s.execute(update(GameTable).where(GameTable.id == table.id)
                    .values(status="playing", started_at=utcnow()))


async def end_table(s: AsyncSession, table_id: int, status: str,
                    when: datetime | None = None) -> None:
    """Mark a table `finished` or `abandoned`."""
    await s.execute(update(GameTable).where(GameTable.id == table_id)
                    .values(status=status, finished_at=when or utcnow()))


async def append_record(s: AsyncSession, table_id: int, line: int, text: str,
                        client_id: str | None = None) -> None:
    """Add line `line` of the table's script. Lines are never rewritten: a
    second write of the same line fails on the primary key."""
    s.add(TableRecord(table_id=table_id, line=line, text=text, client_id=client_id))
    await s.flush()


@dataclass(frozen=True, slots=True)
class RecordLine:
    line: int
    text: str
    client_id: str | None = None


async def append_records(s: AsyncSession, table_id: int, lines: Sequence[RecordLine]) -> None:
    """Add several lines of the table's script in one statement."""
    await append_records_of_tables(s, [(table_id, line) for line in lines])


async def append_records_of_tables(s: AsyncSession | AsyncConnection,
                                   lines: Sequence[tuple[int, RecordLine]]) -> None:
    """Add lines to the scripts of several tables, (table id, line) each, in
    one statement (a Core insert: the ORM's bulk machinery costs more than
    the write itself)."""
    if lines:
        await s.execute(TableRecord.__table__.insert(), [
            {"table_id": table_id, "line": r.line, "text": r.text, "client_id": r.client_id}
            for table_id, r in lines])


_RECORDS = TableRecord.__table__
#: asyncpg's own form of the insert above, for the record writer's held
#: connections (see append_records_asyncpg).
_APPEND_SQL = (f"INSERT INTO {_RECORDS.name} (table_id, line, text, client_id)"
               " VALUES ($1, $2, $3, $4)")


async def append_records_asyncpg(connection: Any, lines: Sequence[tuple[int, RecordLine]]) -> None:
    """append_records_of_tables on a bare asyncpg connection: the statement
    a busy server runs most. SQLAlchemy's per-row parameter handling and a
    pool checkout per batch cost four times what the write itself costs in
    CPU. asyncpg's executemany is atomic (one Sync for all rows)."""
    await connection.executemany(_APPEND_SQL, [(table_id, r.line, r.text, r.client_id)
                                               for table_id, r in lines])


async def read_record(s: AsyncSession, table_id: int) -> list[str]:
    """The table's script, header first."""
    return list((await s.scalars(select(TableRecord.text).where(TableRecord.table_id == table_id)
                                 .order_by(TableRecord.line))).all())


async def read_record_lines(s: AsyncSession, table_id: int) -> list[RecordLine]:
    """The table's script with each line's client message id, header first."""
    rows = await s.execute(select(TableRecord.line, TableRecord.text, TableRecord.client_id)
                           .where(TableRecord.table_id == table_id).order_by(TableRecord.line))
    return [RecordLine(line, text, client_id) for line, text, client_id in rows.tuples()]


async def abandon_empty(s: AsyncSession, created_before: datetime) -> int:
    """Close open tables created before `created_before` that nobody sits at."""
    seated = select(Seat.table_id)
    result = await s.execute(
        update(GameTable)
        .where(GameTable.status == "open", GameTable.created_at < created_before,
               GameTable.id.not_in(seated))
        .values(status="abandoned", finished_at=utcnow()))
    return result.rowcount
