"""Tournaments in the store: the tournament, its players, rounds and round
tables (docs/tournaments.md). Callers that change a tournament take it
with `get(..., lock=True)` first, so two directors' requests, or a request
and the round starter, do not interleave."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from . import tables
from .models import (
    Game,
    GameTable,
    Seat,
    Tournament,
    TournamentPlayer,
    TournamentRound,
    TournamentTable,
    User,
    utcnow,
)


async def get(s: AsyncSession, tournament_id: int, *, lock: bool = False) -> Tournament | None:
    query = (
        select(Tournament)
        .where(Tournament.id == tournament_id)
        .execution_options(populate_existing=True)
    )
    if lock:
        query = query.with_for_update()
    return await s.scalar(query)


async def listing(s: AsyncSession, limit: int = 100) -> Sequence[Tournament]:
    """The newest tournaments first."""
    return (await s.scalars(select(Tournament).order_by(Tournament.id.desc()).limit(limit))).all()


@dataclass(frozen=True)
class Entrant:
    user_id: int
    username: str
    number: int | None
    invited: bool
    checked_in: bool


async def players(s: AsyncSession, tournament_id: int) -> list[Entrant]:
    """Registered players in the order they joined (their schedule number
    order once there is one)."""
    rows = await s.execute(
        select(TournamentPlayer, User.username)
        .join(User, User.id == TournamentPlayer.user_id)
        .where(TournamentPlayer.tournament_id == tournament_id)
        .order_by(TournamentPlayer.number, TournamentPlayer.joined_at, TournamentPlayer.user_id)
    )
    return [
        Entrant(p.user_id, name, p.number, p.invited_by is not None, p.checked_in_at is not None)
        for p, name in rows.tuples()
    ]


async def entrant(s: AsyncSession, tournament_id: int, user_id: int) -> TournamentPlayer | None:
    return await s.get(TournamentPlayer, (tournament_id, user_id))


async def rounds(s: AsyncSession, tournament_id: int) -> list[TournamentRound]:
    return list(
        (
            await s.scalars(
                select(TournamentRound)
                .where(TournamentRound.tournament_id == tournament_id)
                .order_by(TournamentRound.number)
                .execution_options(populate_existing=True)
            )
        ).all()
    )


async def round_tables(
    s: AsyncSession, tournament_id: int, round: int | None = None
) -> list[TournamentTable]:
    query = select(TournamentTable).where(TournamentTable.tournament_id == tournament_id)
    if round is not None:
        query = query.where(TournamentTable.round == round)
    return list(
        (
            await s.scalars(
                query.order_by(TournamentTable.round, TournamentTable.number).execution_options(
                    populate_existing=True
                )
            )
        ).all()
    )


async def table_statuses(s: AsyncSession, table_ids: Sequence[int]) -> dict[int, str]:
    rows = await s.execute(
        select(GameTable.id, GameTable.status).where(GameTable.id.in_(table_ids))
    )
    return dict(rows.tuples().all())


async def games_of_tables(s: AsyncSession, table_ids: Sequence[int]) -> dict[int, Game]:
    """The stored game of each finished table among `table_ids`."""
    rows = await s.scalars(select(Game).where(Game.table_id.in_(table_ids)))
    return {game.table_id: game for game in rows}


async def start_seated(
    s: AsyncSession,
    table_id: int,
    occupants: Sequence[int | None],
    stand_ins: Collection[int] = (),
) -> None:
    """Seat `occupants[i]` (a user id, or None for a bot) in seat i + 1 of the
    new table `table_id` and mark it playing: a tournament's seats are the
    schedule's, not drawn (C1). `stand_ins`: the bot seats that play for an
    absentee (A1). Raises tables.AlreadySeated when one of them took a live
    seat elsewhere meanwhile."""
    rows = [
        {
            "table_id": table_id,
            "seat": n,
            "user_id": who,
            "is_bot": who is None,
            "stands_in": n in stand_ins,
        }
        for n, who in enumerate(occupants, start=1)
    ]
    try:
        await s.execute(insert(Seat), rows)
    except IntegrityError:
        raise tables.AlreadySeated() from None
    await s.execute(
        update(GameTable)
        .where(GameTable.id == table_id)
        .values(status="playing", started_at=utcnow())
    )


async def seated_anywhere(s: AsyncSession, user_ids: Sequence[int]) -> set[int]:
    """Which of `user_ids` have a live seat (an open or playing table)."""
    rows = await s.scalars(select(Seat.user_id).where(Seat.user_id.in_(user_ids), Seat.live))
    return {u for u in rows if u is not None}


async def of_table(s: AsyncSession, table_id: int) -> TournamentTable | None:
    return await s.scalar(select(TournamentTable).where(TournamentTable.table_id == table_id))


async def next_start(s: AsyncSession) -> datetime | None:
    """When the earliest round not started yet of a scheduled or running
    tournament is due."""
    return await s.scalar(
        select(TournamentRound.starts_at)
        .join(Tournament, Tournament.id == TournamentRound.tournament_id)
        .where(
            TournamentRound.started_at.is_(None),
            Tournament.status.in_(("scheduled", "running")),
        )
        .order_by(TournamentRound.starts_at)
        .limit(1)
    )


async def running_with_every_round_started(s: AsyncSession) -> list[int]:
    """Running tournaments none of whose rounds waits to start."""
    waiting = select(TournamentRound.tournament_id).where(TournamentRound.started_at.is_(None))
    rows = await s.scalars(
        select(Tournament.id).where(Tournament.status == "running", Tournament.id.not_in(waiting))
    )
    return list(rows)


async def due_rounds(s: AsyncSession, now: datetime) -> list[tuple[int, int]]:
    """(tournament id, round) of every round due by `now` and not started,
    of a scheduled or running tournament, earliest first."""
    rows = await s.execute(
        select(TournamentRound.tournament_id, TournamentRound.number)
        .join(Tournament, Tournament.id == TournamentRound.tournament_id)
        .where(
            TournamentRound.started_at.is_(None),
            TournamentRound.starts_at <= now,
            Tournament.status.in_(("scheduled", "running")),
        )
        .order_by(TournamentRound.starts_at, TournamentRound.tournament_id, TournamentRound.number)
    )
    return list(rows.tuples().all())


async def user_names(s: AsyncSession, user_ids: Sequence[int]) -> dict[int, str]:
    rows = await s.execute(select(User.id, User.username).where(User.id.in_(user_ids)))
    return dict(rows.tuples().all())
