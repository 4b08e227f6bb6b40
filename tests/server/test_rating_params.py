"""Fitted rating parameters in the store (issue 20): `omerta ratings fit`
learns from the rated ranked games in the order they ended, keeps each fit
as a version, and new games are rated with the newest."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import select

from omerta import jobs, league
from omerta.cli import main
from omerta.moderation.admin import grant_moderator
from omerta.rating_fits import NothingToFit, refit
from omerta.rating_replay import recompute
from omerta.ratings import model
from omerta.ratings.fit import Fit
from omerta.ratings.prequential import OmertaModel
from omerta.ratings_commands import refit_database
from omerta.store import Database, rating_params
from omerta.store.games import PlayerResult, record_game
from omerta.store.models import GameAward, PlayerRating, RatingRecompute, RatingSide, User, utcnow
from omerta.store.tables import create_table

ROLES = ["don", "mafia", "mafia", "sheriff"] + ["civilian"] * 6


async def _users(db: Database, names: list[str]) -> list[int]:
    async with db.begin() as s:
        users = [User(username=n, password_hash="-") for n in names]
        s.add_all(users)
        await s.flush()
        return [u.id for u in users]


async def _finish(db: Database, ids: list[int], winner: str, ranked: bool = True) -> int:
    async with db.begin() as s:
        table_id = await create_table(s, ids[0], "classic", {}, 1)
        players = []
        for seat, (uid, role) in enumerate(zip(ids, ROLES), 1):
            team = "black" if role in ("don", "mafia") else "red"
            result = "draw" if winner == "draw" else ("win" if team == winner else "loss")
            players.append(PlayerResult(seat, uid, role, result, team))
        game = await record_game(s, table_id, winner, "test", ranked, players)
        await league.apply_game(s, game)
    return game


async def _season(db: Database) -> list[int]:
    ids = await _users(db, [f"player{i}" for i in range(12)])
    for n, winner in enumerate(["red", "black", "red", "draw", "black"]):
        await _finish(db, ids[n % 3 :][:10], winner)
    await _finish(db, ids[:10], "red", ranked=False)
    voided = await _finish(db, ids[:10], "black")
    async with db.begin() as s:
        await league.void_game(s, voided)
    return ids


async def test_fit_reads_rated_ranked_games_in_order_and_stores_a_new_version_each_time(
    database_url,
):
    db = Database.connect(database_url)
    try:
        ids = await _season(db)
        async with db.begin() as s:
            games = await rating_params.ranked_games(s)
            assert await rating_params.current(s) == (0, model.DEFAULT_PARAMS)
        # Unranked and voided games are not evidence; draws are.
        assert [g.winner for g in games] == ["red", "black", "red", "draw", "black"]
        assert games[1].black == tuple(str(i) for i in ids[1:4])
        assert len(games[1].red) == 7
        first, v1 = await refit_database(database_url, "database")
        second, v2 = await refit_database(database_url, "database")
        assert (v1, v2) == (1, 2) and first.games == 5
        async with db.begin() as s:
            assert await rating_params.current(s) == (2, second.params)
    finally:
        await db.close()


async def test_a_new_game_is_rated_with_the_newest_stored_parameters(database_url):
    db = Database.connect(database_url)
    try:
        ids = await _users(db, [f"n{i}" for i in range(10)])
        narrow = model.ModelParams(sigma0=60.0, tau=1.0)
        async with db.begin() as s:
            await rating_params.store(s, Fit(model.DEFAULT_PARAMS, 0.7, 0.7, 1, 1), "file")
            assert await rating_params.store(s, Fit(narrow, 0.69, 0.7, 1, 1), "file") == 2
        game = await _finish(db, ids, "red")
        async with db.begin() as s:
            awards = (
                (await s.execute(select(GameAward).where(GameAward.game_id == game)))
                .scalars()
                .all()
            )
        assert {a.sigma_before for a in awards} == {60.0}
        # The same result moves a narrow prior less than the default one would.
        red = next(a for a in awards if a.user_id == ids[9])
        wide = model.update(
            [model.new_rating()] * 7, [model.new_rating()] * 3, "red", model.new_side()
        )
        assert 0 < red.mu_after - red.mu_before < wide[0][0].mu - model.DEFAULT_PARAMS.mu0
    finally:
        await db.close()


def test_fit_command_on_the_database_reports_and_stores_or_says_there_are_no_games(
    database_url, monkeypatch: pytest.MonkeyPatch, capsys
):
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["ratings", "fit"]) == 2
    assert "no rated ranked games" in capsys.readouterr().err

    async def season() -> None:
        db = Database.connect(database_url)
        try:
            await _season(db)
        finally:
            await db.close()

    asyncio.run(season())
    assert main(["ratings", "fit", "--dry-run"]) == 0
    assert "not stored" in capsys.readouterr().out
    assert main(["ratings", "fit"]) == 0
    assert "stored as version 1" in capsys.readouterr().out


async def test_moderators_see_how_well_the_ratings_predict_and_players_do_not(harness):
    player = await harness.player("plain")
    assert (await player.get("/api/moderation/ratings")).status == 403
    judge = await harness.player("judge")
    await grant_moderator(harness.db, "judge")
    empty = (await judge.get("/api/moderation/ratings")).body
    assert (empty["version"], empty["games"], empty["log_loss"], empty["fits"]) == (0, 0, None, [])
    await _season(harness.db)
    await refit(harness.db, "job")
    body = (await judge.get("/api/moderation/ratings")).body
    assert (
        body["version"] == 1 and body["games"] == 5 and [f["version"] for f in body["fits"]] == [1]
    )
    assert sum(b["games"] for b in body["calibration"]) == 5
    assert body["log_loss_over_time"] == [{"games": 5, "log_loss": body["log_loss"]}]
    assert body["params"]["sigma0"] == body["fits"][0]["sigma0"]


async def test_the_weekly_refit_waits_for_enough_games_and_then_stores_a_version(database_url):
    db = Database.connect(database_url)
    try:
        await _season(db)
        await jobs.refit_ratings(db)  # 5 games: far fewer than the job waits for
        with pytest.raises(NothingToFit, match="there are 5 rated ranked games"):
            await refit(db, "job", min_games=6)
        async with db.begin() as s:
            assert (await rating_params.current(s))[0] == 0
        result, version = await refit(db, "job", min_games=5)
        assert version == 1 and result.games == 5
    finally:
        await db.close()
    weekly = [j for j in jobs.scheduler(db).get_jobs() if j.name == "refit_ratings"]
    assert [j.trigger.interval.days for j in weekly] == [7]


async def test_recomputing_replays_the_ledger_as_if_the_newest_parameters_had_rated_every_game(
    database_url,
):
    db = Database.connect(database_url)
    try:
        ids = await _season(db)
        narrow = model.ModelParams(sigma0=80.0, tau=2.0, side_sigma0=30.0)
        async with db.begin() as s:
            before = {
                r.user_id: (r.mu, r.sigma)
                for r in (await s.execute(select(PlayerRating))).scalars()
            }
            games = await rating_params.ranked_games(s)
            await rating_params.store(s, Fit(narrow, 0.69, 0.7, 5, 1), "file")
        async with db.begin() as s:
            replay = await recompute(s)
        assert (replay.version, replay.games, len(replay.moved)) == (1, 5, len(ids))
        expected = OmertaModel(narrow)
        for g in games:
            expected.update(g)
        async with db.begin() as s:
            rows = {r.user_id: r for r in (await s.execute(select(PlayerRating))).scalars()}
            kept = {r.user_id: r for r in (await s.execute(select(RatingRecompute))).scalars()}
            side = await s.get(RatingSide, 1)
        for uid in ids:
            want = expected.ratings[str(uid)]
            assert (rows[uid].mu, rows[uid].sigma, rows[uid].games) == pytest.approx(
                (want.mu, want.sigma, want.games)
            )
            # Why the number moved: what stood before is kept.
            assert (kept[uid].mu_before, kept[uid].sigma_before) == before[uid]
            assert (kept[uid].mu_after, kept[uid].version) == (rows[uid].mu, 1)
        assert side is not None and (side.mu, side.games) == pytest.approx((expected.side.mu, 5))
    finally:
        await db.close()


async def test_after_a_recompute_a_void_reverts_the_replayed_change_and_idle_time_counts(
    database_url,
):
    db = Database.connect(database_url)
    try:
        ids = await _season(db)
        last = await _finish(db, ids[:10], "red")
        async with db.begin() as s:
            await rating_params.store(
                s, Fit(model.ModelParams(sigma0=90.0), 0.69, 0.7, 6, 1), "file"
            )
        async with db.begin() as s:
            await recompute(s)
            replayed = {r.user_id: r.mu for r in (await s.execute(select(PlayerRating))).scalars()}
            award = (
                await s.execute(
                    select(GameAward).where(GameAward.game_id == last, GameAward.user_id == ids[0])
                )
            ).scalar_one()
            assert award.mu_after == pytest.approx(replayed[ids[0]])
            assert await league.void_game(s, last)
            row = await s.get(PlayerRating, ids[0])
            assert row is not None and row.mu == pytest.approx(award.mu_before)
        async with db.begin() as s:
            sigma_now = (await s.get(PlayerRating, ids[0])).sigma
            await recompute(s, utcnow() + timedelta(days=60))
            assert (await s.get(PlayerRating, ids[0])).sigma > sigma_now
    finally:
        await db.close()


def test_recompute_command_says_what_it_replayed_and_who_moved_most(
    database_url, monkeypatch: pytest.MonkeyPatch, capsys
):
    monkeypatch.setenv("DATABASE_URL", database_url)

    async def season() -> None:
        db = Database.connect(database_url)
        try:
            await _season(db)
            async with db.begin() as s:
                await rating_params.store(
                    s, Fit(model.ModelParams(sigma0=60.0), 0.69, 0.7, 5, 1), "file"
                )
        finally:
            await db.close()

    asyncio.run(season())
    assert main(["ratings", "recompute"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "replayed 5 ranked games with parameters version 1: 12 ratings recomputed"
    )
    assert " -> " in out and "p" in out.splitlines()[1]


async def test_a_player_sees_why_their_number_moved_after_a_recompute(harness):
    ids = await _season(harness.db)
    async with harness.db.begin() as s:
        await rating_params.store(s, Fit(model.ModelParams(sigma0=70.0), 0.69, 0.7, 5, 1), "file")
    async with harness.db.begin() as s:
        await recompute(s)
        row = await s.get(PlayerRating, ids[0])
    viewer = await harness.player("viewer")
    entries = (await viewer.get("/api/players/player0/recomputes")).body["recomputes"]
    assert [(e["version"], e["rating_after"]) for e in entries] == [
        (1, model.display(model.Rating(row.mu, row.sigma), model.DEFAULT_PARAMS))
    ]
    assert entries[0]["rating_before"] != entries[0]["rating_after"]
    assert (await viewer.get("/api/players/viewer/recomputes")).body == {"recomputes": []}
    assert (await viewer.get("/api/players/nobody/recomputes")).status == 404
