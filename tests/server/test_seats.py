"""One live seat per account, kept by the database (issue 12, finding 5)."""

from __future__ import annotations

import asyncio

import pytest

from omerta.store import tables, users

from .test_lobby import new_table


async def test_concurrent_sit_requests_at_many_tables_give_one_account_one_seat(harness):
    alice = await harness.player("alice")
    creators = [await harness.player(f"host{i}") for i in range(8)]
    opened = [await new_table(host) for host in creators]
    for round_ in range(3):
        replies = await asyncio.gather(*(alice.post(f"/api/tables/{t['id']}/sit") for t in opened))
        assert sorted(r.status for r in replies) == [200] + [409] * 7, [r.body for r in replies]
        assert all(
            "sit at table" in r.body["error"] or "stood up" in r.body["error"]
            for r in replies
            if r.status == 409
        )
        seated = [
            t["id"]
            for t in opened
            if any(
                s["user"] == "alice"
                for s in (await alice.get(f"/api/tables/{t['id']}")).body["table"]["seats"]
            )
        ]
        assert len(seated) == 1, f"round {round_}: alice sits at {seated}"
        assert (await alice.post(f"/api/tables/{seated[0]}/stand")).status == 200


async def test_the_database_refuses_a_second_live_seat_whoever_asks(harness):
    alice = await harness.player("alice")
    first, second = await new_table(alice), await new_table(alice)
    async with harness.db.begin() as s:
        user = await users.user_by_name(s, "alice")
        await tables.add_seats(s, await tables.get_table(s, first["id"]), [user.id])
    with pytest.raises(tables.AlreadySeated):
        async with harness.db.begin() as s:
            await tables.add_seats(s, await tables.get_table(s, second["id"]), [user.id])


async def test_a_seat_at_an_ended_table_does_not_count(harness):
    alice = await harness.player("alice")
    first, second = await new_table(alice), await new_table(alice)
    async with harness.db.begin() as s:
        user = await users.user_by_name(s, "alice")
        await tables.add_seats(s, await tables.get_table(s, first["id"]), [user.id])
        await tables.end_table(s, first["id"], "abandoned")
    assert (await alice.post(f"/api/tables/{second['id']}/sit")).status == 200
    async with harness.db.begin() as s:
        assert await tables.seated_at(s, user.id) == second["id"]
