"""GET /api/games/{id}/replay (issue 19; docs/api.md, "Replays"): a finished
game step by step, as a seat saw it or in full; the same departures and
winner as `omerta replay` of its record; a bad seat or game is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omerta.script import Player, parse, replay
from tests.moderation.world import people, play_record

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

EXAMPLE = Path(__file__).parents[2] / "examples" / "technical-fouls-and-defeat.jsonl"


async def test_a_finished_game_replays_in_full_and_as_each_seat_saw_it(harness):
    text = EXAMPLE.read_text()
    script = parse(text)
    header, *lines = [json.loads(raw) for raw in text.splitlines() if raw.strip()]
    player = Player(script.header)
    for line in script.lines:
        player.play(line)
    while not player.state.over:  # as `omerta replay` runs on to the end, the record does
        player.finish(1)
        lines.append({"do": "wait"})
    _, ids = await people(harness, "rp", signed_in=1)
    async with harness.db.begin() as s:
        played = await play_record(s, ids, lines, header)
    assert played.game_id is not None and script.header.ruleset == "classic"
    expected = replay(text).events
    visitor = harness.client()  # no sign-in needed: the game is over (E4)

    full = await visitor.get(f"/api/games/{played.game_id}/replay")
    assert full.status == 200, full.body
    body = full.body["replay"]
    assert (body["game"], body["table"], body["seat"]) == (played.game_id, played.table_id, None)
    left = [(e["seat"], e["cause"]) for e in body["events"] if e["event"] == "left"]
    assert left == [(e.seat, e.cause) for e in expected if e.event == "left"]
    last = body["frames"][-1]
    assert last["view"]["winner"] == body["winner"] == "red"
    assert all(row["role"] for row in last["view"]["seats"])
    assert [f["t"] for f in body["frames"]] == sorted(f["t"] for f in body["frames"])
    assert not {"seated", "tech_record", "tech_ballot"} & {e["event"] for e in body["events"]}

    mine = (await visitor.get(f"/api/games/{played.game_id}/replay?seat=5")).body["replay"]
    assert mine["seat"] == 5
    assert {e["seat"] for e in mine["events"] if e["event"] == "role"} == {5}
    before_end = [f for f in mine["frames"] if f["view"]["winner"] is None]
    assert before_end and all(
        [row["seat"] for row in f["view"]["seats"] if row["role"]] == [5] for f in before_end
    )

    for path, status in (
        (f"/api/games/{played.game_id}/replay?seat=11", 400),
        (f"/api/games/{played.game_id}/replay?seat=x", 400),
        (f"/api/games/{played.game_id + 1}/replay", 404),
        ("/api/games/abc/replay", 404),
    ):
        reply = await visitor.get(path)
        assert reply.status == status, (path, reply.body)
        assert "Traceback" not in str(reply.body)
