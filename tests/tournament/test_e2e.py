"""A whole tournament on a live server (slow): 20 players, 10 rounds of two
tables. Four players are people on table WebSockets who play every round;
sixteen never check in, so a bot plays each of their seats and they take
the technical defeat. Every round starts on time, the games stay ranked for
the people at them, and the standings are what the games say."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import pytest
from sqlalchemy import select

from omerta.moderation.admin import grant_director
from omerta.runtime.live import LiveTables
from omerta.store import users
from omerta.store.models import Game, GamePlayer, GameTable, RatedGame, TournamentPlayer
from tests.runtime.players import Browser, Live, SeatClient, live_server

pytestmark = pytest.mark.slow

#: game seconds per wall second: a game (about 75 game minutes here) in 2-3 wall seconds
SCALE = 2500.0
#: wall seconds between rounds, and before the first
GAP = 4.5
ROUNDS, TABLES, PEOPLE, ABSENT = 10, 2, 4, 16
#: wall seconds to register, check in and generate the schedule before round 1
SETUP = 8.0
#: how late the round starter may wake (wall seconds), and how late the
#: tables may be seated and playing: on the shared 2-core test machine a
#: database round trip takes 30-100 ms and a round's start about 20 of them
WAKE = 0.5
ON_TIME = 2.0


@pytest.fixture
async def live(database_url: str) -> AsyncIterator[Live]:
    def runtime(db: Any, scale: float) -> LiveTables:
        # Its own game-end hooks: the tournament's, then the league's.
        return LiveTables(db, scale, grace=0.0)

    async with live_server(database_url, runtime, SCALE) as live:
        yield live


async def _tournament(person: Browser, tid: int) -> dict:
    status, body = await person.request("GET", f"/api/tournaments/{tid}")
    assert status == 200, body
    return body["tournament"]


async def _play_every_round(person: Browser, tid: int) -> list[SeatClient | None]:
    """Each round: wait for this player's table, play it to its end. None:
    the round started while this player's last game was still on (a loaded
    machine), so they were absent, as the rules say."""
    played: list[SeatClient | None] = []
    for round in range(1, ROUNDS + 1):
        while True:
            t = await _tournament(person, tid)
            starts_at = datetime.fromisoformat(t["schedule"][round - 1]["starts_at"])
            # Like a page, no hurry before the round's time; then a few looks a second.
            await asyncio.sleep(max(0.1, (starts_at - datetime.now(UTC)).total_seconds()))
            t = await _tournament(person, tid)
            me = next(s for s in t["me"]["seats"] if s["round"] == round)
            table = t["schedule"][round - 1]["tables"][me["table"] - 1]
            if table["table_id"] is not None:
                break
        if table["seats"][me["seat"] - 1]["absent"]:
            played.append(None)
            continue
        client = SeatClient(person, table["table_id"], seed=round)
        for _ in range(100):  # a socket dropped (a slow reader) resumes, as a page does
            try:
                await client.connect(resume=True)
            except aiohttp.WSServerHandshakeError as e:
                assert e.status == 409, e  # stored, handed to the runtime a moment later
                await asyncio.sleep(0.02)
                continue
            await asyncio.wait_for(client.run(), GAP * 3)
            if client.events and client.events[client.last]["event"] == "game_over":
                break
        assert client.seat == me["seat"]
        assert client.events[client.last]["event"] == "game_over"
        played.append(client)
    return played


def _expected_points(client: SeatClient) -> float:
    """The default scoring of one game, from what the seat itself was sent."""
    events = list(client.events.values())
    over = events[-1]
    team = "black" if over["roles"][str(client.seat)] in ("don", "mafia") else "red"
    points = 1.0 if over["winner"] == team else 0.0
    first: list[int] = next(
        (e["dead"] for e in events if e["event"] == "morning" and e["dead"]), []
    )
    if client.seat in first:
        named = next((b for b in over.get("best_move") or [] if b["seat"] == client.seat), None)
        hits = len(named["black"]) if named else 0
        points += 0.5 if hits >= 3 else 0.25 if hits == 2 else 0.0
        points += 0.25 if team == "red" and over["winner"] == "black" else 0.0
    for e in events:
        if e["event"] == "left" and e["seat"] == client.seat and e["cause"] == "removed":
            points -= 0.5
        if e["event"] == "tech_vote" and e["kind"] == "defeat" and e["passed"]:
            points -= 1.0 if e["target"] == client.seat else 0.0
    return points


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_20_player_10_round_tournament_runs_on_time_and_its_standings_match_the_games(
    live,
):
    began = time.monotonic()
    [boss] = await live.browsers(1, prefix="boss")
    await grant_director(live.db, boss.username)
    people = await live.browsers(PEOPLE)
    first = datetime.now(UTC) + timedelta(seconds=SETUP)
    status, body = await boss.request(
        "POST",
        "/api/tournaments",
        {
            "name": "Live cup",
            "rounds": ROUNDS,
            "tables": TABLES,
            "starts": [(first + timedelta(seconds=GAP * r)).isoformat() for r in range(ROUNDS)],
            "seed": 18,
        },
    )
    assert status == 201, body
    tid = body["tournament"]["id"]
    for person in people:
        assert (await person.request("POST", f"/api/tournaments/{tid}/register"))[0] == 200
        assert (await person.request("POST", f"/api/tournaments/{tid}/checkin"))[0] == 200
    async with live.db.begin() as s:
        for i in range(ABSENT):
            user = await users.add_user(s, f"away{i:02}", "!")
            s.add(TournamentPlayer(tournament_id=tid, user_id=user.id))
    status, body = await boss.request("POST", f"/api/tournaments/{tid}/schedule")
    assert status == 200, body

    clients = await asyncio.gather(*(_play_every_round(p, tid) for p in people))

    async def finished() -> dict:
        while (t := await _tournament(boss, tid))["status"] != "finished":
            await asyncio.sleep(0.1)
        return t

    t = await asyncio.wait_for(finished(), GAP * 2)
    # Every round started on time, both its tables at once.
    late = []
    async with live.db.begin() as s:
        for rnd in t["schedule"]:
            starts_at = datetime.fromisoformat(rnd["starts_at"])
            woke = datetime.fromisoformat(rnd["started_at"]) - starts_at
            assert timedelta(0) <= woke < timedelta(seconds=WAKE), (rnd["number"], woke)
            assert [table["status"] for table in rnd["tables"]] == ["finished"] * TABLES
            for table in rnd["tables"]:
                stored = await s.get(GameTable, table["table_id"])
                assert stored is not None and stored.started_at is not None
                late.append((stored.started_at - starts_at).total_seconds())
            # The sixteen who never checked in were absent.
            absent = {
                s["username"] for table in rnd["tables"] for s in table["seats"] if s["absent"]
            }
            assert absent >= {f"away{i:02}" for i in range(ABSENT)}
    assert all(0 <= seconds < ON_TIME for seconds in late), late
    # Every game stayed ranked for the people at it (when they played on
    # both teams: the rating model needs someone on each side), and was rated.
    table_ids = [table["table_id"] for r in t["schedule"] for table in r["tables"]]
    async with live.db.begin() as s:
        games = (await s.scalars(select(Game).where(Game.table_id.in_(table_ids)))).all()
        assert len(games) == ROUNDS * TABLES
        rated = set(await s.scalars(select(RatedGame.game_id)))
        for game in games:
            teams = set(
                await s.scalars(
                    select(GamePlayer.team).where(
                        GamePlayer.game_id == game.id, GamePlayer.user_id.is_not(None)
                    )
                )
            )
            assert game.ranked == (teams == {"red", "black"}), (game.id, teams)
            assert (game.id in rated) == game.ranked
        assert sum(g.ranked for g in games) > 0
    # The standings are what the games say.
    standings = {row["username"]: row for row in t["standings"]}
    for person, played in zip(people, clients):
        row = standings[person.username]
        assert row["games"] == ROUNDS
        expected = [_expected_points(c) if c is not None else -1.0 for c in played]
        assert row["total"] == pytest.approx(sum(expected))
    for i in range(ABSENT):
        assert standings[f"away{i:02}"]["total"] == -1.0 * ROUNDS
    totals = [row["total"] for row in t["standings"]]
    assert totals == sorted(totals, reverse=True)
    status, csv = await boss.request("GET", f"/api/tournaments/{tid}/standings")
    assert status == 200 and len(csv["by_round"]) == ROUNDS
    assert time.monotonic() - began < 90
