"""The audit log: one entry per moderator action, append-only.

This module only adds and reads entries; there is deliberately no way to
change or remove one, and the database refuses UPDATE and DELETE on the
table (triggers from migration 0004)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from ..store.models import AuditEntry, User, utcnow


async def append(
    s: AsyncSession,
    moderator_id: int | None,
    action: str,
    reason: str,
    *,
    user_id: int | None = None,
    case_id: int | None = None,
    details: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> int:
    entry = AuditEntry(
        at=now or utcnow(),
        moderator_id=moderator_id,
        action=action,
        user_id=user_id,
        case_id=case_id,
        reason=reason,
        details=details or {},
    )
    s.add(entry)
    await s.flush()
    return entry.id


@dataclass(frozen=True, slots=True)
class Entry:
    id: int
    at: datetime
    moderator: str | None  # None: the server operator, at the command line
    action: str
    user: str | None
    case: int | None
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


def _query():
    moderator, subject = aliased(User), aliased(User)
    return (
        select(AuditEntry, moderator.username, subject.username)
        .outerjoin(moderator, moderator.id == AuditEntry.moderator_id)
        .outerjoin(subject, subject.id == AuditEntry.user_id)
    )


def _entries(rows) -> list[Entry]:
    return [
        Entry(e.id, e.at, moderator, e.action, subject, e.case_id, e.reason, e.details)
        for e, moderator, subject in rows.tuples()
    ]


async def page(s: AsyncSession, number: int, per_page: int) -> tuple[list[Entry], int]:
    """Newest first."""
    total = await s.scalar(select(func.count()).select_from(AuditEntry))
    rows = await s.execute(
        _query().order_by(AuditEntry.id.desc()).offset((number - 1) * per_page).limit(per_page)
    )
    return _entries(rows), total or 0


async def of_case(s: AsyncSession, case_id: int) -> list[Entry]:
    """A case's decisions and sanctions, oldest first."""
    return _entries(
        await s.execute(_query().where(AuditEntry.case_id == case_id).order_by(AuditEntry.id))
    )
