"""Which server process (node) runs each live table (issue 17, docs/deploy.md
"Several nodes").

A table is run by the node holding its lease: a row with the node's name,
a fencing token and an expiry. Taking a lease adds one to the token, so
every holder of a table has a token of its own. Every record write checks
its table's token in the transaction that writes (`fenced_out`,
`append_fenced_asyncpg`), under a share lock that taking the lease must
wait for: a node that lost its lease cannot write one more line, whatever
its clock says. Expiry is counted by the database's clock (`db_time`),
never a node's. On SQLite (one node) the same statements run; its
transactions are one writer at a time anyway."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    ColumnElement,
    Float,
    ForeignKey,
    Select,
    String,
    Table,
    bindparam,
    func,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.expression import FunctionElement

from .db import rowcount
from .models import Base, GameTable, TableRecord, utcnow
from .tables import RecordLine


class Node(Base):
    """A server process that runs tables: `url` is where the other nodes
    reach it (a table socket they forward, docs/deploy.md), `seen` its last
    heartbeat by the database's clock."""

    __tablename__ = "nodes"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    url: Mapped[str | None] = mapped_column(String(200))
    seen: Mapped[float] = mapped_column(Float)
    draining: Mapped[bool] = mapped_column(Boolean)


class TableLease(Base):
    """The node that runs a playing table, until `expires` (seconds since
    1970 by the database's clock). `handoff_t`: the game time at which a
    node that handed the table over (a drain) stopped its clock, so the
    next holder runs on from there, not from the record's last line."""

    __tablename__ = "table_leases"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    node: Mapped[str] = mapped_column(String(64))
    token: Mapped[int] = mapped_column(BigInteger)
    expires: Mapped[float] = mapped_column(Float)
    handoff_t: Mapped[float | None] = mapped_column(Float)


_LEASES = cast(Table, TableLease.__table__)
_NODES = cast(Table, Node.__table__)


#: Seconds a table just started (never leased) is left to the node that started it.
START_GRACE = 5.0


class db_time(FunctionElement[float]):
    """The database's clock, in seconds since 1970 (with fractions)."""

    type = Float()
    inherit_cache = True


@compiles(db_time, "postgresql")
def _postgres_time(element: db_time, compiler: Any, **kw: Any) -> str:
    # clock_timestamp(), not now(): the time of the statement, not of the
    # transaction's start.
    return "extract(epoch from clock_timestamp())::float8"


@compiles(db_time, "sqlite")
def _sqlite_time(element: db_time, compiler: Any, **kw: Any) -> str:
    return "((julianday('now') - 2440587.5) * 86400.0)"


class Fenced(Exception):
    """This node no longer holds the table's lease: nothing was written,
    and nothing this node writes for the table will be."""

    def __init__(self, table_id: int):
        super().__init__(f"table {table_id}: another node holds its lease")
        self.table_id = table_id


@dataclass(frozen=True, slots=True)
class Lease:
    table_id: int
    token: int
    #: the game time the previous holder handed the table over at, if it did
    handoff_t: float | None = None


def _insert(s: AsyncSession) -> Any:
    dialect = s.get_bind().dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(_LEASES)


async def acquire(s: AsyncSession, table_id: int, node: str, seconds: float) -> Lease | None:
    """Take table `table_id`'s lease for `node` for `seconds`, if nobody
    holds it: no lease yet, an expired one, or `node`'s own (a node that
    restarts under its name takes its tables back at once). None if
    another node holds it. The token goes up by one either way."""
    row = (
        await s.execute(
            select(
                _LEASES.c.node, _LEASES.c.token, _LEASES.c.handoff_t, db_time() > _LEASES.c.expires
            )
            .where(_LEASES.c.table_id == table_id)
            .with_for_update()
        )
    ).first()
    if row is None:
        inserted = await s.execute(
            _insert(s)
            .values(table_id=table_id, node=node, token=1, expires=db_time() + seconds)
            .on_conflict_do_nothing(index_elements=["table_id"])
        )
        return Lease(table_id, 1) if rowcount(inserted) == 1 else None
    holder, token, handoff_t, expired = row
    if holder != node and not expired:
        return None
    await s.execute(
        update(_LEASES)
        .where(_LEASES.c.table_id == table_id)
        .values(node=node, token=token + 1, expires=db_time() + seconds, handoff_t=None)
    )
    return Lease(table_id, token + 1, handoff_t)


async def renew(s: AsyncSession, node: str, held: Mapping[int, int], seconds: float) -> set[int]:
    """Extend the leases `node` holds, table id -> token, by `seconds` from
    now; the tables whose lease it still holds (the rest went to others)."""
    if not held:
        return set()
    rows = await s.execute(
        update(_LEASES)
        .where(
            _LEASES.c.node == node, tuple_(_LEASES.c.table_id, _LEASES.c.token).in_(_pairs(s, held))
        )
        .values(expires=db_time() + seconds)
        .returning(_LEASES.c.table_id)
    )
    return set(rows.scalars())


def _pairs(s: AsyncSession, held: Mapping[int, int]) -> Select[tuple[int, int]]:
    """The (table id, token) pairs of `held` as rows, in one or two bound
    values: a node renews a thousand leases twice a second, and an `IN` of
    2,000 values cost SQLAlchemy 15-23 ms on the loop to expand each time."""
    if s.get_bind().dialect.name == "postgresql":
        arrays = (
            func.unnest(
                bindparam("ids", list(held), type_=postgresql.ARRAY(BigInteger)),
                bindparam("tokens", list(held.values()), type_=postgresql.ARRAY(BigInteger)),
            )
            .table_valued("table_id", "token")
            .render_derived()
        )
        return select(arrays.c.table_id, arrays.c.token)
    each = func.json_each(bindparam("held", json.dumps(list(held.items())))).table_valued("value")
    return select(func.json_extract(each.c.value, "$[0]"), func.json_extract(each.c.value, "$[1]"))


async def release(s: AsyncSession, table_id: int, token: int, handoff_t: float | None) -> bool:
    """Give the lease up at once (any node may take it now), noting the
    game time the table stopped at. False if it was not held any more.
    The token goes up: a renewal already under way with the old one (the
    node's lease keeper runs beside its hand-overs) must not hold the
    lease again for a whole period while nobody runs the table."""
    result = await s.execute(
        update(_LEASES)
        .where(_LEASES.c.table_id == table_id, _LEASES.c.token == token)
        .values(expires=0.0, handoff_t=handoff_t, token=_LEASES.c.token + 1)
    )
    return rowcount(result) == 1


async def claimable(s: AsyncSession, node: str, restart: bool = True) -> list[tuple[int, bool]]:
    """The playing tables `node` may take: those nobody holds a lease on
    (never taken, expired or released), and on a `restart` those `node`
    holds (it restarted under its name); each with whether it is `node`'s
    own. A running node looks with `restart` off: its own live leases are
    the tables it runs, and a table started in the last START_GRACE seconds
    is left to the node that started it (which takes its lease right after
    the commit, and which its players' sockets come to)."""
    mine = _LEASES.c.node == node
    unleased: ColumnElement[bool] = _LEASES.c.table_id.is_(None)
    if not restart:
        started = GameTable.started_at
        unleased &= started.is_(None) | (started < utcnow() - timedelta(seconds=START_GRACE))
    rows = await s.execute(
        select(GameTable.id, mine)
        .outerjoin(_LEASES, _LEASES.c.table_id == GameTable.id)
        .where(
            GameTable.status == "playing",
            or_(unleased, _LEASES.c.expires < db_time(), *([mine] if restart else [])),
        )
        .order_by(GameTable.id)
    )
    return [(table_id, bool(ours)) for table_id, ours in rows.tuples()]


async def owner(s: AsyncSession, table_id: int) -> tuple[str, str | None] | None:
    """The node holding table `table_id`'s lease now, and its URL."""
    row = (
        await s.execute(
            select(_LEASES.c.node, _NODES.c.url)
            .outerjoin(_NODES, _NODES.c.name == _LEASES.c.node)
            .where(_LEASES.c.table_id == table_id, _LEASES.c.expires >= db_time())
        )
    ).first()
    return None if row is None else (row[0], row[1])


async def heartbeat(s: AsyncSession, node: str, url: str | None, draining: bool) -> None:
    """`node` is alive (its row's `seen` is now)."""
    values = {"name": node, "url": url, "seen": db_time(), "draining": draining}
    dialect = s.get_bind().dialect.name
    insert = (postgresql if dialect == "postgresql" else sqlite).insert(_NODES).values(values)
    await s.execute(
        insert.on_conflict_do_update(
            index_elements=["name"], set_={"url": url, "seen": db_time(), "draining": draining}
        )
    )


async def live_nodes(s: AsyncSession, within: float) -> int:
    """How many nodes, draining ones aside, were seen in the last `within` seconds."""
    rows = await s.scalars(
        select(_NODES.c.name).where(
            _NODES.c.seen > db_time() - within, _NODES.c.draining.is_(False)
        )
    )
    return len(list(rows))


async def fenced_out(s: AsyncSession | AsyncConnection, tokens: Mapping[int, int]) -> set[int]:
    """In a writing transaction: the tables of `tokens` (table id -> token)
    whose lease has another token now. The others' lease rows stay share
    locked until the transaction ends, so nobody takes them meanwhile."""
    rows = await s.execute(
        select(_LEASES.c.table_id, _LEASES.c.token)
        .where(_LEASES.c.table_id.in_(list(tokens)))
        .with_for_update(read=True)
    )
    held = {table_id for table_id, token in rows.tuples() if tokens[table_id] == token}
    return set(tokens) - held


#: The record writer's statement on Postgres (asyncpg, one round trip): the
#: lines of the tables whose token matches, under a share lock on their
#: leases; it returns those tables.
_APPEND_FENCED_SQL = f"""
WITH held AS (
    SELECT l.table_id FROM {_LEASES.name} AS l
    JOIN unnest($5::int[], $6::bigint[]) AS f(table_id, token)
      ON l.table_id = f.table_id AND l.token = f.token
    FOR SHARE OF l
), written AS (
    INSERT INTO {TableRecord.__tablename__} (table_id, line, text, client_id)
    SELECT r.table_id, r.line, r.text, r.client_id
    FROM unnest($1::int[], $2::int[], $3::text[], $4::text[]) AS r(table_id, line, text, client_id)
    WHERE r.table_id IN (SELECT table_id FROM held)
)
SELECT table_id FROM held
"""


async def append_fenced_asyncpg(
    connection: Any, lines: Sequence[tuple[int, RecordLine]], tokens: Mapping[int, int]
) -> set[int]:
    """Append `lines` (table id, line) on a bare asyncpg connection, each
    table's only if its lease has its token in `tokens`; atomic (one
    statement). Returns the tables whose lines were written."""
    rows = await connection.fetch(
        _APPEND_FENCED_SQL,
        [table_id for table_id, _ in lines],
        [r.line for _, r in lines],
        [r.text for _, r in lines],
        [r.client_id for _, r in lines],
        list(tokens),
        list(tokens.values()),
    )
    return {row[0] for row in rows}
