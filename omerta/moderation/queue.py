"""The review queue and what a moderator sees of a case: the votes with
their ballots, the events around the vote (replayed from the table's
record), the record itself up to the vote, and the players' past fouls
and sanctions.

A table's record reveals every role, so it opens to moderators only once
the table's game is over (finished or abandoned): a moderator can never
learn hidden information of a game still being played. The same holds for
the ballots of a technical vote (its players see only the count, T2): at a
table still being played they are not shown, and neither is what is
computed from them (the abuse flag and its group), to anyone, moderator or
not, seated there or not."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from ..script import Player, ScriptError, parse
from ..store import tables
from ..store.models import (
    Game,
    GamePlayer,
    GameTable,
    ModerationCase,
    Report,
    Sanction,
    Seat,
    TechVoteRecord,
    User,
)
from . import Conflict, NotFound, audit
from .pattern import pattern

STATUSES = ("open", "upheld", "overturned", "dismissed")
#: the events shown around a vote: from this many record lines before its
#: call to this many after the line that ended it
LINES_BEFORE, LINES_AFTER = 2, 3
ENDED = ("finished", "abandoned")


@dataclass(frozen=True, slots=True)
class Person:
    seat: int
    user: str | None  # None: a bot


@dataclass(frozen=True, slots=True)
class BallotView:
    seat: int
    user: str | None
    yes: bool


@dataclass(frozen=True, slots=True)
class VoteView:
    id: int
    table: int
    game: int | None
    record_line: int
    kind: str
    phase: str
    day: int
    called_at: float
    ended_at: float
    caller: Person
    target: Person
    yes: int
    voters: int
    passed: bool
    recorded_at: datetime
    #: empty while the vote's table is still being played (`ballots_open` false)
    ballots: list[BallotView]
    ballots_open: bool
    #: at a practice table (not ranked by its ruleset, A1: a bot seated, or
    #: city mode): nothing ranked rides on it
    practice: bool


@dataclass(frozen=True, slots=True)
class ReportView:
    id: int
    game: int
    table: int
    reporter: str
    reason: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CaseView:
    id: int
    status: str
    flagged: bool | None  # None: computed from ballots of a game still on
    opened_at: datetime
    decided_at: datetime | None
    decided_by: str | None
    vote: VoteView | None
    report: ReportView | None


@dataclass(frozen=True, slots=True)
class FoulView:
    vote: int
    table: int
    game: int | None
    recorded_at: datetime
    status: str  # open (not reviewed yet) or upheld


@dataclass(frozen=True, slots=True)
class SanctionView:
    id: int
    kind: str
    reason: str
    starts_at: datetime
    ends_at: datetime | None
    lifted_at: datetime | None


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    user: str
    fouls: list[FoulView]
    sanctions: list[SanctionView]


@dataclass(frozen=True, slots=True)
class Window:
    """The events replayed from the record around a vote, every audience,
    each with the record line that produced it."""

    upto: int
    events: list[dict[str, Any]]
    error: str | None  # the record did not replay to this vote


@dataclass(frozen=True, slots=True)
class CaseDetail:
    case: CaseView
    table: int
    record_open: bool  # the game is over: its record may be read
    table_votes: list[VoteView]  # every technical vote at the table, passed or not
    pattern: list[VoteView]  # the earlier votes that flagged this one
    group: list[str]  # who voted yes in this vote and those
    window: Window | None
    players: list[PlayerRecord]
    decisions: list[audit.Entry]


async def _names(s: AsyncSession, ids: Iterable[int | None]) -> dict[int | None, str | None]:
    wanted = {i for i in ids if i is not None}
    rows = await s.execute(select(User.id, User.username).where(User.id.in_(wanted)))
    return {None: None, **dict(rows.tuples().all())}


async def _ended(s: AsyncSession, table_ids: Iterable[int]) -> set[int]:
    """Which of these tables' games are over."""
    rows = await s.execute(
        select(GameTable.id).where(GameTable.id.in_(set(table_ids)), GameTable.status.in_(ENDED))
    )
    return set(rows.scalars())


async def _practice(s: AsyncSession, which: Any) -> set[int]:
    """Of the tables `which` names (ids, or a query of them), the practice
    ones: those their ruleset does not rank (A1; tables.ranked)."""
    found = await s.execute(
        select(GameTable).where(GameTable.id.in_(which)).options(selectinload(GameTable.seats))
    )
    return {table.id for table in found.scalars() if not tables.ranked(table)}


async def _votes(s: AsyncSession, condition: Any) -> list[VoteView]:
    found = (
        (
            await s.execute(
                select(TechVoteRecord)
                .where(condition)
                .options(selectinload(TechVoteRecord.ballots))
                .order_by(TechVoteRecord.id)
            )
        )
        .scalars()
        .all()
    )
    ended = await _ended(s, (v.table_id for v in found))
    practice = await _practice(s, {v.table_id for v in found})
    names = await _names(
        s, [x for v in found for x in (v.caller_id, v.target_id, *(b.user_id for b in v.ballots))]
    )
    return [
        VoteView(
            v.id,
            v.table_id,
            v.game_id,
            v.record_line,
            v.kind,
            v.phase,
            v.day,
            v.called_at,
            v.ended_at,
            Person(v.caller_seat, names[v.caller_id]),
            Person(v.target_seat, names[v.target_id]),
            v.yes,
            v.voters,
            v.passed,
            v.recorded_at,
            [BallotView(b.seat, names[b.user_id], b.yes) for b in v.ballots]
            if v.table_id in ended
            else [],
            v.table_id in ended,
            v.table_id in practice,
        )
        for v in found
    ]


async def _reports(s: AsyncSession, ids: Sequence[int]) -> dict[int | None, ReportView]:
    rows = await s.execute(
        select(Report, Game.table_id, User.username)
        .join(Game, Game.id == Report.game_id)
        .join(User, User.id == Report.reporter_id)
        .where(Report.id.in_(ids))
    )
    return {
        r.id: ReportView(r.id, r.game_id, table_id, name, r.reason, r.created_at)
        for r, table_id, name in rows.tuples()
    }


async def _views(s: AsyncSession, found: Sequence[ModerationCase]) -> list[CaseView]:
    # Keyed by an id a case may lack: a lookup of None finds nothing.
    votes: dict[int | None, VoteView] = {
        v.id: v
        for v in await _votes(s, TechVoteRecord.id.in_([c.vote_id for c in found if c.vote_id]))
    }
    reports = await _reports(s, [c.report_id for c in found if c.report_id])
    deciders = await _names(s, (c.decided_by for c in found))
    return [
        CaseView(
            c.id,
            c.status,
            _flag(c, votes.get(c.vote_id)),
            c.opened_at,
            c.decided_at,
            deciders[c.decided_by],
            votes.get(c.vote_id),
            reports.get(c.report_id),
        )
        for c in found
    ]


def _flag(case: ModerationCase, vote: VoteView | None) -> bool | None:
    """The case's flag, unless it comes from the ballots of a game still on."""
    return None if vote is not None and not vote.ballots_open else case.flagged


async def cases(
    s: AsyncSession,
    status: str | None,
    flagged: bool | None,
    page: int,
    per_page: int,
    practice: bool = True,
) -> tuple[list[CaseView], int]:
    """Cases oldest first; `status` None: every status; `flagged` None: both;
    `practice` False leaves out the votes of practice tables (reports stay)."""
    conditions = []
    if not practice:
        voted_at = select(TechVoteRecord.table_id).distinct()
        at_practice = select(TechVoteRecord.id).where(
            TechVoteRecord.table_id.in_(await _practice(s, voted_at))
        )
        conditions.append(
            or_(ModerationCase.vote_id.is_(None), ModerationCase.vote_id.not_in(at_practice))
        )
    if status is not None:
        conditions.append(ModerationCase.status == status)
    if flagged is not None:
        # the flag of a vote at a table still playing is not shown, nor found
        live = (
            select(TechVoteRecord.id)
            .join(GameTable, GameTable.id == TechVoteRecord.table_id)
            .where(GameTable.status.not_in(ENDED))
        )
        conditions += [
            ModerationCase.flagged.is_(flagged),
            or_(ModerationCase.vote_id.is_(None), ModerationCase.vote_id.not_in(live)),
        ]
    total = await s.scalar(select(func.count()).select_from(ModerationCase).where(*conditions))
    found = (
        (
            await s.execute(
                select(ModerationCase)
                .where(*conditions)
                .order_by(ModerationCase.opened_at, ModerationCase.id)
                .offset((page - 1) * per_page)
                .limit(per_page)
            )
        )
        .scalars()
        .all()
    )
    return await _views(s, found), total or 0


def events_around(texts: Sequence[str], record_line: int) -> Window:
    """Replay record lines `texts` (line 0, the header, first) and keep the
    events from LINES_BEFORE lines before the vote's call to LINES_AFTER
    lines after `record_line`, the line whose step ended the vote."""
    produced: list[tuple[int, Any]] = []
    line = 0
    try:
        script = parse("\n".join(texts))
        player = Player(script.header, lambda event: produced.append((line, event)))
        for step in script.lines:
            line = step.number - 1
            player.play(step)
    except ScriptError as e:
        return Window(record_line, [], f"the record does not replay: script {e}")
    if not any(n == record_line and e.event == "tech_record" for n, e in produced):
        return Window(
            record_line, [], f"the record shows no technical vote ending at line {record_line}"
        )
    called = max(n for n, e in produced if e.event == "tech_call" and n <= record_line)
    first, last = max(0, called - LINES_BEFORE), record_line + LINES_AFTER
    return Window(
        record_line, [{**e.to_dict(), "line": n} for n, e in produced if first <= n <= last], None
    )


async def _record_open(s: AsyncSession, table_id: int) -> bool:
    status = await s.scalar(select(GameTable.status).where(GameTable.id == table_id))
    if status is None:
        raise NotFound(f"no table {table_id}")
    return status in ENDED


async def script(s: AsyncSession, table_id: int, upto: int | None) -> str:
    """The table's record as a script `omerta replay` plays: header first,
    up to and including line `upto` (None: all of it)."""
    if not await _record_open(s, table_id):
        raise Conflict(f"the game at table {table_id} is still on: its record opens when it ends")
    lines = await tables.read_record(s, table_id)
    return "".join(text + "\n" for text in lines[: None if upto is None else upto + 1])


async def _players(s: AsyncSession, table_id: int, user_ids: Sequence[int]) -> list[PlayerRecord]:
    """Past fouls (passed, not overturned) at other tables, and sanctions."""
    fouls = await s.execute(
        select(TechVoteRecord, ModerationCase.status)
        .join(ModerationCase, ModerationCase.vote_id == TechVoteRecord.id)
        .where(
            TechVoteRecord.target_id.in_(user_ids),
            TechVoteRecord.kind == "foul",
            TechVoteRecord.passed.is_(True),
            TechVoteRecord.table_id != table_id,
            ModerationCase.status != "overturned",
        )
        .order_by(TechVoteRecord.recorded_at.desc())
    )
    given = await s.execute(
        select(Sanction).where(Sanction.user_id.in_(user_ids)).order_by(Sanction.starts_at.desc())
    )
    records: dict[int, PlayerRecord] = {}
    names = await _names(s, user_ids)
    for user_id in user_ids:
        records[user_id] = PlayerRecord(names[user_id] or "", [], [])
    for vote, status in fouls.tuples():
        assert vote.target_id is not None  # chosen by target above
        records[vote.target_id].fouls.append(
            FoulView(vote.id, vote.table_id, vote.game_id, vote.recorded_at, status)
        )
    for row in given.scalars():
        records[row.user_id].sanctions.append(
            SanctionView(row.id, row.kind, row.reason, row.starts_at, row.ends_at, row.lifted_at)
        )
    return list(records.values())


async def case(s: AsyncSession, case_id: int) -> CaseDetail:
    found = await s.get(ModerationCase, case_id)
    if found is None:
        raise NotFound(f"no case {case_id}")
    (view,) = await _views(s, [found])
    if view.vote is not None:
        table_id = view.vote.table
        people = select(Seat.user_id).where(Seat.table_id == table_id).order_by(Seat.seat)
    else:
        assert view.report is not None  # a case is of a vote or of a report
        table_id = view.report.table
        people = (
            select(GamePlayer.user_id)
            .where(GamePlayer.game_id == view.report.game)
            .order_by(GamePlayer.seat)
        )
    user_ids = [u for u in (await s.execute(people)).scalars() if u is not None]
    record_open = await _record_open(s, table_id)
    window, earlier, group = None, [], []
    if view.vote is not None:
        vote = await s.get(TechVoteRecord, view.vote.id)
        assert vote is not None
        found_pattern = await pattern(s, vote)
        earlier = await _votes(s, TechVoteRecord.id.in_(found_pattern.votes))
        if view.vote.ballots_open and all(v.ballots_open for v in earlier):
            group = sorted(n for n in (await _names(s, found_pattern.group)).values() if n)
        if not view.vote.ballots_open:
            earlier = []  # which earlier votes share its yes-voters says who voted yes
        if record_open:
            lines = await tables.read_record(s, table_id)
            window = events_around(lines[: vote.record_line + LINES_AFTER + 1], vote.record_line)
    return CaseDetail(
        view,
        table_id,
        record_open,
        await _votes(s, TechVoteRecord.table_id == table_id),
        earlier,
        group,
        window,
        await _players(s, table_id, user_ids),
        await audit.of_case(s, case_id),
    )
