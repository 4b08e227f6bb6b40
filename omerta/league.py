"""The league's bookkeeping: a finished ranked game's ratings, coins and
experience applied exactly once, in the transaction that stores the game's
end; a game voided by a moderator; idle players' uncertainty grown; the
leaderboard snapshot rebuilt.

This is where the rating model (omerta.ratings, pure) meets the store:
each player's team comes from the game's record (game_players.team,
written when the game ends), so no ruleset is consulted here."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from .ratings import model
from .ratings.awards import award
from .store import rating_params
from .store.models import (
    Game,
    GameAward,
    GamePlayer,
    LeaderboardRow,
    PlayerRating,
    RatedGame,
    RatingSide,
    User,
    utcnow,
)
from .store.ratings import rating_of

SIDE_ID = 1


async def _side(s: AsyncSession) -> RatingSide:
    """The side term, locked for this transaction. Every change to ratings
    takes this lock first, so game ends, voids and inflation (each in its
    own transaction, some at the same moment on Postgres) never lose each
    other's read-modify-write, and never deadlock on players' rows."""
    side = await s.get(RatingSide, SIDE_ID, with_for_update=True)
    if side is None:
        # The first rated game: two may create the row at once; the second
        # waits for the first and then takes its row.
        fresh = model.new_side()
        insert = postgresql.insert if s.bind.dialect.name == "postgresql" else sqlite.insert
        await s.execute(
            insert(RatingSide)
            .values(id=SIDE_ID, mu=fresh.mu, sigma=fresh.sigma, games=0)
            .on_conflict_do_nothing()
        )
        side = await s.get(RatingSide, SIDE_ID, with_for_update=True)
    assert side is not None
    return side


async def apply_game(s: AsyncSession, game_id: int, now: datetime | None = None) -> bool:
    """Apply a finished ranked game's ratings, coins and experience, once.

    Call it in the transaction that stores the game's end. The ledger row is
    the guard: a repeated or retried finish finds it and changes nothing; a
    crash before commit leaves neither the game nor its awards. Returns
    whether this call applied the game."""
    game = await s.get(Game, game_id)
    if game is None or not game.ranked:
        return False
    if await s.get(RatedGame, game_id) is not None:
        return False
    now = now or utcnow()
    side_row = await _side(s)
    # The newest fitted parameters (`omerta ratings fit`), else the defaults.
    _, params = await rating_params.current(s)
    ledger = RatedGame(game_id=game_id, applied_at=now)
    s.add(ledger)
    players = (
        (
            await s.execute(
                select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(GamePlayer.seat)
            )
        )
        .scalars()
        .all()
    )
    humans = [p for p in players if p.user_id is not None]
    rows = {p.user_id: await s.get(PlayerRating, p.user_id) for p in humans}
    # Only classic games are ranked (A1): black against red.
    black = [p for p in humans if p.team == "black"]
    red = [p for p in humans if p.team != "black"]
    side = model.SideState(side_row.mu, side_row.sigma, side_row.games)
    outcome: Literal["red", "black", "draw"] = (
        "red" if game.winner == "red" else "black" if game.winner == "black" else "draw"
    )

    def before_game(user_id: int | None) -> model.Rating:
        row = rows[user_id]
        return model.new_rating(params) if row is None else rating_of(row)

    new_red, new_black, new_side = model.update(
        [before_game(p.user_id) for p in red],
        [before_game(p.user_id) for p in black],
        outcome,
        side,
        params,
    )
    ledger.side_mu_change = new_side.mu - side_row.mu
    ledger.side_variance_change = new_side.sigma**2 - side_row.sigma**2
    side_row.mu, side_row.sigma, side_row.games = new_side.mu, new_side.sigma, new_side.games
    for player, after in [*zip(red, new_red), *zip(black, new_black)]:
        before = before_game(player.user_id)
        gift = award(player.result, player.forfeit)
        row = rows[player.user_id]
        if row is None:
            row = PlayerRating(user_id=player.user_id, coins=0, experience=0)
            s.add(row)
        row.mu, row.sigma, row.games = after.mu, after.sigma, after.games
        row.coins += gift.coins
        row.experience += gift.experience
        row.last_game_at = row.inflated_at = now
        s.add(
            GameAward(
                game_id=game_id,
                user_id=player.user_id,
                mu_before=before.mu,
                sigma_before=before.sigma,
                mu_after=after.mu,
                sigma_after=after.sigma,
                display_before=model.display(before),
                display_after=model.display(after),
                coins=gift.coins,
                experience=gift.experience,
            )
        )
    await s.flush()
    return True


async def void_game(s: AsyncSession, game_id: int, now: datetime | None = None) -> bool:
    """Revert exactly what a ranked game changed, for every player and the
    side term, even after later games were rated: each change is undone as
    a difference (mu, variance, games, coins, experience), so later games'
    changes stay. Returns False when there is nothing (left) to void."""
    ledger = await s.get(RatedGame, game_id)
    if ledger is None or ledger.voided_at is not None:
        return False
    side = await _side(s)
    ledger.voided_at = now or utcnow()
    cap = (await rating_params.current(s))[1].sigma0
    awards = (await s.execute(select(GameAward).where(GameAward.game_id == game_id))).scalars()
    for gift in awards:
        row = await s.get(PlayerRating, gift.user_id)
        assert row is not None  # an award is only ever given to a rated player
        row.mu -= gift.mu_after - gift.mu_before
        row.sigma = min(cap, (row.sigma**2 + gift.sigma_before**2 - gift.sigma_after**2) ** 0.5)
        row.games -= 1
        row.coins -= gift.coins
        row.experience -= gift.experience
    side.mu -= ledger.side_mu_change
    side.sigma = max(0.0, side.sigma**2 - ledger.side_variance_change) ** 0.5
    side.games -= 1
    await s.flush()
    return True


async def refresh_leaderboard(s: AsyncSession, now: datetime | None = None) -> int:
    """Rebuild the snapshot from the ratings; the same ratings give the same
    snapshot, so running it twice is harmless."""
    now = now or utcnow()
    rows = (
        (
            await s.execute(
                select(PlayerRating, User.username).join(User, User.id == PlayerRating.user_id)
            )
        )
        .tuples()
        .all()
    )
    ranked = sorted(rows, key=lambda r: (-model.display(rating_of(r[0])), r[1].lower()))
    await s.execute(delete(LeaderboardRow))
    for rank, (row, name) in enumerate(ranked, 1):
        rating = rating_of(row)
        s.add(
            LeaderboardRow(
                rank=rank,
                user_id=row.user_id,
                username=name,
                rating=model.display(rating),
                games=rating.games,
                provisional=model.provisional(rating),
                refreshed_at=now,
            )
        )
    await s.flush()
    return len(ranked)


async def inflate_inactive(
    s: AsyncSession, now: datetime | None = None, idle: timedelta = timedelta(days=1)
) -> int:
    """Grow sigma for players idle at least `idle`, counting only the time
    since the last inflation: a rerun finds nothing new to count."""
    now = now or utcnow()
    await _side(s)
    _, params = await rating_params.current(s)
    rows = (
        (await s.execute(select(PlayerRating).where(PlayerRating.inflated_at <= now - idle)))
        .scalars()
        .all()
    )
    for row in rows:
        assert row.inflated_at is not None  # the query selected rows that have one
        days = (now - row.inflated_at).total_seconds() / 86400
        row.sigma = model.inflate(rating_of(row), days, params).sigma
        row.inflated_at = now
    await s.flush()
    return len(rows)
