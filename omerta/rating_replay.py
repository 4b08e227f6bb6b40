"""Recomputing every rating after a refit (issue 20): the rated ranked
games, not voided, are replayed in the order they ended with the newest
parameters, from newcomers' ratings, as if those parameters had been used
all along.

History is kept two ways: each player's rating before and after the replay
is recorded (rating_recomputes: why a number moved while nobody played),
and each game's award rows are rewritten to the replayed changes, so a
game's shown change, and a later void of it, agree with the ratings now.
Idle time is replayed too: before each game a player's sigma grows by the
whole days since their previous game (the inflation job's rule, counted in
one step), and up to ``now`` after their last.  Coins and experience do not
depend on the parameters and are left alone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from . import league
from .ratings import model
from .store import rating_params
from .store.models import (
    Game,
    GameAward,
    GamePlayer,
    PlayerRating,
    RatedGame,
    RatingRecompute,
    utcnow,
)
from .store.ratings import rating_of

DAY = 86400.0


@dataclass(frozen=True)
class Moved:
    user_id: int
    display_before: int
    display_after: int


@dataclass(frozen=True)
class Replay:
    version: int
    games: int
    moved: list[Moved]
    """Every rated player, largest change of the shown number first."""


def _idle(
    rating: model.Rating, since: datetime | None, until: datetime, params: model.ModelParams
) -> model.Rating:
    if since is None:
        return rating
    days = (until - since).total_seconds() / DAY
    return model.inflate(rating, days, params) if days >= 1.0 else rating


async def recompute(s: AsyncSession, now: datetime | None = None) -> Replay:
    """Replay the ledger with the newest parameters; one transaction."""
    now = now or utcnow()
    side_row = await league._side(s)  # the ratings' lock: no game is rated meanwhile
    version, params = await rating_params.current(s)
    games = (
        (await s.execute(rating_params.rated_in_order(Game.winner, Game.ended_at))).tuples().all()
    )
    ratings: dict[int, model.Rating] = {}
    last: dict[int, datetime] = {}
    side = model.new_side(params)
    replayed = 0
    for game_id, winner, ended in games:
        players = (
            (
                await s.execute(
                    select(GamePlayer)
                    .where(GamePlayer.game_id == game_id, GamePlayer.user_id.is_not(None))
                    .order_by(GamePlayer.seat)
                )
            )
            .scalars()
            .all()
        )
        black = [p.user_id for p in players if p.team == "black" and p.user_id is not None]
        red = [p.user_id for p in players if p.team != "black" and p.user_id is not None]
        if not red or not black:
            continue
        replayed += 1
        before = {
            u: _idle(ratings.get(u, model.new_rating(params)), last.get(u), ended, params)
            for u in red + black
        }
        outcome: model.Outcome = (
            "red" if winner == "red" else "black" if winner == "black" else "draw"
        )
        new_red, new_black, new_side = model.update(
            [before[u] for u in red], [before[u] for u in black], outcome, side, params
        )
        ledger = await s.get(RatedGame, game_id)
        assert ledger is not None  # the query joined it
        ledger.side_mu_change = new_side.mu - side.mu
        ledger.side_variance_change = new_side.sigma**2 - side.sigma**2
        side = new_side
        after = dict(zip(red + black, new_red + new_black))
        awards = (await s.execute(select(GameAward).where(GameAward.game_id == game_id))).scalars()
        for award in awards:
            if award.user_id in after:
                b, a = before[award.user_id], after[award.user_id]
                award.mu_before, award.sigma_before, award.mu_after, award.sigma_after = (
                    b.mu,
                    b.sigma,
                    a.mu,
                    a.sigma,
                )
                award.display_before = model.display(b, params)
                award.display_after = model.display(a, params)
        for u in red + black:
            ratings[u], last[u] = after[u], ended

    moved: list[Moved] = []
    for row in (await s.execute(select(PlayerRating))).scalars():
        old = rating_of(row)
        new = _idle(
            ratings.get(row.user_id, model.new_rating(params)), last.get(row.user_id), now, params
        )
        s.add(
            RatingRecompute(
                version=version,
                user_id=row.user_id,
                at=now,
                mu_before=old.mu,
                sigma_before=old.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
                display_before=model.display(old, params),
                display_after=model.display(new, params),
            )
        )
        moved.append(Moved(row.user_id, model.display(old, params), model.display(new, params)))
        row.mu, row.sigma, row.games = new.mu, new.sigma, new.games
        row.inflated_at = now
    side_row.mu, side_row.sigma, side_row.games = side.mu, side.sigma, side.games
    await league.refresh_leaderboard(s, now)
    moved.sort(key=lambda m: -abs(m.display_after - m.display_before))
    return Replay(version, replayed, moved)
