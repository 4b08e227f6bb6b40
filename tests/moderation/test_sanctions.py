"""Sanctions at the lobby: a suspended player is kept from ranked tables
until the suspension ends, a banned one from every table (A1)."""
from __future__ import annotations

from datetime import datetime, timedelta

from omerta.moderation import sanctions
from omerta.store import tables, users
from omerta.store.models import utcnow

from .world import moderator


async def _table(creator, ruleset="classic") -> int:
    reply = await creator.post("/api/tables", {"ruleset": ruleset})
    assert reply.status == 201, reply.body
    return reply.body["table"]["id"]


async def _sanction(mod, user, kind, reason, days=None):
    body = {"user": user, "kind": kind, "reason": reason}
    reply = await mod.post("/api/moderation/sanctions", body if days is None else {**body, "days": days})
    assert reply.status == 201, reply.body
    return reply.body["sanction"]


async def test_A1_a_suspended_player_is_refused_a_ranked_seat_with_the_end_date_and_reason(harness):
    mod = await moderator(harness)
    bob = await harness.player("bob")
    classic, city = await _table(mod), await _table(mod, "city")
    given = await _sanction(mod, "bob", "suspension", "abusive chat in game 12", days=7)
    ends = datetime.fromisoformat(given["ends_at"])
    assert ends - datetime.fromisoformat(given["starts_at"]) == timedelta(days=7)
    refused = await bob.post(f"/api/tables/{classic}/sit")
    assert refused.status == 403
    assert "suspended" in refused.body["error"] and "abusive chat in game 12" in refused.body["error"]
    assert f"until {ends:%Y-%m-%d %H:%M} UTC" in refused.body["error"]
    assert (await bob.post(f"/api/tables/{city}/sit")).status == 200    # city mode is unranked
    assert (await bob.post(f"/api/tables/{city}/stand")).status == 200
    lifted = await mod.post(f"/api/moderation/sanctions/{given['id']}/lift", {"reason": "appeal granted"})
    assert lifted.status == 200
    assert (await bob.post(f"/api/tables/{classic}/sit")).status == 200


async def test_a_banned_player_is_refused_every_table_and_told_why(harness):
    mod = await moderator(harness)
    eve = await harness.player("eve")
    await _sanction(mod, "eve", "ban", "match fixing")
    for table in (await _table(mod), await _table(mod, "city")):
        refused = await eve.post(f"/api/tables/{table}/sit")
        assert refused.status == 403
        assert "banned" in refused.body["error"] and "match fixing" in refused.body["error"]


async def test_a_warning_keeps_nobody_from_a_table(harness):
    mod = await moderator(harness)
    ann = await harness.player("ann")
    await _sanction(mod, "ann", "warning", "mind your language")
    assert (await ann.post(f"/api/tables/{await _table(mod)}/sit")).status == 200


async def test_a_suspension_ends_by_itself_when_its_days_are_over(harness):
    mod = await moderator(harness)
    await harness.player("bob")
    table_id = await _table(mod)
    await _sanction(mod, "bob", "suspension", "spam", days=2)
    async with harness.db.begin() as s:
        table = await tables.get_table(s, table_id)
        bob = (await users.user_by_name(s, "bob")).id
        assert await sanctions.refusal(s, bob, table, utcnow() + timedelta(days=1)) is not None
        assert await sanctions.refusal(s, bob, table, utcnow() + timedelta(days=2, minutes=1)) is None
