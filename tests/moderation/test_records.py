"""Recording technical votes (T5) and players' reports of finished games."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from omerta.moderation.records import record_tech_vote
from omerta.store.models import ModerationCase, TechVoteRecord

from .world import accounts, finish, people, seat_table, tech_event


async def _cases(h) -> int:
    async with h.db.begin() as s:
        return await s.scalar(select(func.count()).select_from(ModerationCase))


async def test_T5_a_failed_vote_is_recorded_but_opens_no_case(harness):
    ids = await accounts(harness, "pl")
    async with harness.db.begin() as s:
        table_id = await seat_table(s, ids, status="playing")
        vote_id = await record_tech_vote(
            s, table_id, 4, tech_event("foul", 1, 2, yes=(1, 3, 4, 5, 6))
        )
        vote = await s.get(TechVoteRecord, vote_id)
    assert (vote.passed, vote.yes, vote.voters) == (
        False,
        5,
        10,
    )  # 5 of 10 is not more than half (T2)
    assert await _cases(harness) == 0


async def test_T2_T5_a_bot_seat_is_recorded_with_no_user_and_the_vote_still_counts(harness):
    ids = await accounts(harness, "pl", 9)
    async with harness.db.begin() as s:
        table_id = await seat_table(s, [*ids, None], status="playing")
        event = tech_event("removal", 1, 10, yes=(1, 2, 3, 4, 5), seats=range(1, 10))
        vote = await s.get(TechVoteRecord, await record_tech_vote(s, table_id, 3, event))
    assert (vote.target_seat, vote.target_id, vote.caller_id, vote.passed) == (
        10,
        None,
        ids[0],
        True,
    )
    assert await _cases(harness) == 1


async def test_T5_a_vote_is_recorded_once_per_table_and_line(harness):
    ids = await accounts(harness, "pl")
    with pytest.raises(IntegrityError):
        async with harness.db.begin() as s:
            table_id = await seat_table(s, ids, status="playing")
            for _ in range(2):
                await record_tech_vote(s, table_id, 7, tech_event("foul", 1, 2, yes=range(1, 7)))


async def test_record_tech_vote_refuses_any_other_event(harness):
    async with harness.db.begin() as s:
        with pytest.raises(ValueError, match="tech_record"):
            await record_tech_vote(s, 1, 1, {"event": "tech_vote", "kind": "foul"})


async def _finished_game(h, ids) -> int:
    async with h.db.begin() as s:
        table_id = await seat_table(s, ids)
        return await finish(s, table_id, ids)


async def test_a_player_of_a_finished_game_reports_it_once_and_it_waits_for_review(harness):
    clients, ids = await people(harness, "pl")
    game = await _finished_game(harness, ids)
    reply = await clients[3].post(
        "/api/reports", {"game": game, "reason": "  seat 7 was abusive  "}
    )
    assert reply.status == 201 and reply.body["report"]["game"] == game
    again = await clients[3].post("/api/reports", {"game": game, "reason": "and again"})
    assert again.status == 409 and "already reported" in again.body["error"]
    other = await clients[4].post("/api/reports", {"game": game, "reason": "x" * 500})
    assert other.status == 201
    assert await _cases(harness) == 2


@pytest.mark.parametrize(
    "body, status, says",
    [
        ({"reason": "no game"}, 400, "'game'"),
        ({"game": "1", "reason": "a string id"}, 400, "'game'"),
        ({"game": True, "reason": "a boolean id"}, 400, "'game'"),
        ({"game": 999, "reason": "an unknown game"}, 404, "no finished game"),
        ({"game": None}, 400, "'game'"),
        ({"game": "GAME"}, 400, "reason"),
        ({"game": "GAME", "reason": "   "}, 400, "1 to 500"),
        ({"game": "GAME", "reason": "x" * 501}, 400, "1 to 500"),
        ({"game": "GAME", "reason": 42}, 400, "reason"),
    ],
)
async def test_a_report_names_a_game_and_gives_a_reason_of_1_to_500_characters(
    harness, body, status, says
):
    clients, ids = await people(harness, "pl", signed_in=1)
    game = await _finished_game(harness, ids)
    body = {k: game if v == "GAME" else v for k, v in body.items()}
    reply = await clients[0].post("/api/reports", body)
    assert reply.status == status and says in reply.body["error"]
    assert await _cases(harness) == 0


async def test_only_a_player_who_sat_in_the_game_may_report_it_and_only_signed_in(harness):
    ids = await accounts(harness, "pl")
    game = await _finished_game(harness, ids)
    outsider = await harness.player("outsider")
    reply = await outsider.post("/api/reports", {"game": game, "reason": "I watched it"})
    assert reply.status == 403 and f"sat in game {game}" in reply.body["error"]
    anonymous = await harness.client().post("/api/reports", {"game": game, "reason": "hello"})
    assert anonymous.status == 401
    assert await _cases(harness) == 0
