"""Finished games and who played them: what ratings and moderation read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from .models import Game, GamePlayer, utcnow


@dataclass(frozen=True, slots=True)
class PlayerResult:
    seat: int
    user_id: int | None  # None: a bot
    role: str
    result: str  # win / loss / draw
    team: str  # red / black / maniac, as the ruleset assigned it
    forfeit: bool = False  # removed (T3) or the technical defeat's offender (T4)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    game_id: int
    table_id: int
    ended_at: datetime
    winner: str
    reason: str
    ranked: bool
    seat: int
    role: str
    result: str


async def record_game(
    s: AsyncSession,
    table_id: int,
    winner: str,
    reason: str,
    ranked: bool,
    players: Sequence[PlayerResult],
    ended_at: datetime | None = None,
) -> int:
    game = Game(
        table_id=table_id,
        winner=winner,
        reason=reason,
        ranked=ranked,
        ended_at=ended_at or utcnow(),
        players=[
            GamePlayer(
                seat=p.seat,
                user_id=p.user_id,
                role=p.role,
                result=p.result,
                team=p.team,
                forfeit=p.forfeit,
            )
            for p in players
        ],
    )
    s.add(game)
    await s.flush()
    return game.id


async def history(s: AsyncSession, user_id: int, limit: int = 50) -> list[HistoryEntry]:
    """The user's finished games, newest first."""
    rows = await s.execute(
        select(Game, GamePlayer)
        .join(GamePlayer, GamePlayer.game_id == Game.id)
        .where(GamePlayer.user_id == user_id)
        .order_by(Game.ended_at.desc(), Game.id.desc())
        .limit(limit)
    )
    return [
        HistoryEntry(
            game.id,
            game.table_id,
            game.ended_at,
            game.winner,
            game.reason,
            game.ranked,
            player.seat,
            player.role,
            player.result,
        )
        for game, player in rows.tuples()
    ]


async def table_of_game(s: AsyncSession, game_id: int) -> int | None:
    """The table a finished game was played at (its record is the table's)."""
    return await s.scalar(select(Game.table_id).where(Game.id == game_id))
