"""Moderator decisions. Each one writes exactly one audit entry, in the
same transaction as its effect, so the log and the effect never disagree.

- uphold: the table (or the reporter) was right; nothing changes.
- overturn (votes): the vote was wrong. An overturned foul leaves the
  player's record. A vote that changed the game (a defeat, a removal, or
  the foul that removed its target, T3) voids the game's ranked result:
  its exact rating, side, coin and experience changes are reverted.
- dismiss (reports): the report was unfounded.
- sanction / lift: a warning, a suspension for N days or a ban, with a
  reason; lifting ends one early. A suspension or ban takes the player
  out of the tables not started yet that it keeps them from, at once.

A case is decided once. A moderator does not decide a case of a game they
sat in, nor sanctions themselves."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from .. import league
from ..store.models import (
    CaseStatus,
    GamePlayer,
    GameTable,
    ModerationCase,
    Report,
    Sanction,
    Seat,
    TechVoteRecord,
    User,
    utcnow,
)
from ..table.technical import FOULS_TO_REMOVE
from . import Conflict, Invalid, NotAllowed, NotFound, audit, reason_text
from .sanctions import KINDS, unseat

MAX_DAYS = 3650


async def _open_case(s: AsyncSession, case_id: int, moderator_id: int) -> ModerationCase:
    case = await s.scalar(
        select(ModerationCase).where(ModerationCase.id == case_id).with_for_update()
    )
    if case is None:
        raise NotFound(f"no case {case_id}")
    if case.status != "open":
        raise Conflict(f"case {case_id} is already decided: {case.status}")
    if case.vote_id is not None:
        table_id = await s.scalar(
            select(TechVoteRecord.table_id).where(TechVoteRecord.id == case.vote_id)
        )
        sat = select(Seat.seat).where(Seat.table_id == table_id, Seat.user_id == moderator_id)
    else:
        game_id = await s.scalar(select(Report.game_id).where(Report.id == case.report_id))
        sat = select(GamePlayer.seat).where(
            GamePlayer.game_id == game_id, GamePlayer.user_id == moderator_id
        )
    if await s.scalar(sat) is not None:
        raise NotAllowed(f"you played in the game of case {case_id}: another moderator decides it")
    return case


def _close(case: ModerationCase, status: CaseStatus, moderator_id: int, now: datetime) -> None:
    case.status, case.decided_by, case.decided_at = status, moderator_id, now


async def _vote_of(s: AsyncSession, case: ModerationCase, decision: str) -> TechVoteRecord:
    if case.vote_id is None:
        raise Invalid(f"case {case.id} is a report: it is upheld or dismissed, not {decision}")
    vote = await s.get(TechVoteRecord, case.vote_id)
    assert vote is not None
    return vote


def _vote_details(vote: TechVoteRecord, **more: object) -> dict[str, object]:
    return {
        "vote": vote.id,
        "kind": vote.kind,
        "table": vote.table_id,
        "game": vote.game_id,
        **more,
    }


async def uphold(
    s: AsyncSession, moderator_id: int, case_id: int, reason: object, now: datetime | None = None
) -> int:
    """The table (or the reporter) was right. Returns the audit entry's id."""
    text, now = reason_text(reason), now or utcnow()
    case = await _open_case(s, case_id, moderator_id)
    _close(case, "upheld", moderator_id, now)
    if case.vote_id is None:
        report = await s.get(Report, case.report_id)
        assert report is not None  # a case of a report keeps it (foreign key)
        return await audit.append(
            s,
            moderator_id,
            "uphold",
            text,
            case_id=case.id,
            now=now,
            details={"report": report.id, "game": report.game_id},
        )
    vote = await s.get(TechVoteRecord, case.vote_id)
    assert vote is not None  # a case of a vote keeps it (foreign key)
    return await audit.append(
        s,
        moderator_id,
        "uphold",
        text,
        user_id=vote.target_id,
        case_id=case.id,
        details=_vote_details(vote),
        now=now,
    )


async def _changed_the_game(s: AsyncSession, vote: TechVoteRecord) -> bool:
    """A defeat or a removal did; so did the foul that removed its target (T3)."""
    if vote.kind != "foul":
        return True
    fouls = await s.scalar(
        select(func.count())
        .select_from(TechVoteRecord)
        .where(
            TechVoteRecord.table_id == vote.table_id,
            TechVoteRecord.kind == "foul",
            TechVoteRecord.passed.is_(True),
            TechVoteRecord.target_seat == vote.target_seat,
            TechVoteRecord.record_line <= vote.record_line,
        )
    )
    return (fouls or 0) >= FOULS_TO_REMOVE


async def overturn(
    s: AsyncSession, moderator_id: int, case_id: int, reason: object, now: datetime | None = None
) -> int:
    """The vote was wrong. Returns the audit entry's id; its details say
    whether the game's ranked result was voided by this decision."""
    text, now = reason_text(reason), now or utcnow()
    case = await _open_case(s, case_id, moderator_id)
    vote = await _vote_of(s, case, "overturned")
    voided = False
    if await _changed_the_game(s, vote):
        if vote.game_id is None:
            status = await s.scalar(select(GameTable.status).where(GameTable.id == vote.table_id))
            if status in ("open", "playing"):
                raise Conflict(
                    f"the game at table {vote.table_id} is still on: this {vote.kind}"
                    " changed it, so it is overturned once the game has ended"
                )
        else:
            voided = await league.void_game(s, vote.game_id, now)
    _close(case, "overturned", moderator_id, now)
    return await audit.append(
        s,
        moderator_id,
        "overturn",
        text,
        user_id=vote.target_id,
        case_id=case.id,
        details=_vote_details(vote, voided=voided),
        now=now,
    )


async def dismiss(
    s: AsyncSession, moderator_id: int, case_id: int, reason: object, now: datetime | None = None
) -> int:
    """The report was unfounded. Returns the audit entry's id."""
    text, now = reason_text(reason), now or utcnow()
    case = await _open_case(s, case_id, moderator_id)
    if case.report_id is None:
        raise Invalid(
            f"case {case_id} is a technical vote: it is upheld or overturned, not dismissed"
        )
    report = await s.get(Report, case.report_id)
    assert report is not None  # a case of a report keeps it (foreign key)
    _close(case, "dismissed", moderator_id, now)
    return await audit.append(
        s,
        moderator_id,
        "dismiss",
        text,
        case_id=case.id,
        now=now,
        details={"report": report.id, "game": report.game_id},
    )


def _days(kind: str, days: int | None) -> int | None:
    """The suspension's length (a whole number already, checked where the
    request was read: omerta/server/params.py)."""
    if kind != "suspension":
        if days is not None:
            raise Invalid(f"only a suspension has a number of days, not a {kind}")
        return None
    if days is None or not 1 <= days <= MAX_DAYS:
        raise Invalid(f"a suspension needs 'days': a whole number from 1 to {MAX_DAYS}")
    return days


async def sanction(
    s: AsyncSession,
    moderator_id: int,
    user_id: int,
    kind: object,
    reason: object,
    days: int | None = None,
    case_id: int | None = None,
    now: datetime | None = None,
) -> Sanction:
    """Give a warning, a suspension for `days` or a ban."""
    if kind not in KINDS:
        raise Invalid(f"a sanction is one of {', '.join(KINDS)}; got {kind!r}")
    length, text, now = _days(kind, days), reason_text(reason), now or utcnow()
    if await s.get(User, user_id) is None:
        raise NotFound(f"no user {user_id}")
    if user_id == moderator_id:
        raise NotAllowed("a moderator does not sanction themselves")
    if case_id is not None and await s.get(ModerationCase, case_id) is None:
        raise NotFound(f"no case {case_id}")
    ends = now + timedelta(days=length) if length else None
    given = Sanction(
        user_id=user_id,
        kind=kind,
        reason=text,
        starts_at=now,
        ends_at=ends,
        moderator_id=moderator_id,
        case_id=case_id,
    )
    s.add(given)
    await s.flush()
    left = await unseat(s, user_id, now)
    await audit.append(
        s,
        moderator_id,
        "sanction",
        text,
        user_id=user_id,
        case_id=case_id,
        now=now,
        details={
            "sanction": given.id,
            "kind": kind,
            "days": length,
            "ends_at": ends.isoformat() if ends else None,
            "unseated_from": left,
        },
    )
    return given


async def lift(
    s: AsyncSession,
    moderator_id: int,
    sanction_id: int,
    reason: object,
    now: datetime | None = None,
) -> int:
    """End a sanction early. Returns the audit entry's id."""
    text, now = reason_text(reason), now or utcnow()
    given = await s.scalar(select(Sanction).where(Sanction.id == sanction_id).with_for_update())
    if given is None:
        raise NotFound(f"no sanction {sanction_id}")
    if given.lifted_at is not None or (given.ends_at is not None and given.ends_at <= now):
        raise Conflict(f"sanction {sanction_id} has already ended")
    given.lifted_at, given.lifted_by = now, moderator_id
    return await audit.append(
        s,
        moderator_id,
        "lift_sanction",
        text,
        user_id=given.user_id,
        case_id=given.case_id,
        now=now,
        details={"sanction": given.id, "kind": given.kind},
    )
