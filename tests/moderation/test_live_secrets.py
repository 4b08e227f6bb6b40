"""Nobody reads a live table's secrets through the moderation routes
(issue 12, finding 11): the ballots of a technical vote at a table still
being played (its players see only the count, T2), and the abuse flag and
group computed from them, stay hidden until the game is over, even from a
moderator who sits at that table."""

from __future__ import annotations

from datetime import timedelta

from omerta.moderation.records import record_tech_vote
from omerta.store import tables, users
from omerta.store.models import utcnow

from .world import moderator, seat_table, tech_event

NOW = utcnow()


async def _pattern(harness):
    """Three passed fouls against the same player by the same three voters
    at three tables; the last flags the pattern. The last table is still
    playing, with the moderator in seat 5."""
    mod = await moderator(harness)
    async with harness.db.begin() as s:
        me = (await users.user_by_name(s, "moddy")).id
        ids = [(await users.add_user(s, f"pl{i}", "!")).id for i in range(1, 5)]
        made = []
        for n in range(3):
            playing = n == 2
            seats = [*ids, me] if playing else ids
            table = await seat_table(s, seats, status="playing" if playing else "finished")
            await record_tech_vote(
                s,
                table,
                5,
                tech_event("foul", 2, 1, yes=range(2, 5), seats=range(1, len(seats) + 1)),
                NOW - timedelta(days=3 - n),
            )
            made.append(table)
    return mod, made


async def test_T2_a_moderator_at_a_live_table_sees_no_ballots_flag_or_group_of_its_vote(harness):
    mod, made = await _pattern(harness)
    listed = (await mod.get("/api/moderation/cases?status=all")).body["cases"]
    live = [c for c in listed if c["vote"]["table"] == made[2]]
    assert len(live) == 1
    vote = live[0]["vote"]
    assert vote["ballots"] == [] and vote["ballots_open"] is False
    assert (vote["yes"], vote["voters"], vote["passed"]) == (3, 5, True)  # the public count
    assert live[0]["flagged"] is None
    detail = (await mod.get(f"/api/moderation/cases/{live[0]['id']}")).body
    assert detail["case"]["vote"]["ballots"] == [] and detail["case"]["flagged"] is None
    assert detail["group"] == [] and detail["pattern"] == []
    assert all(v["ballots"] == [] for v in detail["table_votes"])
    flagged = (await mod.get("/api/moderation/cases?status=all&flagged=true")).body
    assert all(c["vote"]["table"] != made[2] for c in flagged["cases"])
    # Once the game is over, everything opens.
    async with harness.db.begin() as s:
        await tables.end_table(s, made[2], "finished")
    detail = (await mod.get(f"/api/moderation/cases/{live[0]['id']}")).body
    assert [b["yes"] for b in detail["case"]["vote"]["ballots"]] == [False, True, True, True, False]
    assert detail["case"]["flagged"] is True and detail["group"] == ["pl2", "pl3", "pl4"]
