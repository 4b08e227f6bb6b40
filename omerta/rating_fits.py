"""Fitting the rating model to the stored games, for the command, the
weekly job and the moderators' calibration report (issue 20). The model
and the search are pure (omerta.ratings); this reads and writes the store."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from .ratings.fit import Fit, fit
from .ratings.model import SCORE, ModelParams
from .ratings.prequential import OmertaModel, loss, score
from .ratings.records import GameRecord
from .store import Database, rating_params
from .store.models import RatingParams

#: the report's log-loss over time: one point per this many games
WINDOW = 100


class NothingToFit(ValueError):
    """No rated ranked games yet (or fewer than asked for)."""


async def refit(
    db: Database, source: str, dry_run: bool = False, min_games: int = 1
) -> tuple[Fit, int | None]:
    """Fit on the database's rated ranked games, starting from the stored
    parameters; store the result as the newest version unless ``dry_run``.
    Returns the fit and its version (None when not stored)."""
    async with db.begin() as s:
        games = await rating_params.ranked_games(s)
        _, start = await rating_params.current(s)
    if not games or len(games) < min_games:
        raise NothingToFit(
            f"there are {len(games) or 'no'} rated ranked games to fit"
            + (f" (at least {min_games} needed)" if min_games > 1 else " yet")
        )
    # A few dozen passes over the games: seconds to minutes, off the event loop.
    result = await asyncio.to_thread(fit, games, start)
    if dry_run:
        return result, None
    async with db.begin() as s:
        return result, await rating_params.store(s, result, source)


def _over_time(games: list[GameRecord], params: ModelParams, window: int) -> list[dict[str, Any]]:
    """Mean log-loss of each run of ``window`` games (the last may be shorter)."""
    model, points, total = OmertaModel(params), [], 0.0
    for t, g in enumerate(games, 1):
        total += loss(model.predict(g), SCORE[g.winner])
        model.update(g)
        if t % window == 0 or t == len(games):
            points.append(
                {"games": t, "log_loss": round(total / (t - (t - 1) // window * window), 5)}
            )
            total = 0.0
    return points


def _report(games: list[GameRecord], params: ModelParams, window: int) -> dict[str, Any]:
    s = score(OmertaModel(params), games)
    return {
        "games": s.games,
        "log_loss": round(s.log_loss, 5) if games else None,
        "brier": round(s.brier, 5) if games else None,
        "calibration": s.calibration_rows(),
        "log_loss_over_time": _over_time(games, params, window),
    }


async def calibration_report(s: AsyncSession, window: int = WINDOW) -> dict[str, Any]:
    """How well the newest parameters predict the stored ranked games, each
    before its result (prequential): log-loss, Brier, calibration bins
    (predicted vs observed red score) and log-loss per ``window`` games; and
    every stored fit."""
    games = await rating_params.ranked_games(s)
    version, params = await rating_params.current(s)
    fits = (await s.execute(select(RatingParams).order_by(RatingParams.version))).scalars().all()
    report = await asyncio.to_thread(_report, games, params, window)
    return {
        "version": version,
        "params": {
            "sigma0": params.sigma0,
            "tau": params.tau,
            "side_sigma0": params.side_sigma0,
            "side_tau": params.side_tau,
        },
        **report,
        "fits": [
            {
                "version": f.version,
                "created_at": f.created_at.isoformat(),
                "games": f.games,
                "log_loss": f.log_loss,
                "source": f.source,
                "sigma0": f.sigma0,
                "tau": f.tau,
                "side_sigma0": f.side_sigma0,
                "side_tau": f.side_tau,
            }
            for f in fits
        ],
    }
