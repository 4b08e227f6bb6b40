"""Ratings, coins and experience as stored: profiles, a player's games and
the leaderboard snapshot. Applying and voiding games, inflation and the
snapshot's rebuild run the rating model and live in omerta/league.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..ratings import model
from .models import Game, GameAward, GamePlayer, LeaderboardRow, PlayerRating, RatedGame, User


def rating_of(row: PlayerRating | None) -> model.Rating:
    """A player's rating as the model reads it (a newcomer's when no row)."""
    if row is None:
        return model.new_rating()
    return model.Rating(row.mu, row.sigma, row.games)


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
    roles: dict[str, dict[str, int]]  # role -> {"games", "wins"}


async def profile(s: AsyncSession, username: str) -> Profile | None:
    user = (
        await s.execute(select(User).where(func.lower(User.username) == username.lower()))
    ).scalar_one_or_none()
    if user is None:
        return None
    row = await s.get(PlayerRating, user.id)
    rating = rating_of(row)
    counts = await s.execute(
        select(GamePlayer.role, GamePlayer.result, func.count())
        .join(Game, Game.id == GamePlayer.game_id)
        .where(GamePlayer.user_id == user.id, Game.ranked.is_(True))
        .group_by(GamePlayer.role, GamePlayer.result)
    )
    roles: dict[str, dict[str, int]] = {}
    for role, result, n in counts.tuples():
        entry = roles.setdefault(role, {"games": 0, "wins": 0})
        entry["games"] += n
        entry["wins"] += n if result == "win" else 0
    return Profile(
        user.id,
        user.username,
        model.display(rating),
        rating.mu,
        rating.sigma,
        rating.games,
        model.provisional(rating),
        row.coins if row else 0,
        row.experience if row else 0,
        roles,
    )


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
        .offset((page - 1) * per_page)
        .limit(per_page)
    )
    out = []
    for game, player, gift, ledger in rows.tuples():
        out.append(
            GameLine(
                game.id,
                game.ended_at,
                game.ranked,
                player.seat,
                player.role,
                player.result,
                gift.display_after - gift.display_before if gift else None,
                gift.coins if gift else 0,
                gift.experience if gift else 0,
                bool(ledger and ledger.voided_at),
            )
        )
    return out


async def leaderboard(
    s: AsyncSession, page: int, per_page: int
) -> tuple[list[LeaderboardRow], int]:
    total = (await s.execute(select(func.count()).select_from(LeaderboardRow))).scalar_one()
    rows = (
        (
            await s.execute(
                select(LeaderboardRow)
                .order_by(LeaderboardRow.rank)
                .offset((page - 1) * per_page)
                .limit(per_page)
            )
        )
        .scalars()
        .all()
    )
    return list(rows), total
