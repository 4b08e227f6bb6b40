"""Ratings, coins and experience in the database: applied exactly once per
ranked game, in the transaction that stores the game's end."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from ..ratings import model
from ..ratings.awards import award
from ..table import CLASSIC
from .models import (Game, GameAward, GamePlayer, LeaderboardRow, PlayerRating, RatedGame,
                     RatingSide, User, utcnow)

SIDE_ID = 1


def _rating(row: PlayerRating | None) -> model.Rating:
    if row is None:
        return model.new_rating()
    return model.Rating(row.mu, row.sigma, row.games)


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
        await s.execute(insert(RatingSide).values(id=SIDE_ID, mu=fresh.mu, sigma=fresh.sigma,
                                                  games=0).on_conflict_do_nothing())
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
    ledger = RatedGame(game_id=game_id, applied_at=now)
    s.add(ledger)
    players = (await s.execute(select(GamePlayer).where(GamePlayer.game_id == game_id)
                               .order_by(GamePlayer.seat))).scalars().all()
    humans = [p for p in players if p.user_id is not None]
    rows = {p.user_id: await s.get(PlayerRating, p.user_id) for p in humans}
    # Only classic games are ranked (A1); the ruleset says who is on which team.
    black = [p for p in humans if CLASSIC.team(p.role) == "black"]
    red = [p for p in humans if CLASSIC.team(p.role) != "black"]
    side = model.SideState(side_row.mu, side_row.sigma, side_row.games)
    outcome = game.winner if game.winner in ("red", "black") else "draw"
    new_red, new_black, new_side = model.update(
        [_rating(rows[p.user_id]) for p in red], [_rating(rows[p.user_id]) for p in black],
        outcome, side)
    ledger.side_mu_change = new_side.mu - side_row.mu
    ledger.side_variance_change = new_side.sigma ** 2 - side_row.sigma ** 2
    side_row.mu, side_row.sigma, side_row.games = new_side.mu, new_side.sigma, new_side.games
    for player, after in [*zip(red, new_red), *zip(black, new_black)]:
        before = _rating(rows[player.user_id])
        gift = award(player.result, player.forfeit)
        row = rows[player.user_id]
        if row is None:
            row = PlayerRating(user_id=player.user_id, coins=0, experience=0)
            s.add(row)
        row.mu, row.sigma, row.games = after.mu, after.sigma, after.games
        row.coins += gift.coins
        row.experience += gift.experience
        row.last_game_at = row.inflated_at = now
        s.add(GameAward(game_id=game_id, user_id=player.user_id, mu_before=before.mu,
                        sigma_before=before.sigma, mu_after=after.mu, sigma_after=after.sigma,
                        display_before=model.display(before), display_after=model.display(after),
                        coins=gift.coins, experience=gift.experience))
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
    cap = model.DEFAULT_PARAMS.sigma0
    awards = (await s.execute(select(GameAward).where(GameAward.game_id == game_id))).scalars()
    for gift in awards:
        row = await s.get(PlayerRating, gift.user_id)
        row.mu -= gift.mu_after - gift.mu_before
        row.sigma = min(cap, (row.sigma ** 2 + gift.sigma_before ** 2 - gift.sigma_after ** 2) ** 0.5)
        row.games -= 1
        row.coins -= gift.coins
        row.experience -= gift.experience
    side.mu -= ledger.side_mu_change
    side.sigma = max(0.0, side.sigma ** 2 - ledger.side_variance_change) ** 0.5
    side.games -= 1
    await s.flush()
    return True


@dataclass(frozen=True, slots=True)
class Profile:
    user_id: int
    username: str
    rating: int
    mu: float
    sigma: float
    games: int
    provisional: bool
    coins: int
    experience: int
    roles: dict[str, dict[str, int]]     # role -> {"games", "wins"}


async def profile(s: AsyncSession, username: str) -> Profile | None:
    user = (await s.execute(select(User).where(func.lower(User.username) == username.lower()))
            ).scalar_one_or_none()
    if user is None:
        return None
    row = await s.get(PlayerRating, user.id)
    rating = _rating(row)
    counts = await s.execute(
        select(GamePlayer.role, GamePlayer.result, func.count())
        .join(Game, Game.id == GamePlayer.game_id)
        .where(GamePlayer.user_id == user.id, Game.ranked.is_(True))
        .group_by(GamePlayer.role, GamePlayer.result))
    roles: dict[str, dict[str, int]] = {}
    for role, result, n in counts.tuples():
        entry = roles.setdefault(role, {"games": 0, "wins": 0})
        entry["games"] += n
        entry["wins"] += n if result == "win" else 0
    return Profile(user.id, user.username, model.display(rating), rating.mu, rating.sigma,
                   rating.games, model.provisional(rating), row.coins if row else 0,
                   row.experience if row else 0, roles)


@dataclass(frozen=True, slots=True)
class GameLine:
    game_id: int
    ended_at: datetime
    ranked: bool
    seat: int
    role: str
    result: str
    rating_change: int | None
    coins: int
    experience: int
    voided: bool


async def games(s: AsyncSession, user_id: int, page: int, per_page: int) -> list[GameLine]:
    """A player's finished games, newest first, with what each changed."""
    rows = await s.execute(
        select(Game, GamePlayer, GameAward, RatedGame)
        .join(GamePlayer, GamePlayer.game_id == Game.id)
        .outerjoin(GameAward, (GameAward.game_id == Game.id) & (GameAward.user_id == user_id))
        .outerjoin(RatedGame, RatedGame.game_id == Game.id)
        .where(GamePlayer.user_id == user_id)
        .order_by(Game.ended_at.desc(), Game.id.desc())
        .offset((page - 1) * per_page).limit(per_page))
    out = []
    for game, player, gift, ledger in rows.tuples():
        out.append(GameLine(
            game.id, game.ended_at, game.ranked, player.seat, player.role, player.result,
            gift.display_after - gift.display_before if gift else None,
            gift.coins if gift else 0, gift.experience if gift else 0,
            bool(ledger and ledger.voided_at)))
    return out


async def refresh_leaderboard(s: AsyncSession, now: datetime | None = None) -> int:
    """Rebuild the snapshot from the ratings; the same ratings give the same
    snapshot, so running it twice is harmless."""
    now = now or utcnow()
    rows = (await s.execute(select(PlayerRating, User.username)
                            .join(User, User.id == PlayerRating.user_id))).tuples().all()
    ranked = sorted(rows, key=lambda r: (-model.display(_rating(r[0])), r[1].lower()))
    await s.execute(delete(LeaderboardRow))
    for rank, (row, name) in enumerate(ranked, 1):
        rating = _rating(row)
        s.add(LeaderboardRow(rank=rank, user_id=row.user_id, username=name,
                             rating=model.display(rating), games=rating.games,
                             provisional=model.provisional(rating), refreshed_at=now))
    await s.flush()
    return len(ranked)


async def leaderboard(s: AsyncSession, page: int, per_page: int) -> tuple[list[LeaderboardRow], int]:
    total = (await s.execute(select(func.count()).select_from(LeaderboardRow))).scalar_one()
    rows = (await s.execute(select(LeaderboardRow).order_by(LeaderboardRow.rank)
                            .offset((page - 1) * per_page).limit(per_page))).scalars().all()
    return list(rows), total


async def inflate_inactive(s: AsyncSession, now: datetime | None = None,
                           idle: timedelta = timedelta(days=1)) -> int:
    """Grow sigma for players idle at least `idle`, counting only the time
    since the last inflation: a rerun finds nothing new to count."""
    now = now or utcnow()
    await _side(s)
    rows = (await s.execute(select(PlayerRating).where(PlayerRating.inflated_at <= now - idle))
            ).scalars().all()
    for row in rows:
        days = (now - row.inflated_at).total_seconds() / 86400
        row.sigma = model.inflate(_rating(row), days).sigma
        row.inflated_at = now
    await s.flush()
    return len(rows)
