"""Tables, their seats and their records (the docs/scripts.md lines).

Seat changes of one table must not interleave (two players taking the last
two seats must start the table exactly once), so callers take the table
with `get_table(..., lock=True)` first: a row lock on Postgres; on SQLite
every transaction is already one writer at a time (see `db.create_engine`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import Table, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import selectinload

from .. import rulesets
from .db import rowcount
from .models import GameTable, Seat, TableRecord, TableStatus, utcnow

#: The statuses a table ends in.
Ended = Literal["finished", "abandoned"]

#: The key of a table's settings that holds who may watch it and its
#: stream's delay (omerta/server/watch.py); every other key is the engine's.
WATCH = "watch"


def game_settings(table: GameTable) -> dict[str, Any]:
    """The table's settings as the engine takes them (without `WATCH`)."""
    return {name: value for name, value in table.settings.items() if name != WATCH}


def ranks(
    ruleset: str,
    settings: dict[str, Any],
    bots: frozenset[int] = frozenset(),
    stand_ins: frozenset[int] = frozenset(),
) -> bool:
    """Whether a table of `ruleset` with these stored settings (`WATCH`
    included or not), bot seats and stand-ins for absentees awards rating;
    otherwise it is practice. The ruleset decides (A1): the one answer to
    "is it practice?"."""
    rules = rulesets.get(ruleset)
    engine = {name: value for name, value in settings.items() if name != WATCH}
    return rules.ranked(rules.parse_settings(engine), bots, stand_ins)


def ranked(table: GameTable) -> bool:
    """`ranks` for `table` as it stands (loaded with its seats)."""
    return ranks(
        table.ruleset,
        table.settings,
        frozenset(s.seat for s in table.seats if s.is_bot),
        frozenset(s.seat for s in table.seats if s.stands_in),
    )


def watch_settings(table: GameTable) -> dict[str, Any]:
    """Who may watch the table and its stream's delay, as stored (maybe empty)."""
    found = table.settings.get(WATCH)
    return dict(found) if isinstance(found, dict) else {}


_WITH_SEATS = (
    selectinload(GameTable.seats).selectinload(Seat.user),
    selectinload(GameTable.creator),
)


async def create_table(
    s: AsyncSession, creator_id: int, ruleset: str, settings: dict[str, Any], seed: int
) -> int:
    table = GameTable(
        creator_id=creator_id, ruleset=ruleset, settings=settings, seed=seed, status="open"
    )
    s.add(table)
    await s.flush()
    return table.id


async def get_table(s: AsyncSession, table_id: int, *, lock: bool = False) -> GameTable | None:
    """The table with its seats, their users and its creator loaded, read
    afresh from the database (changes made with the functions below show)."""
    query = (
        select(GameTable)
        .where(GameTable.id == table_id)
        .options(*_WITH_SEATS)
        .execution_options(populate_existing=True)
    )
    if lock:
        query = query.with_for_update(of=GameTable)
    return await s.scalar(query)


async def tables_with_status(
    s: AsyncSession, status: TableStatus, after: int = 0, limit: int | None = None
) -> Sequence[GameTable]:
    """Tables with `status` and an id above `after`, oldest first, at most `limit`."""
    return (
        await s.scalars(
            select(GameTable)
            .where(GameTable.status == status, GameTable.id > after)
            .options(*_WITH_SEATS)
            .order_by(GameTable.id)
            .limit(limit)
        )
    ).all()


async def open_tables_of(s: AsyncSession, creator_id: int) -> int:
    """How many tables `creator_id` created that have not started yet."""
    return (
        await s.scalar(
            select(func.count())
            .select_from(GameTable)
            .where(GameTable.creator_id == creator_id, GameTable.status == "open")
        )
        or 0
    )


async def seated_at(s: AsyncSession, user_id: int) -> int | None:
    """The open or playing table where `user_id` has a seat, if any."""
    return await s.scalar(select(Seat.table_id).where(Seat.user_id == user_id, Seat.live))


class AlreadySeated(Exception):
    """The account took a live seat elsewhere in the meantime (the database's
    one-live-seat index refused this one)."""


async def add_seats(s: AsyncSession, table: GameTable, occupants: Sequence[int | None]) -> None:
    """Seat each occupant (a user id, or None for a bot) in the lowest free
    seats of `table`, whose seats are loaded and current."""
    taken = {seat.seat for seat in table.seats}
    free = (n for n in itertools.count(1) if n not in taken)
    rows = [
        {"table_id": table.id, "seat": n, "user_id": who, "is_bot": who is None}
        for who, n in zip(occupants, free)
    ]
    if rows:
        try:
            await s.execute(insert(Seat), rows)
        except IntegrityError:
            raise AlreadySeated() from None


async def remove_seat(s: AsyncSession, table_id: int, user_id: int) -> bool:
    result = await s.execute(delete(Seat).where(Seat.table_id == table_id, Seat.user_id == user_id))
    return rowcount(result) > 0


async def start_table(s: AsyncSession, table: GameTable, order: Sequence[Seat]) -> None:
    """Mark `table` playing, its occupants re-seated as 1, 2, ... in `order`."""
    await s.execute(delete(Seat).where(Seat.table_id == table.id))
    await s.execute(
        insert(Seat),
        [
            {"table_id": table.id, "seat": n, "user_id": seat.user_id, "is_bot": seat.is_bot}
            for n, seat in enumerate(order, start=1)
        ],
    )
    await s.execute(
        update(GameTable)
        .where(GameTable.id == table.id)
        .values(status="playing", started_at=utcnow())
    )


async def end_table(
    s: AsyncSession, table_id: int, status: Ended, when: datetime | None = None
) -> None:
    """Mark a table `finished` or `abandoned`: its players are free to sit elsewhere."""
    await s.execute(
        update(GameTable)
        .where(GameTable.id == table_id)
        .values(status=status, finished_at=when or utcnow())
    )
    await s.execute(update(Seat).where(Seat.table_id == table_id).values(live=False))


async def append_record(
    s: AsyncSession, table_id: int, line: int, text: str, client_id: str | None = None
) -> None:
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


async def append_records_of_tables(
    s: AsyncSession | AsyncConnection, lines: Sequence[tuple[int, RecordLine]]
) -> None:
    """Add lines to the scripts of several tables, (table id, line) each, in
    one statement (a Core insert: the ORM's bulk machinery costs more than
    the write itself)."""
    if lines:
        await s.execute(
            _RECORDS.insert(),
            [
                {"table_id": table_id, "line": r.line, "text": r.text, "client_id": r.client_id}
                for table_id, r in lines
            ],
        )


_RECORDS = cast(Table, TableRecord.__table__)
#: asyncpg's own form of the insert above, for the record writer's held
#: connections (see append_records_asyncpg).
_APPEND_SQL = (
    f"INSERT INTO {_RECORDS.name} (table_id, line, text, client_id) VALUES ($1, $2, $3, $4)"
)


async def append_records_asyncpg(connection: Any, lines: Sequence[tuple[int, RecordLine]]) -> None:
    """append_records_of_tables on a bare asyncpg connection: the statement
    a busy server runs most. SQLAlchemy's per-row parameter handling and a
    pool checkout per batch cost four times what the write itself costs in
    CPU. asyncpg's executemany is atomic (one Sync for all rows)."""
    await connection.executemany(
        _APPEND_SQL, [(table_id, r.line, r.text, r.client_id) for table_id, r in lines]
    )


async def read_record(s: AsyncSession, table_id: int) -> list[str]:
    """The table's script, header first."""
    return list(
        (
            await s.scalars(
                select(TableRecord.text)
                .where(TableRecord.table_id == table_id)
                .order_by(TableRecord.line)
            )
        ).all()
    )


async def read_record_lines(s: AsyncSession, table_id: int) -> list[RecordLine]:
    """The table's script with each line's client message id, header first."""
    rows = await s.execute(
        select(TableRecord.line, TableRecord.text, TableRecord.client_id)
        .where(TableRecord.table_id == table_id)
        .order_by(TableRecord.line)
    )
    return [RecordLine(line, text, client_id) for line, text, client_id in rows.tuples()]


async def abandon_empty(s: AsyncSession, created_before: datetime) -> int:
    """Close open tables created before `created_before` that nobody sits at."""
    seated = select(Seat.table_id)
    result = await s.execute(
        update(GameTable)
        .where(
            GameTable.status == "open",
            GameTable.created_at < created_before,
            GameTable.id.not_in(seated),
        )
        .values(status="abandoned", finished_at=utcnow())
    )
    return rowcount(result)
