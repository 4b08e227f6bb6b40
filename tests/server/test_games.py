"""GET /api/games/{id} and GET /api/tables/{id}/game (docs/api.md,
"Finished games"): a finished game tells everything (E4): roles, every
night action and check, each day's votes, the fouls and technical votes;
a game still being played tells nobody anything, and a bad id gets a clear
404. Against SQLite and real Postgres."""

from __future__ import annotations

from omerta.moderation.admin import grant_moderator
from tests.moderation.world import ROLES, people, play_record

DEFEAT_YES = (4, 5, 6, 7, 8, 10)
GAME = [
    {"seat": 1, "do": "nominate", "target": 8, "at": "day1"},
    {"seat": 5, "do": "tech_call", "kind": "foul", "target": 2, "at": "day1"},
    *({"seat": seat, "do": "tech_vote", "yes": True} for seat in (4, 5, 6, 7, 8, 9)),
    *({"seat": seat, "do": "shoot", "target": 9, "at": "night2"} for seat in (2, 3, 1)),
    {"seat": 1, "do": "check", "target": 4, "at": "night2"},  # the Don finds the Sheriff
    {"seat": 4, "do": "check", "target": 2, "at": "night2"},  # the Sheriff finds a mafia
    {"seat": 5, "do": "nominate", "target": 2, "at": "day2"},
    {"seat": 6, "do": "nominate", "target": 3, "at": "day2"},
    {"seat": 4, "do": "vote", "target": 2, "at": "day2"},  # the others default to seat 3 (V2)
    {"seat": 5, "do": "tech_call", "kind": "defeat", "target": 1, "at": "day3"},
    *({"seat": seat, "do": "tech_vote", "yes": True} for seat in DEFEAT_YES),
    {"do": "wait"},  # the defeat passes: red wins (T4)
]
#: the foul vote, then night 2 is yet to come: nothing but the foul is public
UNFINISHED = GAME[:8]


def _of(events: list[dict], name: str) -> list[dict]:
    return [
        {k: v for k, v in e.items() if k not in ("event", "t")}
        for e in events
        if e["event"] == name
    ]


async def _played(harness, lines):
    clients, ids = await people(harness, "pl", signed_in=2)
    async with harness.db.begin() as s:
        played = await play_record(s, ids, lines)
    return clients, played


async def test_E4_a_finished_game_reveals_roles_night_actions_votes_fouls_and_technical_votes(
    harness,
):
    _, played = await _played(harness, GAME)
    assert played.game_id is not None
    visitor = harness.client()  # no sign-in needed
    reply = await visitor.get(f"/api/games/{played.game_id}")
    assert reply.status == 200, reply.body
    game = reply.body["game"]
    assert (game["id"], game["table"], game["ruleset"]) == (
        played.game_id,
        played.table_id,
        "classic",
    )
    assert (game["winner"], game["reason"], game["ranked"]) == ("red", "test", True)
    assert [(p["seat"], p["user"], p["bot"], p["role"]) for p in game["players"]] == [
        (seat, f"pl{seat}", False, role) for seat, role in enumerate(ROLES, 1)
    ]
    assert game["players"][0]["result"] == "loss" and game["players"][3]["result"] == "win"
    events = game["events"]
    assert _of(events, "role") == [{"seat": s, "role": r} for s, r in enumerate(ROLES, 1)]
    assert _of(events, "night_action") == [
        {"action": "shoot", "by": by, "target": 9} for by in (2, 3, 1)
    ]
    assert _of(events, "check") == [
        {"by": 1, "target": 4, "result": "sheriff"},
        {"by": 4, "target": 2, "result": "black"},
    ]
    assert _of(events, "morning")[0] == {"dead": [9]}
    (votes,) = _of(events, "votes")  # day 1 has one nominee and no vote; day 2 votes
    assert votes["round"] == "vote" and votes["counts"] == {"2": 1, "3": 8}
    assert votes["ballots"]["4"] == 2 and votes["ballots"]["1"] == 3
    assert {"seat": 3, "cause": "vote"} in _of(events, "left")
    assert _of(events, "foul") == [{"seat": 2, "count": 1}]
    assert [
        (v["kind"], v["by"], v["target"], v["yes"], v["passed"]) for v in _of(events, "tech_vote")
    ] == [
        ("foul", 5, 2, 6, True),
        ("defeat", 5, 1, 6, True),
    ]
    assert _of(events, "game_over")[0]["winner"] == "red"
    # Each technical ballot stays secret even now (T5: moderators only).
    assert not {"seated", "tech_record", "tech_ballot"} & {e["event"] for e in events}
    by_table = await visitor.get(f"/api/tables/{played.table_id}/game")
    assert by_table.status == 200 and by_table.body == reply.body


async def test_a_game_still_being_played_tells_nobody_anything(harness):
    (seated, _), played = await _played(harness, UNFINISHED)
    assert played.game_id is None
    moderator = await harness.player("moddy")
    await grant_moderator(harness.db, "moddy")
    for who in (harness.client(), seated, moderator):
        reply = await who.get(f"/api/tables/{played.table_id}/game")
        assert reply.status == 404, reply.body
        assert reply.body == {"error": f"no finished game at table {played.table_id}"}
    for game_id in (1, 2):  # no game is stored until it ends
        assert (await seated.get(f"/api/games/{game_id}")).status == 404


async def test_a_bad_id_gets_a_clear_404(harness):
    visitor = harness.client()
    for path in ("/api/games/{}", "/api/tables/{}/game"):
        for bad in ("abc", "-1", "1.5", "²", "0x1", "2147483648", "9" * 40):
            reply = await visitor.get(path.format(bad))
            assert reply.status == 404, (path, bad, reply.body)
            assert set(reply.body) == {"error"} and reply.body["error"].startswith("no "), (
                reply.body
            )
