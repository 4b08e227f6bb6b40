"""The lobby: tables, seats, bots, and the start of a full table (C3)."""

from __future__ import annotations

import asyncio
import random

import pytest

from omerta.store import games, tables, users
from omerta.store.games import PlayerResult


async def new_table(client, **body):
    reply = await client.post("/api/tables", body)
    assert reply.status == 201, reply.body
    return reply.body["table"]


async def test_a_new_table_plays_classic_with_default_settings_and_is_ranked(harness):
    alice = await harness.player("alice")
    table = await new_table(alice)
    assert table["ruleset"] == "classic"
    assert table["settings"] == {
        "auto_deal": False,
        "agreement": "silent",
        "voting": "closed",
        "break_at_zero": False,
        "lift_at_zero": False,
    }
    assert table["ranked"] is True
    assert table["status"] == "open" and table["creator"] == "alice"
    assert (table["seats_total"], table["seats_taken"], table["seats"]) == (10, 0, [])
    assert "seed" not in table


async def test_settings_are_kept_as_given_with_defaults_for_the_rest(harness):
    alice = await harness.player("alice")
    table = await new_table(
        alice, settings={"voting": "open", "auto_deal": True, "ruleset": "classic"}
    )
    assert table["settings"]["voting"] == "open" and table["settings"]["auto_deal"] is True
    assert table["settings"]["agreement"] == "silent"


@pytest.mark.parametrize(
    "body, named",
    [
        ({"settings": {"voting": "sideways"}}, "'voting'"),
        ({"settings": {"auto_deal": "yes"}}, "'auto_deal'"),
        ({"settings": {"colour": "red"}}, "'colour'"),
        ({"ruleset": "poker"}, "'poker'"),
        ({"settings": ["voting", "open"]}, "'settings'"),
    ],
)
async def test_bad_settings_get_a_clear_400_naming_the_setting(harness, body, named):
    alice = await harness.player("alice")
    reply = await alice.post("/api/tables", body)
    assert reply.status == 400
    assert named in reply.body["error"] and reply.body["rule"] == "§3"
    assert (await alice.get("/api/tables")).body == {"tables": [], "next": None}


async def test_open_tables_are_listed_with_their_seats_and_settings(harness):
    alice, bob = await harness.player("alice"), await harness.player("bob")
    first = await new_table(alice, settings={"voting": "open"})
    await new_table(bob)
    await bob.post(f"/api/tables/{first['id']}/sit")
    listed = (await harness.client().get("/api/tables")).body["tables"]
    assert [t["id"] for t in listed] == [first["id"], first["id"] + 1]
    assert listed[0]["seats"] == [{"seat": 1, "user": "bob", "bot": False}]
    assert listed[0]["seats_taken"] == 1 and listed[0]["settings"]["voting"] == "open"


async def test_a_player_sits_down_and_stands_up_before_the_start(harness):
    alice = await harness.player("alice")
    table = await new_table(alice)
    sat = await alice.post(f"/api/tables/{table['id']}/sit")
    assert sat.status == 200 and sat.body["table"]["seats_taken"] == 1
    stood = await alice.post(f"/api/tables/{table['id']}/stand")
    assert stood.status == 200 and stood.body["table"]["seats"] == []
    again = await alice.post(f"/api/tables/{table['id']}/stand")
    assert again.status == 409 and "do not sit" in again.body["error"]


async def test_a_player_sits_at_one_table_at_a_time(harness):
    alice = await harness.player("alice")
    first, second = await new_table(alice), await new_table(alice)
    await alice.post(f"/api/tables/{first['id']}/sit")
    twice = await alice.post(f"/api/tables/{first['id']}/sit")
    assert twice.status == 409 and "already sit at table" in twice.body["error"]
    elsewhere = await alice.post(f"/api/tables/{second['id']}/sit")
    assert elsewhere.status == 409 and "stand up there first" in elsewhere.body["error"]


async def test_the_tenth_seat_starts_the_table_exactly_once_even_when_ten_sit_at_once(harness):
    players = [await harness.player(f"player{i}") for i in range(11)]
    table = await new_table(players[0])
    replies = await asyncio.gather(
        *(p.post(f"/api/tables/{table['id']}/sit") for p in players[:10])
    )
    assert [r.status for r in replies] == [200] * 10
    assert harness.runtime.started == [table["id"]]
    shown = (await players[0].get(f"/api/tables/{table['id']}")).body["table"]
    assert shown["status"] == "playing" and shown["started_at"]
    assert sorted(s["seat"] for s in shown["seats"]) == list(range(1, 11))
    assert sorted(s["user"] for s in shown["seats"]) == sorted(f"player{i}" for i in range(10))
    assert (await players[0].get("/api/tables")).body == {"tables": [], "next": None}
    late = await players[10].post(f"/api/tables/{table['id']}/sit")
    assert late.status == 409 and late.body["rule"] == "C3"
    leaving = await players[3].post(f"/api/tables/{table['id']}/stand")
    assert leaving.status == 409 and leaving.body["rule"] == "C3"
    assert harness.runtime.started == [table["id"]]


async def test_seat_numbers_are_drawn_at_random_when_the_table_starts(harness):
    orders = set()
    for round_ in range(4):
        creator = await harness.player(f"creator{round_}")
        table = await new_table(creator)
        await creator.post(f"/api/tables/{table['id']}/sit")
        started = (await creator.post(f"/api/tables/{table['id']}/bots")).body["table"]
        orders.add(next(s["seat"] for s in started["seats"] if s["user"]))
    assert len(orders) > 1  # the creator, first to sit, is not always seat 1 (C1)


#: The generator of a server started with `--seed` (Config.rng); each round
#: below reseeds it, as if the server were started again with `--seed 7`.
SEEDED = random.Random()


@pytest.mark.parametrize("config_overrides", [{"rng": SEEDED}])
async def test_with_a_seed_the_same_requests_get_the_same_seats_and_table_seed(harness):
    async def play(round_: int) -> tuple[list[int], int]:
        SEEDED.seed(7)
        players = [await harness.player(f"p{round_}{i}") for i in range(3)]
        table = await new_table(players[0])
        for player in players:
            await player.post(f"/api/tables/{table['id']}/sit")
        started = (await players[0].post(f"/api/tables/{table['id']}/bots")).body["table"]
        seat_of = {s["user"]: s["seat"] for s in started["seats"]}
        async with harness.db.begin() as s:
            stored = await tables.get_table(s, table["id"])
            assert stored is not None
            seed = stored.seed
        return [seat_of[f"p{round_}{i}"] for i in range(3)], seed

    first, again = await play(1), await play(2)
    assert first == again
    assert first[0] != [1, 2, 3]  # still a shuffle (C1), only a reproducible one


async def test_the_creator_fills_the_empty_seats_with_bots_and_the_table_starts(harness):
    alice, bob = await harness.player("alice"), await harness.player("bob")
    table = await new_table(alice)
    await alice.post(f"/api/tables/{table['id']}/sit")
    refused = await bob.post(f"/api/tables/{table['id']}/bots")
    assert refused.status == 403 and "creator" in refused.body["error"]
    filled = await alice.post(f"/api/tables/{table['id']}/bots")
    assert filled.status == 200
    shown = filled.body["table"]
    assert shown["status"] == "playing" and shown["ranked"] is False  # A1: bots make practice
    assert sum(s["bot"] for s in shown["seats"]) == 9
    assert shown == (await bob.get(f"/api/tables/{table['id']}")).body["table"]
    assert harness.runtime.started == [table["id"]]


@pytest.mark.parametrize(
    "method, path",
    [
        ("POST", "/api/tables"),
        ("POST", "/api/tables/1/sit"),
        ("POST", "/api/tables/1/stand"),
        ("POST", "/api/tables/1/bots"),
        ("GET", "/api/me"),
        ("GET", "/api/me/games"),
    ],
)
async def test_requests_without_a_session_are_refused(harness, method, path):
    alice = await harness.player("alice")
    await new_table(alice)
    reply = await harness.client().request(method, path)
    assert reply.status == 401 and "sign in" in reply.body["error"]


async def test_an_unknown_table_is_404(harness):
    alice = await harness.player("alice")
    for path in ("/api/tables/99", "/api/tables/x"):
        assert (await alice.get(path)).status == 404
    assert (await alice.post("/api/tables/99/sit")).status == 404


async def test_a_player_sees_their_finished_games(harness):
    alice = await harness.player("alice")
    table = await new_table(alice)
    await alice.post(f"/api/tables/{table['id']}/sit")
    await alice.post(f"/api/tables/{table['id']}/bots")
    async with harness.db.begin() as s:
        user = await users.user_by_name(s, "alice")
        seats = (await tables.get_table(s, table["id"])).seats
        await games.record_game(
            s,
            table["id"],
            "red",
            "no black player is alive",
            False,
            [
                PlayerResult(
                    seat.seat, seat.user_id, "sheriff" if seat.user_id else "civilian", "win", "red"
                )
                for seat in seats
            ],
        )
        await tables.end_table(s, table["id"], "finished")
        assert user is not None
    history = (await alice.get("/api/me/games")).body["games"]
    assert len(history) == 1
    assert history[0]["table"] == table["id"] and history[0]["role"] == "sheriff"
    assert history[0]["result"] == "win" and history[0]["ranked"] is False
    shown = (await alice.get(f"/api/tables/{table['id']}")).body["table"]
    assert shown["status"] == "finished" and shown["finished_at"]
    # A finished game frees its players for another table.
    other = await new_table(alice)
    assert (await alice.post(f"/api/tables/{other['id']}/sit")).status == 200


async def test_the_lobby_lists_open_tables_a_page_at_a_time(harness):
    hosts = [await harness.player(f"host{i}") for i in range(5)]
    made = [(await new_table(host))["id"] for host in hosts]
    seen, cursor, pages = [], None, 0
    while True:
        query = "?limit=2" + (f"&cursor={cursor}" if cursor else "")
        reply = await harness.client().get(f"/api/tables{query}")
        assert reply.status == 200 and len(reply.body["tables"]) <= 2
        seen += [t["id"] for t in reply.body["tables"]]
        pages += 1
        cursor = reply.body["next"]
        if cursor is None:
            break
    assert seen == made and pages == 3
    default = (await harness.client().get("/api/tables")).body
    assert [t["id"] for t in default["tables"]] == made and default["next"] is None


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=101", "limit=x", "cursor=-1", "cursor=²", "limit=99999999999999999999"],
)
async def test_a_bad_lobby_page_is_a_clear_400(harness, query):
    reply = await harness.client().get(f"/api/tables?{query}")
    assert reply.status == 400 and reply.body["error"].startswith("query parameter")
