"""The audit log: append-only at the database level, and readable by
moderators, newest first, page by page."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from omerta.moderation import audit
from omerta.moderation.admin import revoke_moderator
from omerta.store.models import AuditEntry

from .world import moderator


async def _count(h) -> int:
    async with h.db.begin() as s:
        return await s.scalar(select(func.count()).select_from(AuditEntry))


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE moderation_audit SET reason = 'nothing happened'",
        "DELETE FROM moderation_audit",
    ],
)
async def test_the_database_refuses_to_change_or_delete_an_audit_entry(harness, statement):
    await moderator(harness)  # the grant is the first entry
    async with harness.db.begin() as s:
        await audit.append(s, None, "note", "a second entry")
    with pytest.raises(DBAPIError, match="append-only"):
        async with harness.db.begin() as s:
            await s.execute(text(statement))
    async with harness.db.begin() as s:
        reasons = (
            (await s.execute(select(AuditEntry.reason).order_by(AuditEntry.id))).scalars().all()
        )
    assert reasons == ["by the server operator", "a second entry"]


async def test_the_audit_log_shows_who_did_what_to_whom_why_and_when_newest_first(harness):
    mod = await moderator(harness)
    await harness.player("bob")
    for n in range(3):
        reply = await mod.post(
            "/api/moderation/sanctions",
            {"user": "bob", "kind": "warning", "reason": f"warning {n}"},
        )
        assert reply.status == 201
    await revoke_moderator(harness.db, "moddy")
    judge = await moderator(harness, "judge")
    first = (await judge.get("/api/moderation/audit?per_page=2")).body
    second = (await judge.get("/api/moderation/audit?per_page=2&page=2")).body
    assert first["total"] == second["total"] == 6
    entries = first["entries"] + second["entries"]
    assert [(e["action"], e["moderator"], e["user"]) for e in entries] == [
        ("grant_moderator", None, "judge"),
        ("revoke_moderator", None, "moddy"),
        ("sanction", "moddy", "bob"),
        ("sanction", "moddy", "bob"),
    ]
    assert entries[2]["reason"] == "warning 2" and entries[2]["details"]["kind"] == "warning"
    assert entries[2]["at"] >= entries[3]["at"]
    assert (await judge.get("/api/moderation/audit?page=0")).status == 400
