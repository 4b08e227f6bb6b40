"""What a finished live game leaves behind, end to end over WebSockets, on
SQLite and on real Postgres: ratings and the leaderboard after a ranked
game (issue 5), a technical defeat overturned by a moderator (issue 6), and
an unranked city table with bots (issue 7)."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select

from omerta import league
from omerta.moderation.admin import grant_moderator
from omerta.ratings import model
from omerta.store.models import PlayerRating, RatedGame, RatingSide

from .players import Browser, SeatClient, play, random_play, seat_table
from .test_full_game import finished


async def get(person: Browser, path: str) -> dict:
    status, body = await person.request("GET", path)
    assert status == 200, (path, body)
    return body


async def rating_rows(live) -> tuple[list[tuple], tuple, list[tuple]]:
    """Every rating row, the side term and the ledger, as plain values."""
    async with live.db.begin() as s:
        players = [
            (r.user_id, r.mu, r.sigma, r.games, r.coins, r.experience, r.last_game_at)
            for r in (
                await s.execute(select(PlayerRating).order_by(PlayerRating.user_id))
            ).scalars()
        ]
        side = await s.get(RatingSide, league.SIDE_ID)
        ledger = [
            (g.game_id, g.applied_at, g.voided_at)
            for g in (await s.execute(select(RatedGame))).scalars()
        ]
        return players, side and (side.mu, side.sigma, side.games), ledger


@pytest.mark.parametrize("time_scale", [100.0])
async def test_a_ranked_game_rates_all_ten_players_once_and_fills_the_leaderboard(live):
    people = await live.browsers(10)
    table_id, seats = await seat_table(people)
    clients = [SeatClient(person, table_id, seed=5) for person in people]
    for client in clients:
        await client.connect(resume=True)
    await play(clients)
    await finished(live, table_id)

    game_ids = set()
    for person in people:
        profile = (await get(person, f"/api/players/{person.username}"))["player"]
        assert profile["games"] == 1, profile
        [game] = (await get(person, f"/api/players/{person.username}/games"))["games"]
        assert game["ranked"] is True and game["voided"] is False
        assert game["rating_change"] is not None, game
        assert game["seat"] == seats[person.username]
        game_ids.add(game["game"])
    [game_id] = game_ids

    async with live.db.begin() as s:
        assert await league.refresh_leaderboard(s) == 10
    board = await get(people[0], "/api/leaderboard")
    assert board["total"] == 10
    assert {p["username"] for p in board["players"]} == {p.username for p in people}
    assert all(p["games"] == 1 for p in board["players"])

    before = await rating_rows(live)
    async with live.db.begin() as s:
        assert await league.apply_game(s, game_id) is False  # the ledger guards it
    assert await rating_rows(live) == before
    for person in people:
        profile = (await get(person, f"/api/players/{person.username}"))["player"]
        assert profile["games"] == 1


def tech_defeat(caller: int, target: int):
    """The caller calls a technical defeat against `target` once it may by
    day; every human votes yes; otherwise only the draw is played."""
    called = False

    def policy(view: dict, rng: random.Random) -> dict | None:
        nonlocal called
        acts = set(view["actions"])
        if "tech_vote" in acts:
            return {"do": "tech_vote", "yes": True}
        if "pick" in acts:
            return {"do": "pick", "card": rng.randrange(len(view["seats"]))}
        if view["seat"] == caller and "tech_call" in acts and not called:
            called = True
            return {"do": "tech_call", "kind": "defeat", "target": target}
        return None

    return policy


@pytest.mark.parametrize("time_scale", [100.0])
async def test_a_technical_defeat_overturned_by_a_moderator_voids_the_ranked_game(live):
    people = await live.browsers(10)
    [moderator] = await live.browsers(1, prefix="moderator")
    await grant_moderator(live.db, moderator.username)
    table_id, seats = await seat_table(people)
    caller, target = seats[people[0].username], seats[people[1].username]
    policy = tech_defeat(caller, target)
    clients = [SeatClient(person, table_id, policy=policy, seed=6) for person in people]
    for client in clients:
        await client.connect(resume=True)
    await play(clients)
    await finished(live, table_id)

    over = clients[0].events[clients[0].last]
    assert over["event"] == "game_over" and over["reason"] == "technical_defeat", over
    results = [e for e in clients[0].events.values() if e["event"] == "tech_vote"]
    assert [(r["kind"], r["by"], r["target"], r["passed"]) for r in results] == [
        ("defeat", caller, target, True)
    ]
    assert results[0]["yes"] >= 6
    phases = [e for e in clients[0].events.values() if e["event"] == "phase"]
    assert phases[-1].get("day") == 1, phases[-1]  # called and passed on day 1
    for person in people:
        [game] = (await get(person, f"/api/players/{person.username}/games"))["games"]
        assert game["ranked"] is True and game["voided"] is False
    game_id = game["game"]

    cases = await get(moderator, "/api/moderation/cases")
    [case] = [c for c in cases["cases"] if c["vote"] and c["vote"]["table"] == table_id]
    assert case["status"] == "open"
    vote = case["vote"]
    assert vote["kind"] == "defeat" and vote["passed"] is True and vote["game"] == game_id
    assert vote["caller"] == {"seat": caller, "user": people[0].username}
    assert vote["target"] == {"seat": target, "user": people[1].username}
    assert vote["yes"] >= 6 and vote["voters"] == 10 and vote["day"] == 1

    status, body = await moderator.request(
        "POST",
        f"/api/moderation/cases/{case['id']}/overturn",
        {"reason": f"the table ganged up on seat {target}"},
    )
    assert status == 200, body
    assert body["case"]["status"] == "overturned"

    newcomer = model.new_rating()
    for person in people:
        [game] = (await get(person, f"/api/players/{person.username}/games"))["games"]
        assert game["game"] == game_id and game["voided"] is True, game
        profile = (await get(person, f"/api/players/{person.username}"))["player"]
        assert profile["games"] == 0, profile
        assert profile["rating"] == model.display(newcomer), profile
        assert profile["mu"] == round(newcomer.mu, 1), profile
        assert profile["sigma"] == round(newcomer.sigma, 1), profile
        assert profile["coins"] == 0 and profile["experience"] == 0, profile

    audit = await get(moderator, "/api/moderation/audit")
    decisions = [e for e in audit["entries"] if e["case"] == case["id"]]
    assert len(decisions) == 1, audit["entries"]
    [entry] = decisions
    assert entry["id"] == body["audit"] and entry["action"] == "overturn"
    assert entry["moderator"] == moderator.username and entry["user"] == people[1].username
    assert entry["details"]["voided"] is True and entry["details"]["game"] == game_id

    # A second decision on the same case is refused and logs nothing.
    status, again = await moderator.request(
        "POST", f"/api/moderation/cases/{case['id']}/overturn", {"reason": "again"}
    )
    assert status == 409, again
    audit = await get(moderator, "/api/moderation/audit")
    assert len([e for e in audit["entries"] if e["case"] == case["id"]]) == 1


@pytest.mark.parametrize("time_scale", [1000.0])
async def test_a_city_table_of_twelve_with_bots_plays_to_its_end_unranked_and_unrewarded(live):
    [creator] = await live.browsers(1, prefix="creator")
    table_id, seats = await seat_table([creator], {"ruleset": "city", "seats": 12}, bots=True)
    status, body = await creator.request("GET", f"/api/tables/{table_id}")
    table = body["table"]
    assert table["ruleset"] == "city" and len(table["seats"]) == 12, table
    assert table["seats_total"] == 12 and table["ranked"] is False
    client = SeatClient(creator, table_id, policy=random_play, seed=7)
    await client.connect(resume=True)
    await play([client], timeout=120)
    await finished(live, table_id)
    assert client.events[client.last]["event"] == "game_over"

    status, body = await creator.request("GET", f"/api/tables/{table_id}")
    assert body["table"]["status"] == "finished"
    [game] = (await get(creator, f"/api/players/{creator.username}/games"))["games"]
    assert game["ranked"] is False and game["rating_change"] is None, game
    assert game["coins"] == 0 and game["experience"] == 0
    assert game["seat"] == seats[creator.username]
    profile = (await get(creator, f"/api/players/{creator.username}"))["player"]
    assert profile["games"] == 0 and profile["coins"] == 0 and profile["experience"] == 0
    assert profile["roles"] == {}
    players, side, ledger = await rating_rows(live)
    assert players == [] and ledger == [] and side is None
