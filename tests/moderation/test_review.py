"""A moderator reviews a technical defeat passed at a ranked table of ten
signed-in players, with the whole game at hand, and overturns it (T4, T5)."""

from __future__ import annotations

from sqlalchemy import select

from omerta.ratings import model
from omerta.script import replay
from omerta.store.models import PlayerRating, TechBallotRecord, TechVoteRecord

from .world import moderator, people, play_record

YES = (4, 5, 6, 7, 8, 9)  # six of ten living humans: more than half (T2)
FOUL_THEN_DEFEAT = [
    {"seat": 5, "do": "tech_call", "kind": "foul", "target": 2, "at": "day1"},
    *({"seat": seat, "do": "tech_vote", "yes": True} for seat in YES),
    {"seat": 1, "do": "tech_vote", "yes": False},
    {"seat": 1, "do": "nominate", "target": 8},  # the foul vote ends first, on this line
    {"seat": 5, "do": "tech_call", "kind": "defeat", "target": 3, "at": "day2"},
    *({"seat": seat, "do": "tech_vote", "yes": True} for seat in YES),
    {"do": "wait"},  # the defeat vote ends: red wins (T4)
]


async def test_T5_every_technical_vote_is_stored_with_caller_target_kind_ballots_result_and_line(
    harness,
):
    _, ids = await people(harness, "pl")
    async with harness.db.begin() as s:
        played = await play_record(s, ids, FOUL_THEN_DEFEAT)
    assert played.vote_lines == [9, 17] and played.game_id is not None
    async with harness.db.begin() as s:
        votes = (
            (await s.execute(select(TechVoteRecord).order_by(TechVoteRecord.id))).scalars().all()
        )
        ballots = (
            (
                await s.execute(
                    select(TechBallotRecord)
                    .where(TechBallotRecord.vote_id == votes[0].id)
                    .order_by(TechBallotRecord.seat)
                )
            )
            .scalars()
            .all()
        )
    foul, defeat = votes
    assert (foul.kind, foul.caller_seat, foul.caller_id, foul.target_seat, foul.target_id) == (
        "foul",
        5,
        ids[4],
        2,
        ids[1],
    )
    assert (foul.day, foul.phase, foul.called_at, foul.ended_at) == (1, "day", 60, 90)
    assert (foul.yes, foul.voters, foul.passed, foul.record_line) == (6, 10, True, 9)
    assert [(b.seat, b.user_id, b.yes) for b in ballots] == [
        (seat, ids[seat - 1], seat in YES) for seat in range(1, 11)
    ]  # non-voters: no (T2)
    assert (defeat.kind, defeat.target_id, defeat.day, defeat.record_line) == (
        "defeat",
        ids[2],
        2,
        17,
    )
    assert foul.game_id == defeat.game_id == played.game_id


async def test_a_moderator_overturns_a_technical_defeat_and_the_ranked_game_shows_voided(harness):
    clients, ids = await people(harness, "pl")
    mod = await moderator(harness)
    async with harness.db.begin() as s:
        played = await play_record(s, ids, FOUL_THEN_DEFEAT)
    queue = (await mod.get("/api/moderation/cases")).body
    assert queue["total"] == 2
    foul_case, defeat_case = queue["cases"]  # oldest first
    assert foul_case["vote"]["kind"] == "foul" and defeat_case["vote"]["kind"] == "defeat"
    assert defeat_case["vote"]["target"] == {"seat": 3, "user": "pl3"}

    detail = (await mod.get(f"/api/moderation/cases/{defeat_case['id']}")).body
    assert detail["record_open"] and detail["window"]["error"] is None
    assert [(b["user"], b["yes"]) for b in detail["case"]["vote"]["ballots"]][:4] == [
        ("pl1", False),
        ("pl2", False),
        ("pl3", False),
        ("pl4", True),
    ]
    shown = [e["event"] for e in detail["window"]["events"]]
    assert shown[0] != "tech_call" and "tech_call" in shown  # some context before the call
    assert {"tech_record", "game_over"} <= set(shown)
    assert [v["kind"] for v in detail["table_votes"]] == ["foul", "defeat"]
    assert detail["script"] == f"/api/moderation/tables/{played.table_id}/script?upto=17"

    script = await mod.get(detail["script"])
    assert script.status == 200 and len(script.body.splitlines()) == 18
    replayed = [e.to_dict() for e in replay(script.body).events]  # what `omerta replay` prints
    assert replayed[-1]["event"] == "game_over" and replayed[-1]["reason"] == "technical_defeat"

    async with harness.db.begin() as s:
        rated = await s.get(PlayerRating, ids[4])
    assert rated.games == 1 and rated.coins > 0
    reply = await mod.post(
        f"/api/moderation/cases/{defeat_case['id']}/overturn",
        {"reason": "seat 3 did nothing wrong; the table ganged up"},
    )
    assert reply.status == 200 and reply.body["case"]["status"] == "overturned"

    fresh = model.new_rating()
    async with harness.db.begin() as s:
        for uid in ids:
            row = await s.get(PlayerRating, uid)
            assert (row.games, row.coins, row.experience) == (0, 0, 0)
            assert abs(row.mu - fresh.mu) < 1e-9
    history = (await clients[4].get("/api/players/pl5/games")).body["games"]
    assert history[0]["game"] == played.game_id and history[0]["voided"] is True
    audit = (await mod.get("/api/moderation/audit")).body["entries"]
    assert (audit[0]["action"], audit[0]["moderator"], audit[0]["user"], audit[0]["case"]) == (
        "overturn",
        "moddy",
        "pl3",
        defeat_case["id"],
    )
    assert audit[0]["details"]["voided"] is True and "ganged up" in audit[0]["reason"]


async def test_a_game_still_being_played_keeps_its_record_closed_to_moderators(harness):
    _, ids = await people(harness, "pl")
    mod = await moderator(harness)
    async with harness.db.begin() as s:
        played = await play_record(s, ids, FOUL_THEN_DEFEAT[:9])  # the foul only: no end
    assert played.game_id is None
    case = (await mod.get("/api/moderation/cases")).body["cases"][0]
    detail = (await mod.get(f"/api/moderation/cases/{case['id']}")).body
    assert detail["record_open"] is False and detail["window"] is None
    script = await mod.get(f"/api/moderation/tables/{played.table_id}/script")
    assert script.status == 409 and "still on" in script.body["error"]
