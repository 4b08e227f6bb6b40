"""Ratings, coins and experience applied exactly once; profiles and the
leaderboard over HTTP (issue 5), against SQLite and real Postgres."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import select

from omerta import league
from omerta.ratings import model
from omerta.store.games import PlayerResult, record_game
from omerta.store.models import GameAward, PlayerRating, RatedGame, RatingSide, utcnow
from omerta.store.tables import create_table

ROLES = ["don", "mafia", "mafia", "sheriff"] + ["civilian"] * 6


def _team(role: str) -> str:
    return "black" if role in ("don", "mafia") else "red"


async def _players(h, n=10):
    clients = [await h.player(f"player{i}") for i in range(1, n + 1)]
    me = [(await c.get("/api/me")).body["user"]["id"] for c in clients]
    return clients, me


async def _finish(h, user_ids, winner="red", ranked=True, forfeit=(), bots=()):
    """Store a finished game of these players in seat order, and apply it."""
    async with h.db.begin() as s:
        table_id = await create_table(s, user_ids[0], "classic", {}, 1)
        players = []
        for seat, (uid, role) in enumerate(zip(user_ids, ROLES), 1):
            team = "black" if role in ("don", "mafia") else "red"
            result = "draw" if winner == "draw" else ("win" if team == winner else "loss")
            players.append(
                PlayerResult(
                    seat, None if seat in bots else uid, role, result, team, forfeit=seat in forfeit
                )
            )
        game = await record_game(s, table_id, winner, "no_black_left", ranked, players)
        applied = await league.apply_game(s, game)
    return game, applied


async def test_a_ranked_game_moves_winners_up_and_losers_down_and_pays_the_winners(harness):
    _, ids = await _players(harness)
    game, applied = await _finish(harness, ids, "red")
    assert applied
    async with harness.db.begin() as s:
        rows = {r.user_id: r for r in (await s.execute(select(PlayerRating))).scalars()}
    fresh = model.new_rating()
    assert all(rows[u].mu > fresh.mu for u in ids[3:])  # red won
    assert all(rows[u].mu < fresh.mu for u in ids[:3])
    assert all(rows[u].sigma < fresh.sigma and rows[u].games == 1 for u in ids)
    assert rows[ids[5]].coins == 10 and rows[ids[0]].coins == 0
    assert rows[ids[5]].experience == 30 and rows[ids[0]].experience == 10


async def test_repeating_or_retrying_the_finish_changes_nothing(harness):
    _, ids = await _players(harness)
    game, _ = await _finish(harness, ids)
    async with harness.db.begin() as s:
        before = [
            (r.user_id, r.mu, r.sigma, r.games, r.coins)
            for r in (
                await s.execute(select(PlayerRating).order_by(PlayerRating.user_id))
            ).scalars()
        ]
        assert await league.apply_game(s, game) is False
    async with harness.db.begin() as s:
        assert await league.apply_game(s, game) is False
        after = [
            (r.user_id, r.mu, r.sigma, r.games, r.coins)
            for r in (
                await s.execute(select(PlayerRating).order_by(PlayerRating.user_id))
            ).scalars()
        ]
        side = await s.get(RatingSide, 1)
    assert after == before and side.games == 1


async def test_a_crash_before_commit_applies_nothing_and_the_retry_applies_once(harness):
    _, ids = await _players(harness)
    with pytest.raises(RuntimeError):
        async with harness.db.begin() as s:
            table_id = await create_table(s, ids[0], "classic", {}, 1)
            game = await record_game(
                s,
                table_id,
                "red",
                "no_black_left",
                True,
                [
                    PlayerResult(seat, uid, role, "win", _team(role))
                    for seat, (uid, role) in enumerate(zip(ids, ROLES), 1)
                ],
            )
            await league.apply_game(s, game)
            raise RuntimeError("the server died here")
    async with harness.db.begin() as s:
        assert (await s.execute(select(PlayerRating))).first() is None
        assert (await s.execute(select(RatedGame))).first() is None
    game, applied = await _finish(harness, ids)
    assert applied


async def test_A1_practice_and_unranked_games_award_nothing(harness):
    _, ids = await _players(harness)
    _, applied = await _finish(harness, ids, ranked=False)
    assert not applied
    async with harness.db.begin() as s:
        assert (await s.execute(select(PlayerRating))).first() is None


async def test_T3_T4_a_forfeiting_winner_gets_no_coins_or_experience_but_the_rating_moves(harness):
    _, ids = await _players(harness)
    await _finish(harness, ids, "red", forfeit={6})
    async with harness.db.begin() as s:
        forfeiter = await s.get(PlayerRating, ids[5])
        other = await s.get(PlayerRating, ids[6])
    assert (forfeiter.coins, forfeiter.experience) == (0, 0)
    assert forfeiter.mu == pytest.approx(other.mu)


async def test_profile_history_and_leaderboard_show_the_game(harness):
    clients, ids = await _players(harness)
    game, _ = await _finish(harness, ids, "black")
    async with harness.db.begin() as s:
        await league.refresh_leaderboard(s)
    reply = await clients[0].get("/api/players/PLAYER1")
    assert reply.status == 200
    p = reply.body["player"]
    assert (
        p["games"] == 1
        and p["provisional"]
        and p["roles"]["don"] == {"games": 1, "wins": 1, "win_rate": 1.0}
    )
    history = (await clients[0].get("/api/players/player1/games")).body["games"]
    assert (
        history[0]["game"] == game and history[0]["result"] == "win" and history[0]["role"] == "don"
    )
    assert history[0]["rating_change"] > 0 and history[0]["coins"] == 10
    board = (await clients[0].get("/api/leaderboard?per_page=3")).body
    assert board["total"] == 10 and [row["rank"] for row in board["players"]] == [1, 2, 3]
    assert {row["username"] for row in board["players"]} <= {"player1", "player2", "player3"}
    assert all(row["provisional"] for row in board["players"])
    page2 = (await clients[0].get("/api/leaderboard?per_page=3&page=2")).body["players"]
    assert [row["rank"] for row in page2] == [4, 5, 6]


async def test_profile_and_leaderboard_refuse_bad_queries_with_a_clear_error(harness):
    clients, _ = await _players(harness, 1)
    assert (await clients[0].get("/api/players/nobody")).status == 404
    bad = await clients[0].get("/api/leaderboard?page=0")
    assert bad.status == 400 and "page" in bad.body["error"]


async def test_jobs_are_idempotent_inflation_counts_idle_time_once(harness):
    _, ids = await _players(harness)
    await _finish(harness, ids)
    later = utcnow() + timedelta(days=30)
    async with harness.db.begin() as s:
        before = (await s.get(PlayerRating, ids[0])).sigma
        assert await league.inflate_inactive(s, later) == 10
        once = (await s.get(PlayerRating, ids[0])).sigma
        assert await league.inflate_inactive(s, later) == 0
        twice = (await s.get(PlayerRating, ids[0])).sigma
        assert await league.refresh_leaderboard(s) == await league.refresh_leaderboard(s) == 10
    assert once > before and twice == once


async def test_awards_are_recorded_per_game_so_they_can_be_reverted_exactly(harness):
    _, ids = await _players(harness)
    game, _ = await _finish(harness, ids)
    async with harness.db.begin() as s:
        awards = (
            (await s.execute(select(GameAward).where(GameAward.game_id == game))).scalars().all()
        )
        rows = {r.user_id: r for r in (await s.execute(select(PlayerRating))).scalars()}
    assert len(awards) == 10
    for a in awards:
        assert rows[a.user_id].mu == a.mu_after and a.mu_before == model.new_rating().mu


async def test_voiding_a_game_reverts_exactly_its_changes_even_after_later_games(harness):
    _, ids = await _players(harness)

    async def snapshot():
        async with harness.db.begin() as s:
            rows = (await s.execute(select(PlayerRating).order_by(PlayerRating.user_id))).scalars()
            side = await s.get(RatingSide, 1)
            return (
                [(r.mu, r.sigma, r.games, r.coins, r.experience) for r in rows],
                (side.mu, side.sigma, side.games),
            )

    first, _ = await _finish(harness, ids, "red")
    second, _ = await _finish(harness, list(reversed(ids)), "black")
    async with harness.db.begin() as s:
        assert await league.void_game(s, first)
        assert not await league.void_game(s, first)  # once only
    players, side = await snapshot()
    # Voiding the first game leaves exactly the second game's changes.
    fresh = model.new_rating()
    async with harness.db.begin() as s:
        second_awards = {
            a.user_id: a
            for a in (
                await s.execute(select(GameAward).where(GameAward.game_id == second))
            ).scalars()
        }
    for uid, (mu, sigma, games, coins, xp) in zip(sorted(ids), players):
        a = second_awards[uid]
        assert mu == pytest.approx(fresh.mu + (a.mu_after - a.mu_before))
        assert games == 1 and coins == a.coins and xp == a.experience
        assert sigma == pytest.approx(
            (a.sigma_after**2 + fresh.sigma**2 - a.sigma_before**2) ** 0.5
        )
    assert side[2] == 1


async def test_two_game_ends_committing_at_once_both_count(harness):
    """Game ends commit concurrently on Postgres (the record writer overlaps
    its batches): the second must wait for the first's side term, not
    overwrite it with what it read before the first committed."""
    _, first_ids = await _players(harness)
    clients = [await harness.player(f"other{i}") for i in range(10)]
    second_ids = [(await c.get("/api/me")).body["user"]["id"] for c in clients]
    await _finish(harness, first_ids)  # the side term's row exists from now on
    games = []
    for ids in (first_ids, second_ids):
        async with harness.db.begin() as s:
            table_id = await create_table(s, ids[0], "classic", {}, 1)
            games.append(
                await record_game(
                    s,
                    table_id,
                    "red",
                    "no_black_left",
                    True,
                    [
                        PlayerResult(
                            seat,
                            uid,
                            role,
                            "loss" if role in ("don", "mafia") else "win",
                            _team(role),
                        )
                        for seat, (uid, role) in enumerate(zip(ids, ROLES), 1)
                    ],
                )
            )
    first_applied, release = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with harness.db.begin() as s:
            await league.apply_game(s, games[0])
            first_applied.set()
            await release.wait()  # still uncommitted while the second starts

    async def second() -> None:
        await first_applied.wait()
        async with harness.db.begin() as s:
            await league.apply_game(s, games[1])

    tasks = [asyncio.create_task(first()), asyncio.create_task(second())]
    await asyncio.sleep(0.3)
    release.set()
    await asyncio.gather(*tasks)
    async with harness.db.begin() as s:
        side = await s.get(RatingSide, 1)
        assert side.games == 3
        ledger = (await s.execute(select(RatedGame).order_by(RatedGame.game_id))).scalars().all()
    assert side.mu == pytest.approx(model.new_side().mu + sum(r.side_mu_change for r in ledger))


async def test_a_game_is_rated_by_the_teams_recorded_at_its_end_not_by_asking_a_ruleset(harness):
    _, ids = await _players(harness)
    async with harness.db.begin() as s:
        table_id = await create_table(s, ids[0], "classic", {}, 1)
        # Seats 1-3 were black whatever their role is called: the record says so.
        game = await record_game(
            s,
            table_id,
            "black",
            "test",
            True,
            [
                PlayerResult(
                    seat,
                    uid,
                    "civilian",
                    "win" if seat <= 3 else "loss",
                    "black" if seat <= 3 else "red",
                )
                for seat, uid in enumerate(ids, 1)
            ],
        )
        assert await league.apply_game(s, game)
        rows = {uid: await s.get(PlayerRating, uid) for uid in ids}
    black, red = [rows[uid] for uid in ids[:3]], [rows[uid] for uid in ids[3:]]
    assert all(r.mu > model.new_rating().mu for r in black)
    assert all(r.mu < model.new_rating().mu for r in red)
