"""The abuse flag (T1-T3 used by a group against one player across games),
and no automatic sanctions: a flag or a pile of reports changes nothing
until a moderator decides."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from omerta.moderation import queue
from omerta.moderation.records import record_tech_vote
from omerta.store import users
from omerta.store.models import AuditEntry, ModerationCase, Sanction, utcnow

from .world import finish, seat_table, tech_event

# T is the target; A-F may form a group; 1-9 are players who vote once each.
NAMES = "TABCDEF123456789"
NOW = utcnow()


async def _users(s, signed_in=()) -> dict[str, int]:
    out = {}
    for ch in NAMES:
        out[ch] = (
            signed_in[ch] if ch in signed_in else (await users.add_user(s, f"user{ch}", "!")).id
        )
    return out


async def _vote(
    s, who: dict[str, int], voters: str, days_ago: float, table_id=None, line: int = 5
) -> int:
    """A passed foul against T at a table of T and `voters`, all voting yes.
    Returns the case id."""
    seats = [who["T"], *(who[ch] for ch in voters)]
    table_id = table_id or await seat_table(s, seats)
    vote = await record_tech_vote(
        s,
        table_id,
        line,
        tech_event("foul", 2, 1, yes=range(2, len(seats) + 1), seats=range(1, len(seats) + 1)),
        NOW - timedelta(days=days_ago),
    )
    return await s.scalar(select(ModerationCase.id).where(ModerationCase.vote_id == vote))


async def _flagged(s, case_id: int) -> bool:
    return (await s.get(ModerationCase, case_id)).flagged


async def test_T1_the_same_three_voters_passing_votes_against_one_player_in_three_games_flag_it(
    harness,
):
    async with harness.db.begin() as s:
        who = await _users(s)
        first = await _vote(s, who, "ABC123", days_ago=60)
        second = await _vote(s, who, "ABC456", days_ago=30)
        third = await _vote(s, who, "ABC789", days_ago=0)
        assert [await _flagged(s, c) for c in (first, second, third)] == [False, False, True]
        detail = await queue.case(s, third)
        earlier = [(await s.get(ModerationCase, c)).vote_id for c in (first, second)]
        flagged, total = await queue.cases(s, "open", True, 1, 50)
    assert [v.id for v in detail.pattern] == earlier
    assert detail.group == ["userA", "userB", "userC"]
    assert [c.id for c in flagged] == [third] and total == 1


NEAR_MISSES = {
    "only one other game": [("ABC456", 30, None)],
    "only two of the same voters in one of the games": [("ABC123", 60, None), ("AB4567", 30, None)],
    "one of the games more than 90 days ago": [("ABC123", 91, None), ("ABC456", 30, None)],
    "both earlier votes in the same game": [("ABC123", 60, "same"), ("ABC123", 59, "same")],
    "three shared in each game but not the same three": [
        ("ABC123", 60, None),
        ("DEF456", 30, None),
    ],
}


@pytest.mark.parametrize("history", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
async def test_T1_a_near_miss_of_the_abuse_pattern_is_not_flagged(harness, history):
    async with harness.db.begin() as s:
        who = await _users(s)
        shared = await seat_table(s, [who["T"], *(who[ch] for ch in "ABC123")])
        for line, (voters, days_ago, table) in enumerate(history, 1):
            await _vote(s, who, voters, days_ago, shared if table else None, line=line)
        current = await _vote(s, who, "ABCDEF" if "DEF456" in str(history) else "ABC789", 0)
        assert not await _flagged(s, current)
        assert (await queue.case(s, current)).pattern == []


async def test_no_number_of_flags_or_reports_sanctions_anyone_without_a_moderator(harness):
    target = await harness.player("userT")
    others = [await harness.player(f"rep{i}") for i in range(1, 10)]
    ids = [(await c.get("/api/me")).body["user"]["id"] for c in (target, *others)]
    async with harness.db.begin() as s:
        who = await _users(s, signed_in={"T": ids[0]})
        for days_ago in (80, 60, 40, 20, 0):  # five flagged-pattern votes in five games
            await _vote(s, who, "ABC123", days_ago)
        game = await finish(s, await seat_table(s, ids), ids)
    for reporter in others:  # everyone else reports the game
        reply = await reporter.post("/api/reports", {"game": game, "reason": "userT cheated"})
        assert reply.status == 201
    async with harness.db.begin() as s:
        assert await s.scalar(select(func.count()).select_from(Sanction)) == 0
        assert await s.scalar(select(func.count()).select_from(AuditEntry)) == 0
        statuses = (await s.execute(select(ModerationCase.status, ModerationCase.flagged))).all()
    assert len(statuses) == 14 and {status for status, _ in statuses} == {"open"}
    assert sum(flag for _, flag in statuses) == 3
    table = (await target.post("/api/tables", {})).body["table"]["id"]
    assert (await target.post(f"/api/tables/{table}/sit")).status == 200
