"""Decisions: uphold, overturn, dismiss, sanction, lift; each writes exactly
one audit entry, and an overturned vote that changed a game voids exactly
that game's ranked result (T3, T4)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from omerta.moderation import Conflict, NotAllowed, decisions, queue
from omerta.moderation.admin import grant_moderator
from omerta.moderation.records import record_tech_vote
from omerta.store.models import (
    AuditEntry,
    GameAward,
    ModerationCase,
    PlayerRating,
    RatedGame,
    RatingSide,
    utcnow,
)

from .world import accounts, finish, moderator, people, seat_table, tech_event

YES = range(4, 10)


async def _audit_count(h) -> int:
    async with h.db.begin() as s:
        return await s.scalar(select(func.count()).select_from(AuditEntry))


async def _case_of(s, vote_id: int) -> int:
    return await s.scalar(select(ModerationCase.id).where(ModerationCase.vote_id == vote_id))


async def _voted(h, ids, kind="foul", target=2, status="finished", line=5) -> tuple[int, int]:
    """A passed vote at a new table; (table id, case id)."""
    async with h.db.begin() as s:
        table_id = await seat_table(s, ids, status=status)
        vote = await record_tech_vote(s, table_id, line, tech_event(kind, 5, target, YES))
        return table_id, await _case_of(s, vote)


async def _mod_id(h, name="moddy") -> int:
    client = await moderator(h, name)
    return (await client.get("/api/me")).body["user"]["id"]


@pytest.mark.parametrize(
    "decision",
    [
        "uphold vote",
        "overturn vote",
        "uphold report",
        "dismiss report",
        "warning",
        "suspension",
        "ban",
        "lift",
    ],
)
async def test_every_decision_writes_exactly_one_audit_entry(harness, decision):
    clients, ids = await people(harness, "pl", signed_in=1)
    mod = await moderator(harness)
    _, case = await _voted(harness, ids)
    async with harness.db.begin() as s:
        game = await finish(s, await seat_table(s, ids), ids)
    report = (await clients[0].post("/api/reports", {"game": game, "reason": "rude"})).body
    if decision == "lift":
        given = await mod.post(
            "/api/moderation/sanctions", {"user": "pl2", "kind": "ban", "reason": "cheating"}
        )
    before = await _audit_count(harness)
    verb, subject = (decision.split() + ["sanction"])[:2]
    if subject == "vote":
        reply = await mod.post(f"/api/moderation/cases/{case}/{verb}", {"reason": "seen it"})
    elif subject == "report":
        reply = await mod.post(
            f"/api/moderation/cases/{report['report']['case']}/{verb}", {"reason": "seen it"}
        )
    elif verb == "lift":
        reply = await mod.post(
            f"/api/moderation/sanctions/{given.body['sanction']['id']}/lift",
            {"reason": "appeal granted"},
        )
    else:
        body = {"user": "pl2", "kind": verb, "reason": "seen it"}
        reply = await mod.post(
            "/api/moderation/sanctions", {**body, "days": 7} if verb == "suspension" else body
        )
    assert reply.status in (200, 201), reply.body
    assert await _audit_count(harness) == before + 1


async def test_T4_overturning_a_defeat_reverts_exactly_that_games_changes_after_later_games(
    harness,
):
    ids = await accounts(harness, "pl")
    mod_id = await _mod_id(harness)
    start = utcnow() - timedelta(days=2)
    async with harness.db.begin() as s:
        first = await seat_table(s, ids, status="playing")
        vote = await record_tech_vote(s, first, 9, tech_event("defeat", 5, 3, YES), start)
        defeated = await finish(s, first, ids, "red", forfeit={3}, when=start)
        later = await finish(
            s, await seat_table(s, ids), ids, "black", when=start + timedelta(days=1)
        )
        case = await _case_of(s, vote)
    async with harness.db.begin() as s:
        before = {uid: (await s.get(PlayerRating, uid)) for uid in ids}
        before = {uid: (r.mu, r.sigma, r.games, r.coins, r.experience) for uid, r in before.items()}
        gifts = {
            g.user_id: g
            for g in (
                await s.execute(select(GameAward).where(GameAward.game_id == defeated))
            ).scalars()
        }
        kept = {
            g.user_id: g
            for g in (
                await s.execute(select(GameAward).where(GameAward.game_id == later))
            ).scalars()
        }
        side_games = (await s.get(RatingSide, 1)).games
    async with harness.db.begin() as s:
        await decisions.overturn(s, mod_id, case, "the defeat was a set-up")
    async with harness.db.begin() as s:
        for uid in ids:
            row, gift = await s.get(PlayerRating, uid), gifts[uid]
            mu, sigma, games, coins, experience = before[uid]
            assert row.mu == pytest.approx(mu - (gift.mu_after - gift.mu_before), abs=1e-9)
            assert (row.games, row.coins, row.experience) == (
                games - 1,
                coins - gift.coins,
                experience - gift.experience,
            )
            # Exactly the later game's awards are left.
            assert (row.coins, row.experience) == (kept[uid].coins, kept[uid].experience)
            assert row.sigma > sigma  # that game's certainty is gone too
        assert (await s.get(RatedGame, defeated)).voided_at is not None
        assert (await s.get(RatedGame, later)).voided_at is None
        assert (await s.get(RatingSide, 1)).games == side_games - 1


@pytest.mark.parametrize(
    "kind, fouls_before, voids",
    [
        ("removal", 0, True),
        ("defeat", 0, True),
        ("foul", 0, False),  # a first foul changed nothing in the game
        ("foul", 1, True),  # a second foul removed its target (T3)
    ],
)
async def test_T3_T4_overturning_voids_the_game_only_when_the_vote_changed_it(
    harness, kind, fouls_before, voids
):
    ids = await accounts(harness, "pl")
    mod_id = await _mod_id(harness)
    async with harness.db.begin() as s:
        table_id = await seat_table(s, ids, status="playing")
        for line in range(1, fouls_before + 1):
            await record_tech_vote(s, table_id, line, tech_event("foul", 5, 2, YES))
        vote = await record_tech_vote(s, table_id, 9, tech_event(kind, 5, 2, YES))
        game = await finish(s, table_id, ids)
        case = await _case_of(s, vote)
    async with harness.db.begin() as s:
        entry = await decisions.overturn(s, mod_id, case, "wrong call")
        details = (await s.get(AuditEntry, entry)).details
        voided = (await s.get(RatedGame, game)).voided_at is not None
    assert voided is voids and details["voided"] is voids


async def test_T3_a_vote_that_removed_a_player_is_overturned_only_once_its_game_has_ended(harness):
    ids = await accounts(harness, "pl")
    mod_id = await _mod_id(harness)
    _, case = await _voted(harness, ids, kind="removal", status="playing")
    with pytest.raises(Conflict, match="still on"):
        async with harness.db.begin() as s:
            await decisions.overturn(s, mod_id, case, "wrong call")
    async with harness.db.begin() as s:
        assert (await s.get(ModerationCase, case)).status == "open"
    assert await _audit_count(harness) == 1  # only the moderator's grant


async def test_a_case_is_decided_once(harness):
    ids = await accounts(harness, "pl")
    mod = await moderator(harness)
    _, case = await _voted(harness, ids)
    assert (
        await mod.post(f"/api/moderation/cases/{case}/uphold", {"reason": "fine"})
    ).status == 200
    before = await _audit_count(harness)
    again = await mod.post(f"/api/moderation/cases/{case}/overturn", {"reason": "second thoughts"})
    assert again.status == 409 and "already decided: upheld" in again.body["error"]
    assert await _audit_count(harness) == before


async def test_a_moderator_does_not_decide_a_game_they_sat_in(harness):
    clients, ids = await people(harness, "pl", signed_in=7)
    _, case = await _voted(harness, ids)
    await grant_moderator(harness.db, "pl7")
    reply = await clients[6].post(f"/api/moderation/cases/{case}/overturn", {"reason": "me"})
    assert reply.status == 403 and "you played in" in reply.body["error"]


@pytest.mark.parametrize(
    "route, body, says",
    [
        ("cases/CASE/uphold", {}, "reason"),
        ("cases/CASE/overturn", {"reason": ""}, "reason"),
        ("cases/CASE/dismiss", {"reason": "not a report"}, "technical vote"),
        ("cases/999/uphold", {"reason": "no such case"}, "no case 999"),
        ("sanctions", {"user": "pl2", "kind": "suspension", "reason": "r"}, "'days'"),
        ("sanctions", {"user": "pl2", "kind": "suspension", "days": 0, "reason": "r"}, "'days'"),
        *(
            (
                "sanctions",
                {"user": "pl2", "kind": "suspension", "days": days, "reason": "r"},
                "whole",
            )
            for days in ("7", True, 7.0)  # JSON's whole numbers only (params.body_int)
        ),
        (
            "sanctions",
            {"user": "pl2", "kind": "ban", "days": 3, "reason": "r"},
            "only a suspension",
        ),
        ("sanctions", {"user": "pl2", "kind": "exile", "reason": "r"}, "one of"),
        ("sanctions", {"user": "pl2", "kind": "ban"}, "reason"),
        ("sanctions", {"user": "nobody", "kind": "ban", "reason": "r"}, "no player"),
        ("sanctions", {"user": "moddy", "kind": "ban", "reason": "r"}, "themselves"),
    ],
)
async def test_a_decision_that_cannot_be_made_changes_nothing_and_says_why(
    harness, route, body, says
):
    ids = await accounts(harness, "pl")
    mod = await moderator(harness)
    _, case = await _voted(harness, ids)
    before = await _audit_count(harness)
    reply = await mod.post(f"/api/moderation/{route.replace('CASE', str(case))}", body)
    assert 400 <= reply.status < 500 and says in reply.body["error"]
    assert await _audit_count(harness) == before


async def test_an_overturned_foul_leaves_the_players_past_fouls_and_an_upheld_one_stays(harness):
    ids = await accounts(harness, "pl")
    mod_id = await _mod_id(harness)
    _, upheld = await _voted(harness, ids, target=2)
    _, overturned = await _voted(harness, ids, target=2)
    _, current = await _voted(harness, ids, target=6)

    async def fouls_of_pl2():
        async with harness.db.begin() as s:
            detail = await queue.case(s, current)
        record = next(p for p in detail.players if p.user == "pl2")
        return sorted((f.status, f.vote) for f in record.fouls)

    assert [status for status, _ in await fouls_of_pl2()] == ["open", "open"]
    async with harness.db.begin() as s:
        await decisions.uphold(s, mod_id, upheld, "a real foul")
        await decisions.overturn(s, mod_id, overturned, "no foul at all")
    assert [status for status, _ in await fouls_of_pl2()] == ["upheld"]


async def test_lifting_a_sanction_that_has_ended_is_refused(harness):
    ids = await accounts(harness, "pl")
    mod_id = await _mod_id(harness)
    async with harness.db.begin() as s:
        given = await decisions.sanction(
            s, mod_id, ids[1], "suspension", "spam", days=1, now=utcnow() - timedelta(days=2)
        )
    with pytest.raises(Conflict, match="already ended"):
        async with harness.db.begin() as s:
            await decisions.lift(s, mod_id, given.id, "too late")
    with pytest.raises(NotAllowed):
        async with harness.db.begin() as s:
            await decisions.sanction(s, mod_id, mod_id, "warning", "me")
