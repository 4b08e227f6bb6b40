"""Sanctions in force, and the lobby's question: may this player sit here?

A suspension keeps a player from ranked tables until it ends; a ban keeps
them from every table, practice and city mode included. A warning is only
on the record. Moderators give and lift sanctions (decisions.py)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from .. import rulesets
from ..store.models import GameTable, Sanction, utcnow

KINDS = ("warning", "suspension", "ban")


def in_force(now: datetime):
    """The SQL condition of a sanction that keeps its player from a table now."""
    return (Sanction.kind.in_(("suspension", "ban")), Sanction.lifted_at.is_(None),
            Sanction.starts_at <= now, or_(Sanction.ends_at.is_(None), Sanction.ends_at > now))


async def active(s: AsyncSession, user_id: int, now: datetime | None = None) -> list[Sanction]:
    """The user's suspensions and bans in force, bans first, then the
    suspension that ends last."""
    rows = (await s.execute(select(Sanction).where(Sanction.user_id == user_id,
                                                   *in_force(now or utcnow())))).scalars().all()
    return sorted(rows, key=lambda x: (x.kind != "ban", -(x.ends_at or x.starts_at).timestamp()))


def _when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


async def refusal(s: AsyncSession, user_id: int, table: GameTable,
                  now: datetime | None = None) -> str | None:
    """Why `user_id` may not sit at `table` (loaded with its seats), or None.
    The table counts as ranked if its game would award rating as it stands
    (A1: classic with no bots seated)."""
    found = await active(s, user_id, now)
    if not found:
        return None
    first = found[0]
    if first.kind == "ban":
        return (f"you are banned from every table since {_when(first.starts_at)}:"
                f" {first.reason}")
    rules = rulesets.get(table.ruleset)
    bots = frozenset(seat.seat for seat in table.seats if seat.is_bot)
    if not rules.ranked(rules.parse_settings(table.settings), bots):
        return None
    return (f"you are suspended from ranked tables until {_when(first.ends_at)}:"
            f" {first.reason}")
