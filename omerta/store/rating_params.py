"""The rating model's parameters as stored (rating_params, one row per
fit) and the ranked games as the fitting tools read them."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..ratings import model
from ..ratings.fit import Fit
from ..ratings.records import GameRecord
from .models import Game, GamePlayer, RatedGame, RatingParams, RatingRecompute, utcnow


async def current(s: AsyncSession) -> tuple[int, model.ModelParams]:
    """The newest stored version and its parameters; version 0 and the
    model's defaults when nothing has been fitted yet."""
    row = (
        await s.execute(select(RatingParams).order_by(RatingParams.version.desc()).limit(1))
    ).scalar_one_or_none()
    if row is None:
        return 0, model.DEFAULT_PARAMS
    return row.version, replace(
        model.DEFAULT_PARAMS,
        sigma0=row.sigma0,
        tau=row.tau,
        side_sigma0=row.side_sigma0,
        side_tau=row.side_tau,
    )


async def store(s: AsyncSession, fit: Fit, source: str, now: datetime | None = None) -> int:
    """Keep a fit as the newest version; returns its version number."""
    newest = (await s.execute(select(func.max(RatingParams.version)))).scalar_one_or_none() or 0
    p = fit.params
    row = RatingParams(
        version=newest + 1,
        created_at=now or utcnow(),
        sigma0=p.sigma0,
        tau=p.tau,
        side_sigma0=p.side_sigma0,
        side_tau=p.side_tau,
        games=fit.games,
        log_loss=fit.log_loss,
        source=source,
    )
    s.add(row)
    await s.flush()
    return row.version


def rated_in_order(*columns: Any) -> Select[Any]:
    """The id and `columns` of every rated, not voided, ranked game, in the
    order the games ended (the order they were rated in)."""
    return (
        select(Game.id, *columns)
        .join(RatedGame, RatedGame.game_id == Game.id)
        .where(Game.ranked.is_(True), RatedGame.voided_at.is_(None))
        .order_by(Game.ended_at, Game.id)
    )


async def ranked_games(s: AsyncSession) -> list[GameRecord]:
    """Every rated, not voided, ranked game in the order it ended, as the
    rating model saw it: the signed-in players of each team and the result."""
    games = (await s.execute(rated_in_order(Game.winner))).tuples().all()
    seats = (
        (
            await s.execute(
                select(GamePlayer.game_id, GamePlayer.user_id, GamePlayer.team)
                .join(RatedGame, RatedGame.game_id == GamePlayer.game_id)
                .where(GamePlayer.user_id.is_not(None), RatedGame.voided_at.is_(None))
                .order_by(GamePlayer.game_id, GamePlayer.seat)
            )
        )
        .tuples()
        .all()
    )
    teams: dict[int, tuple[list[str], list[str]]] = {}
    for game_id, user_id, team in seats:
        red, black = teams.setdefault(game_id, ([], []))
        (black if team == "black" else red).append(str(user_id))
    out: list[GameRecord] = []
    for game_id, winner in games:
        red, black = teams.get(game_id, ([], []))
        if red and black:
            out.append(
                GameRecord(
                    tuple(red),
                    tuple(black),
                    "red" if winner == "red" else "black" if winner == "black" else "draw",
                )
            )
    return out


async def recomputes(s: AsyncSession, user_id: int) -> list[dict[str, object]]:
    """Why a player's number moved without a game: each replay of the
    ledger with new parameters, newest first, with the rating before and after."""
    rows = (
        (
            await s.execute(
                select(RatingRecompute)
                .where(RatingRecompute.user_id == user_id)
                .order_by(RatingRecompute.id.desc())
            )
        )
        .scalars()
        .all()
    )
    return [
        {
            "at": r.at.isoformat(),
            "version": r.version,
            "rating_before": r.display_before,
            "rating_after": r.display_after,
            "mu_before": round(r.mu_before, 1),
            "mu_after": round(r.mu_after, 1),
            "sigma_before": round(r.sigma_before, 1),
            "sigma_after": round(r.sigma_after, 1),
        }
        for r in rows
    ]
