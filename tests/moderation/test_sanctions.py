"""Sanctions at the lobby: a suspended player is kept from ranked tables
until the suspension ends, a banned one from every table (A1); a sanction
takes effect at once (issue 12, finding 6)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from omerta.moderation import sanctions
from omerta.server.limits import UNLIMITED
from omerta.store import tables, users
from omerta.store.models import Sanction, utcnow
from tests.server.conftest import PASSWORD

from .world import moderator


async def _table(creator, ruleset="classic") -> int:
    reply = await creator.post("/api/tables", {"ruleset": ruleset})
    assert reply.status == 201, reply.body
    return reply.body["table"]["id"]


async def _sanction(mod, user, kind, reason, days=None):
    body = {"user": user, "kind": kind, "reason": reason}
    reply = await mod.post(
        "/api/moderation/sanctions", body if days is None else {**body, "days": days}
    )
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
    assert (
        "suspended" in refused.body["error"] and "abusive chat in game 12" in refused.body["error"]
    )
    assert f"until {ends:%Y-%m-%d %H:%M} UTC" in refused.body["error"]
    assert (await bob.post(f"/api/tables/{city}/sit")).status == 200  # city mode is unranked
    assert (await bob.post(f"/api/tables/{city}/stand")).status == 200
    lifted = await mod.post(
        f"/api/moderation/sanctions/{given['id']}/lift", {"reason": "appeal granted"}
    )
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
        assert (
            await sanctions.refusal(s, bob, table, utcnow() + timedelta(days=2, minutes=1)) is None
        )


async def _seated(client, table_id: int) -> list[str | None]:
    return [
        seat["user"]
        for seat in (await client.get(f"/api/tables/{table_id}")).body["table"]["seats"]
    ]


async def test_a_ban_takes_the_player_out_of_an_open_table_at_once(harness):
    mod = await moderator(harness)
    eve, ann = await harness.player("eve"), await harness.player("ann")
    table = await _table(mod)
    assert (await eve.post(f"/api/tables/{table}/sit")).status == 200
    assert (await ann.post(f"/api/tables/{table}/sit")).status == 200
    await _sanction(mod, "eve", "ban", "match fixing")
    assert await _seated(mod, table) == ["ann"]
    entry = (await mod.get("/api/moderation/audit")).body["entries"][0]
    assert entry["details"]["unseated_from"] == [table]


async def test_a_suspension_takes_the_player_out_of_a_ranked_table_but_not_a_practice_one(harness):
    mod, bob = await moderator(harness), await harness.player("bob")
    ranked, practice = await _table(mod), await _table(mod, "city")
    assert (await bob.post(f"/api/tables/{practice}/sit")).status == 200
    await _sanction(mod, "bob", "suspension", "spam", days=3)
    assert await _seated(mod, practice) == ["bob"]
    assert (await bob.post(f"/api/tables/{practice}/stand")).status == 200
    async with harness.db.begin() as s:  # seated before the suspension, as a race would leave it
        table = await tables.get_table(s, ranked, lock=True)
        await tables.add_seats(s, table, [(await users.user_by_name(s, "bob")).id])
    await _sanction(mod, "bob", "suspension", "spam again", days=3)
    assert await _seated(mod, ranked) == []


async def test_a_table_never_starts_with_a_player_a_sanction_keeps_from_it(harness):
    mod = await moderator(harness)
    players = [await harness.player(f"pl{i}") for i in range(10)]
    table = await _table(mod)
    for p in players[:9]:
        assert (await p.post(f"/api/tables/{table}/sit")).status == 200
    async with harness.db.begin() as s:  # a ban written while the table filled
        user = await users.user_by_name(s, "pl3")
        s.add(Sanction(user_id=user.id, kind="ban", reason="cheating", moderator_id=user.id))
    last = await players[9].post(f"/api/tables/{table}/sit")
    assert last.status == 200 and last.body["table"]["status"] == "open"
    assert "pl3" not in await _seated(mod, table) and len(await _seated(mod, table)) == 9
    assert harness.runtime.started == []


async def test_a_banned_player_cannot_create_a_table_and_a_suspended_one_only_practice(harness):
    mod, eve, bob = (
        await moderator(harness),
        await harness.player("eve"),
        await harness.player("bob"),
    )
    await _sanction(mod, "eve", "ban", "match fixing")
    await _sanction(mod, "bob", "suspension", "spam", days=3)
    for ruleset in ("classic", "city"):
        refused = await eve.post("/api/tables", {"ruleset": ruleset})
        assert refused.status == 403 and "banned" in refused.body["error"]
    async with harness.db.begin() as s:  # a table eve created before her ban
        earlier = await tables.create_table(
            s, (await users.user_by_name(s, "eve")).id, "city", {}, 1
        )
    refused = await eve.post(f"/api/tables/{earlier}/bots")
    assert refused.status == 403 and "banned" in refused.body["error"]
    refused = await bob.post("/api/tables", {"ruleset": "classic"})
    assert refused.status == 403 and "suspended" in refused.body["error"]
    assert (await bob.post("/api/tables", {"ruleset": "city"})).status == 201


def _from(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


@pytest.mark.parametrize("config_overrides", [{"limits": replace(UNLIMITED, forwarded_hops=1)}])
async def test_a_banned_players_address_cannot_register_a_new_account(harness):
    mod = await moderator(harness)
    eve = harness.client()
    body = {"username": "eve", "password": PASSWORD}
    assert (await eve.post("/api/register", body, headers=_from("203.0.113.5"))).status == 201
    await _sanction(mod, "eve", "ban", "match fixing")
    again = await harness.client().post(
        "/api/register", {**body, "username": "eve2"}, headers=_from("203.0.113.5")
    )
    assert again.status == 403 and "banned" in again.body["error"]
    elsewhere = await harness.client().post(
        "/api/register", {**body, "username": "newbie"}, headers=_from("198.51.100.7")
    )
    assert elsewhere.status == 201
