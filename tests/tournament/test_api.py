"""The tournament API (docs/api.md, docs/tournaments.md) on SQLite and
Postgres: a director creates a tournament, players register and check in,
the schedule is generated, swapped and replaced before a round, the round
starts its tables together with bots for absentees, standings and exports
come from the stored games."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from omerta.moderation.admin import grant_director, grant_moderator
from omerta.store import tables, users
from omerta.store.models import AuditEntry, TournamentPlayer
from omerta.tournament import rounds

FUTURE = (datetime.now(UTC) + timedelta(days=1)).isoformat()


async def director(h, name: str = "boss"):
    client = await h.player(name)
    await grant_director(h.db, name)
    return client


def body(rounds_: int = 2, tables_: int = 2, **more):
    return {
        "name": "Autumn cup",
        "rounds": rounds_,
        "tables": tables_,
        "start": FUTURE,
        "every_minutes": 60,
        "seed": 7,
        **more,
    }


async def test_only_a_director_creates_a_tournament_best_move_on_default_scoring_or_says_why_not(
    harness,
):
    player, boss = await harness.player("bob"), await director(harness)
    refused = await player.post("/api/tournaments", body())
    assert refused.status == 403 and "director" in refused.body["error"]
    async with harness.db.begin() as s:  # the grant is audited, as a moderator's is
        actions = await s.scalars(select(AuditEntry.action))
        assert list(actions) == ["grant_director"]
    created = await boss.post("/api/tournaments", body())
    assert created.status == 201, created.body
    t = created.body["tournament"]
    assert t["settings"]["best_move"] is True
    assert t["scoring"] == {
        "win": 1.0,
        "best_move_two": 0.25,
        "best_move_three": 0.5,
        "removal": -0.5,
        "technical_defeat": -1.0,
        "first_killed": 0.25,
    }
    assert [r["number"] for r in t["schedule"]] == [1, 2]
    listed = await player.get("/api/tournaments")
    assert listed.body["can_direct"] is False
    assert listed.body["tournaments"][0]["name"] == "Autumn cup"
    # Bad tournaments are refused with the reason, and nothing is created.
    for bad, words in [
        (body(rounds_=0), "'rounds'"),
        (body(tables_=True), "'tables'"),
        ({**body(), "start": "tomorrow"}, "ISO 8601"),
        ({**body(), "start": "2030-01-01T10:00:00"}, "zone"),
        (body(scoring={"win": "a lot"}), "must be a number"),
        (body(settings={"voting": "loud"}), "voting"),
        ({**body(), "starts": [FUTURE]}, "list of 2 times"),
        ({**body(), "name": ""}, "name"),
    ]:
        reply = await boss.post("/api/tournaments", bad)
        assert reply.status == 400 and words in reply.body["error"], (bad, reply.body)
    assert len((await boss.get("/api/tournaments")).body["tournaments"]) == 1


async def _tournament_with_players(h, n: int = 21, tables_: int = 2, checked_in: bool = False):
    """The director, the tournament's id and one signed-in player, who
    registered through the API; the other n - 1 are put in the store."""
    boss = await director(h)
    t = (await boss.post("/api/tournaments", body(tables_=tables_))).body["tournament"]
    player = await h.player("p00")
    reply = await player.post(f"/api/tournaments/{t['id']}/register")
    assert reply.status == 200, reply.body
    async with h.db.begin() as s:
        for i in range(1, n):
            user = await users.add_user(s, f"p{i:02}", "!")
            s.add(
                TournamentPlayer(
                    tournament_id=t["id"],
                    user_id=user.id,
                    checked_in_at=datetime.now(UTC) if checked_in else None,
                )
            )
    return boss, t["id"], player


async def test_the_director_generates_the_schedule_players_see_their_seats_and_a_swap_its_cost(
    harness,
):
    boss, tid, player = await _tournament_with_players(harness)
    early = await player.post(f"/api/tournaments/{tid}/schedule")
    assert early.status == 403
    nobody = await boss.post(f"/api/tournaments/{tid}/invite", {"username": "ghost"})
    assert nobody.status == 404
    await harness.player("guest")
    invited = await boss.post(f"/api/tournaments/{tid}/invite", {"username": "guest"})
    guest = next(p for p in invited.body["tournament"]["players"] if p["username"] == "guest")
    assert guest["invited"] is True
    made = await boss.post(f"/api/tournaments/{tid}/schedule")
    assert made.status == 200, made.body
    t = made.body["tournament"]
    assert t["status"] == "scheduled" and t["measures"]["games_min"] >= 1
    seated = [s["user_id"] for r in t["schedule"] for table in r["tables"] for s in table["seats"]]
    assert len(seated) == 2 * 2 * 10
    me = (await player.get(f"/api/tournaments/{tid}")).body["tournament"]["me"]
    assert me["registered"] and all(1 <= s["seat"] <= 10 for s in me["seats"])
    again = await boss.post(f"/api/tournaments/{tid}/invite", {"username": "p01"})
    assert again.status == 409 and "registration is closed" in again.body["error"]
    gone = await player.post(f"/api/tournaments/{tid}/withdraw")
    assert gone.status == 409 and "replace you" in gone.body["error"]
    late = await (await harness.player("late")).post(f"/api/tournaments/{tid}/register")
    assert late.status == 409 and "registration is closed" in late.body["error"]
    # A swap says its cost, and is applied only when asked.
    first, second = t["schedule"][0]["tables"]
    a, b = first["seats"][0]["user_id"], second["seats"][0]["user_id"]
    asked = await boss.post(f"/api/tournaments/{tid}/swap", {"round": 1, "a": a, "b": b})
    assert asked.status == 200 and asked.body["applied"] is False
    assert {"before", "after", "changed"} <= set(asked.body["cost"])
    assert asked.body["tournament"]["schedule"][0]["tables"][0]["seats"][0]["user_id"] == a
    done = await boss.post(
        f"/api/tournaments/{tid}/swap", {"round": 1, "a": a, "b": b, "apply": True}
    )
    assert done.body["tournament"]["schedule"][0]["tables"][0]["seats"][0]["user_id"] == b
    stranger = await player.post(f"/api/tournaments/{tid}/swap", {"round": 1, "a": a, "b": b})
    assert stranger.status == 403
    nobody = await boss.post(f"/api/tournaments/{tid}/swap", {"round": 9, "a": a, "b": b})
    assert nobody.status == 400


async def test_a_round_starts_its_tables_together_and_a_bot_plays_for_an_absentee(harness):
    # Everybody but p00 has checked in: p00 is the absentee.
    boss, tid, player = await _tournament_with_players(harness, n=20, checked_in=True)
    await boss.post(f"/api/tournaments/{tid}/schedule")
    # A moderator puts a bot in for one player before the round.
    mod = await harness.player("moddy")
    await grant_moderator(harness.db, "moddy")
    absent_id = (await player.get("/api/me")).body["user"]["id"]
    t = (await boss.get(f"/api/tournaments/{tid}")).body["tournament"]
    seats = t["schedule"][0]["tables"][1]["seats"]
    replaced = next(s["user_id"] for s in seats if s["user_id"] != absent_id)
    reply = await mod.post(
        f"/api/tournaments/{tid}/replace", {"round": 1, "player": replaced, "by": None}
    )
    assert reply.status == 200, reply.body
    # The director puts an outsider in for another (no check-in asked of them).
    async with harness.db.begin() as s:
        outsider = (await users.add_user(s, "sub", "!")).id
    other = next(s["user_id"] for s in seats if s["user_id"] not in (absent_id, replaced))
    subbed = await boss.post(
        f"/api/tournaments/{tid}/replace", {"round": 1, "player": other, "by": outsider}
    )
    assert subbed.status == 200, subbed.body
    twice = await boss.post(
        f"/api/tournaments/{tid}/replace", {"round": 1, "player": replaced, "by": outsider}
    )
    assert twice.status == 409 and "already has a seat" in twice.body["error"]
    # The director starts round 1 now: the server's round starter wakes and
    # hands both tables to the runtime.
    now = await boss.post(f"/api/tournaments/{tid}/rounds/1/start")
    assert now.status == 200, now.body
    for _ in range(200):
        if len(harness.runtime.started) == 2:
            break
        await asyncio.sleep(0.025)
    started = harness.runtime.started
    assert len(started) == 2
    again = await boss.post(f"/api/tournaments/{tid}/rounds/1/start")
    assert again.status == 409 and "does not wait" in again.body["error"]
    async with harness.db.begin() as s:  # round 2 waits: the tournament is not over
        assert await rounds.store.running_with_every_round_started(s) == []
        row = await rounds.store.get(s, tid)
        assert row is not None and row.status == "running"
    t = (await boss.get(f"/api/tournaments/{tid}")).body["tournament"]
    assert t["status"] == "running" and t["schedule"][0]["started_at"]
    async with harness.db.begin() as s:
        for table_id, row in zip(started, t["schedule"][0]["tables"]):
            table = await tables.get_table(s, table_id)
            assert table is not None and table.status == "playing"
            for seat, planned in zip(table.seats, row["seats"]):
                expected = (
                    None if planned["absent"] or planned["user_id"] is None else planned["user_id"]
                )
                assert seat.user_id == expected
                assert seat.stands_in == planned["absent"]  # A1: a bot for an absentee
            # Stand-ins leave a table ranked; the moderator's bot makes one practice.
            director_bots = any(planned["user_id"] is None for planned in row["seats"])
            assert tables.ranked(table) == (not director_bots)
    absentees = [s for row in t["schedule"][0]["tables"] for s in row["seats"] if s["absent"]]
    assert [s["user_id"] for s in absentees] == [absent_id]
    seated = [s["user_id"] for row in t["schedule"][0]["tables"] for s in row["seats"]]
    assert outsider in seated and other not in seated and replaced not in seated
    # The exports: one CSV line per scheduled seat; JSON is the tournament.
    csv = await player.get(f"/api/tournaments/{tid}/export.csv")
    assert csv.status == 200 and csv.response.content_type == "text/csv"
    lines = csv.body.splitlines()
    assert lines[0].startswith("round,table,table_id,seat,user_id,username,absent")
    assert len(lines) == 1 + 2 * 2 * 10
    exported = await player.get(f"/api/tournaments/{tid}/export.json")
    assert exported.body["tournament"]["id"] == tid and "me" not in exported.body["tournament"]
    standings = (await player.get(f"/api/tournaments/{tid}/standings")).body
    assert len(standings["standings"]) == 20 and standings["by_round"] == []
    late = await boss.post(
        f"/api/tournaments/{tid}/swap", {"round": 1, "a": absent_id, "b": replaced}
    )
    assert late.status == 409 and "started" in late.body["error"]


JUNK = [
    {},
    {"round": "1", "a": [], "b": {}},
    {"round": 10**40, "a": 2**63, "b": -1, "apply": "yes"},
    {"round": 1, "player": None, "by": "x"},
    {"username": 5},
    {"name": "\ud800", "rounds": 2, "tables": 2, "start": "x" * 5000, "every_minutes": 0},
    {"name": "x", "rounds": 2, "tables": 2, "starts": [None, 1]},
    {
        "name": "x",
        "rounds": 2,
        "tables": 2,
        "start": "0001-01-01T00:00:00+01:00",
        "every_minutes": 1,
    },
    {"name": "x", "rounds": 9, "tables": 2, "start": "9999-12-31T23:00:00Z", "every_minutes": 1440},
    {"name": "x", "rounds": 1, "tables": 1, "start": FUTURE, "every_minutes": 5, "seed": -1},
    {"name": "x", "rounds": 1, "tables": 1, "start": FUTURE, "every_minutes": 5, "scoring": []},
]


# Input checks are the server's, not the database's: SQLite alone keeps the suite short.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_hostile_input_to_every_tournament_route_is_refused_cleanly(harness):
    boss, tid, player = await _tournament_with_players(harness, n=3)
    paths = [
        "/api/tournaments",
        *(
            f"/api/tournaments/{tid}/{what}"
            for what in ("invite", "schedule", "swap", "replace", "register", "checkin")
        ),
        f"/api/tournaments/{tid}/rounds/99/start",
        "/api/tournaments/99999999999/swap",
    ]
    for path in paths:
        for body in JUNK:
            for who in (boss, player):
                reply = await who.post(path, body)
                assert reply.status < 500, (path, body, reply.body)
                if reply.status >= 400:
                    assert reply.body["error"], (path, body)
    for path in ("/api/tournaments/x", "/api/tournaments/0/export.csv", "/api/tournaments/-1"):
        reply = await player.get(path)
        assert 400 <= reply.status < 500, (path, reply.body)
