"""Sanctions in force, and the lobby's questions: may this player sit
here, create a table, register from this address?

A suspension keeps a player from ranked tables until it ends; a ban keeps
them from every table, practice and city mode included, and from creating
tables. A warning is only on the record. Moderators give and lift
sanctions (decisions.py); a sanction takes effect at once: the player
loses every seat it keeps them from at tables not started yet (`unseat`).
A game already being played goes on to its end (its other players keep
their game; a moderator can void its result afterwards).

A ban also closes the addresses the banned account used lately to new
accounts (`banned_at_address`), so it is not undone by registering again."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..store import tables
from ..store.models import AccountAddress, GameTable, Sanction, Seat, utcnow

KINDS = ("warning", "suspension", "ban")


def in_force(now: datetime):
    """The SQL condition of a sanction that keeps its player from a table now."""
    return (
        Sanction.kind.in_(("suspension", "ban")),
        Sanction.lifted_at.is_(None),
        Sanction.starts_at <= now,
        or_(Sanction.ends_at.is_(None), Sanction.ends_at > now),
    )


async def active(s: AsyncSession, user_id: int, now: datetime | None = None) -> list[Sanction]:
    """The user's suspensions and bans in force, bans first, then the
    suspension that ends last."""
    rows = (
        (
            await s.execute(
                select(Sanction).where(Sanction.user_id == user_id, *in_force(now or utcnow()))
            )
        )
        .scalars()
        .all()
    )
    return sorted(rows, key=lambda x: (x.kind != "ban", -(x.ends_at or x.starts_at).timestamp()))


def _when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


async def refusal(
    s: AsyncSession, user_id: int, table: GameTable, now: datetime | None = None
) -> str | None:
    """Why `user_id` may not sit at `table` (loaded with its seats), or None.
    The table counts as ranked if its game would award rating as it stands
    (A1: classic with no bots seated)."""
    found = await active(s, user_id, now)
    if not found:
        return None
    first = found[0]
    if first.kind == "ban":
        return f"you are banned from every table since {_when(first.starts_at)}: {first.reason}"
    if not tables.ranked(table):
        return None
    return _suspended(first)


def _suspended(sanction: Sanction) -> str:
    assert sanction.ends_at is not None
    return (
        f"you are suspended from ranked tables until {_when(sanction.ends_at)}: {sanction.reason}"
    )


async def creation_refusal(
    s: AsyncSession,
    user_id: int,
    ruleset: str,
    settings: dict[str, Any],
    now: datetime | None = None,
) -> str | None:
    """Why `user_id` may not create a table with these settings, or None:
    a ban forbids every table, a suspension a table that would be ranked."""
    found = await active(s, user_id, now)
    if not found:
        return None
    first = found[0]
    if first.kind == "ban":
        return _banned_creator(first)
    if not tables.ranks(ruleset, settings):
        return None
    return _suspended(first)


async def ban_refusal(s: AsyncSession, user_id: int, now: datetime | None = None) -> str | None:
    """Why `user_id` may not start a game at a table they created (a ban), or None."""
    found = await active(s, user_id, now)
    return _banned_creator(found[0]) if found and found[0].kind == "ban" else None


def _banned_creator(ban: Sanction) -> str:
    return f"you are banned since {_when(ban.starts_at)} and cannot create tables: {ban.reason}"


async def unseat(s: AsyncSession, user_id: int, now: datetime | None = None) -> list[int]:
    """Take `user_id` out of every table not started yet that their
    sanctions keep them from; returns those tables' ids."""
    found = (
        (
            await s.execute(
                select(Seat.table_id)
                .join(GameTable, GameTable.id == Seat.table_id)
                .where(Seat.user_id == user_id, GameTable.status == "open")
            )
        )
        .scalars()
        .all()
    )
    left = []
    for table_id in found:
        table = await tables.get_table(s, table_id, lock=True)
        if table is None or table.status != "open":
            continue
        if await refusal(s, user_id, table, now):
            await tables.remove_seat(s, table_id, user_id)
            left.append(table_id)
    return left


async def banned_at_address(
    s: AsyncSession, address: str, within: timedelta, now: datetime | None = None
) -> bool:
    """Whether an account banned now was seen at `address` within `within`."""
    now = now or utcnow()
    banned = select(Sanction.user_id).where(Sanction.kind == "ban", *in_force(now))
    return (
        await s.scalar(
            select(AccountAddress.user_id)
            .where(
                AccountAddress.address == address[:64],
                AccountAddress.last_seen >= now - within,
                AccountAddress.user_id.in_(banned),
            )
            .limit(1)
        )
        is not None
    )
