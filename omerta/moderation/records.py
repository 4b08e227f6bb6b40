"""What moderators review: every technical vote (T5) and players' reports.

The table runtime calls `record_tech_vote` for each `tech_record` event and
`attach_game` when the game is stored, both inside the transaction of the
step that produced them, so a vote is stored exactly when its step is."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from ..store.models import (
    GamePlayer,
    ModerationCase,
    Report,
    Seat,
    TechBallotRecord,
    TechVoteRecord,
    utcnow,
)
from . import Conflict, NotAllowed, NotFound, reason_text
from .pattern import pattern


async def record_tech_vote(
    s: AsyncSession,
    table_id: int,
    record_line: int,
    event: dict[str, Any],
    now: datetime | None = None,
) -> int:
    """Store one technical vote and, if it passed, open its review case.

    `event` is the engine's `tech_record` event as `to_dict()` gives it
    (kind, by, target, ballots seat -> bool with non-voters false, passed,
    phase, day, called_at, t). `record_line` is the number of the
    table_records line (0 is the header) whose step emitted it: the wait
    line of the timeout that closed the vote, so the record up to and
    including that line replays the game to the vote's result. Seats are
    resolved to users from the table's seats (a bot's seat has no user).
    Call it in the transaction that writes that line; the unique
    (table, line) key refuses a second copy. Returns the vote's id."""
    if event.get("event") != "tech_record":
        raise ValueError(f"not a tech_record event: {event.get('event')!r}")
    users = dict(
        (await s.execute(select(Seat.seat, Seat.user_id).where(Seat.table_id == table_id)))
        .tuples()
        .all()
    )
    ballots = {int(seat): bool(yes) for seat, yes in event["ballots"].items()}
    vote = TechVoteRecord(
        table_id=table_id,
        record_line=record_line,
        kind=event["kind"],
        phase=event["phase"],
        day=event["day"],
        called_at=float(event["called_at"]),
        ended_at=float(event["t"]),
        caller_seat=event["by"],
        caller_id=users.get(event["by"]),
        target_seat=event["target"],
        target_id=users.get(event["target"]),
        yes=sum(ballots.values()),
        voters=len(ballots),
        passed=bool(event["passed"]),
        recorded_at=now or utcnow(),
        ballots=[
            TechBallotRecord(seat=seat, user_id=users.get(seat), yes=yes)
            for seat, yes in sorted(ballots.items())
        ],
    )
    s.add(vote)
    await s.flush()
    if vote.passed:
        found = await pattern(s, vote)
        s.add(
            ModerationCase(vote_id=vote.id, opened_at=vote.recorded_at, flagged=bool(found.votes))
        )
        await s.flush()
    return vote.id


async def attach_game(s: AsyncSession, table_id: int, game_id: int) -> None:
    """Link the table's technical votes to its finished game. Call it in
    the transaction that stores the game (a runtime game-end hook)."""
    await s.execute(
        update(TechVoteRecord).where(TechVoteRecord.table_id == table_id).values(game_id=game_id)
    )


async def file_report(
    s: AsyncSession, game_id: int, reporter_id: int, reason: object, now: datetime | None = None
) -> int:
    """A player's report of a finished game they sat in, opening a case.
    Returns the case id. The unique (game, reporter) key also catches a
    report racing this one (IntegrityError on flush)."""
    text = reason_text(reason)
    seats = (
        (await s.execute(select(GamePlayer.user_id).where(GamePlayer.game_id == game_id)))
        .scalars()
        .all()
    )
    if not seats:
        raise NotFound(f"no finished game {game_id}")
    if reporter_id not in seats:
        raise NotAllowed(f"only a player who sat in game {game_id} may report it")
    if await s.scalar(
        select(Report.id).where(Report.game_id == game_id, Report.reporter_id == reporter_id)
    ):
        raise Conflict(f"you already reported game {game_id}")
    now = now or utcnow()
    report = Report(game_id=game_id, reporter_id=reporter_id, reason=text, created_at=now)
    s.add(report)
    await s.flush()
    case = ModerationCase(report_id=report.id, opened_at=now)
    s.add(case)
    await s.flush()
    return case.id
