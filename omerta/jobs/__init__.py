"""Periodic jobs (APScheduler 3.x, in-process): never game timers, which
are the table actors' own `loop.call_at`. Every job is idempotent: running
it twice, or after a missed run, leaves the same result."""

from __future__ import annotations

import logging
from datetime import timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from .. import league, rating_fits
from ..store import Database, tables, users
from ..store.models import utcnow

log = logging.getLogger(__name__)

#: an open table nobody sits at for this long is closed
EMPTY_LOBBY_AGE = timedelta(hours=1)
#: an address an account has not used for this long is forgotten (docs/security.md)
ADDRESS_KEPT = timedelta(days=180)


async def inflate_inactive(db: Database) -> None:
    async with db.begin() as s:
        n = await league.inflate_inactive(s)
    log.info("inactivity widened %d ratings", n)


async def refresh_leaderboard(db: Database) -> None:
    async with db.begin() as s:
        await league.refresh_leaderboard(s)


async def clean_empty_lobbies(db: Database) -> None:
    async with db.begin() as s:
        n = await tables.abandon_empty(s, utcnow() - EMPTY_LOBBY_AGE)
    if n:
        log.info("closed %d empty open tables", n)


async def forget_old_addresses(db: Database) -> None:
    async with db.begin() as s:
        await users.forget_addresses(s, utcnow() - ADDRESS_KEPT)


#: fewer rated ranked games than this: the weekly refit waits (a fit to a
#: handful of games is noise)
REFIT_MIN_GAMES = 200


async def refit_ratings(db: Database) -> None:
    try:
        fit, version = await rating_fits.refit(db, "job", min_games=REFIT_MIN_GAMES)
    except rating_fits.NothingToFit as e:
        log.info("rating refit skipped: %s", e)
        return
    log.info(
        "rating parameters refitted on %d games: log-loss %.4f -> %.4f, version %s",
        fit.games,
        fit.start_log_loss,
        fit.log_loss,
        version,
    )


def scheduler(db: Database) -> AsyncIOScheduler:
    jobs = AsyncIOScheduler(timezone="UTC")
    # coalesce: a missed run is run once, not once per missed period.
    options = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 3600}
    jobs.add_job(inflate_inactive, "interval", hours=6, args=[db], **options)
    jobs.add_job(refresh_leaderboard, "interval", minutes=1, args=[db], **options)
    jobs.add_job(clean_empty_lobbies, "interval", minutes=10, args=[db], **options)
    jobs.add_job(refit_ratings, "interval", weeks=1, args=[db], **options)
    jobs.add_job(forget_old_addresses, "interval", hours=24, args=[db], **options)
    return jobs
