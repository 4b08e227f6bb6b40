"""Write-through: nothing reaches a client before its step is stored, and a
failed write applies nothing (the table goes back to its stored state)."""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy import func, select

from omerta.store import tables
from omerta.store.models import Game, PlayerRating
from tests.server.conftest import POSTGRES_WITH_THE_SLOW

from .players import SeatClient, play, seat_table, steady_play
from .test_socket_input import answer, first


async def human_at_a_bot_table(live):
    [alice] = await live.browsers(1)
    table_id, seats = await seat_table([alice], bots=True)
    ws = await alice.socket(table_id, last=0)
    await first(ws, "view")
    return table_id, seats[alice.username], ws, live.runtime.table(table_id)


@pytest.mark.parametrize("time_scale", [1.0])  # the draw lasts 15 s
async def test_an_answer_waits_for_its_record_line(live):
    table_id, seat, ws, actor = await human_at_a_bot_table(live)
    release = asyncio.Event()
    write = actor.recorder.write

    async def slow(*args):
        await release.wait()
        await write(*args)

    actor.recorder.write = slow
    await ws.send_json({"id": "p1", "do": "pick", "card": 3})
    with pytest.raises(asyncio.TimeoutError):
        await ws.receive_json(timeout=0.3)  # applied, not yet stored: nothing sent
    assert actor.state.roles[seat] is not None and actor.stored.roles[seat] is None
    release.set()
    got = [await ws.receive_json(timeout=5)]
    while got[-1]["type"] != "ack":
        got.append(await ws.receive_json(timeout=5))
    assert got[-1]["id"] == "p1" and got[-2]["type"] == "view"
    assert {"role", "picked"} <= {m["event"]["event"] for m in got if m["type"] == "event"}


class Outage:
    """The record writer behind a database that can go away (a fake put in
    the table's recorder): while `down`, writes and reads fail as a cut
    connection does; `lose_replies` commits that many writes and then fails
    them, as a connection cut after the commit and before its reply."""

    def __init__(self, writer):
        self.writer = writer
        self.db = writer.db
        self.down = False
        self.lose_replies = 0
        self.lose_final_reply = False
        self.refuse = False
        self.tries = 0

    async def write(self, table_id, lines, finish=None):
        self.tries += bool(lines)  # not the table's abandonment: no lines, fenced like them
        if self.down:
            raise ConnectionResetError("the database went away")
        if self.refuse and lines:
            raise ValueError("the database refuses these lines")
        await self.writer.write(table_id, lines, finish)
        if self.lose_replies or (self.lose_final_reply and finish is not None):
            self.lose_replies = max(0, self.lose_replies - 1)
            self.lose_final_reply = False
            raise ConnectionResetError("the connection was cut before the commit's reply")

    async def stored_lines(self, table_id, first):
        if self.down:
            raise ConnectionResetError("the database went away")
        return await self.writer.stored_lines(table_id, first)


@pytest.mark.parametrize("time_scale", [1.0])
@POSTGRES_WITH_THE_SLOW
async def test_a_failed_write_is_retried_until_stored_and_the_clock_stands_still_meanwhile(live):
    table_id, seat, ws, actor = await human_at_a_bot_table(live)
    outage = actor.recorder.writer = Outage(actor.recorder.writer)
    outage.down = True
    await ws.send_json({"id": "p1", "do": "pick", "card": 3})
    told = await first(ws, "error")
    assert told["code"] == "record_paused" and told["id"] is None, told
    # Nothing more is applied meanwhile: an action is refused at once.
    await ws.send_json({"id": "p2", "do": "pick", "card": 4})
    refused = await answer(ws)
    assert refused["id"] == "p2" and refused["code"] == "not_recorded", refused
    stood = actor.clock.now()
    await asyncio.sleep(2.0)  # two seconds of a fifteen-second draw
    assert actor.clock.now() == stood and outage.tries >= 3
    outage.down = False
    got = [await ws.receive_json(timeout=10)]
    while got[-1]["type"] != "ack":
        got.append(await ws.receive_json(timeout=10))
    assert got[-1] == {"type": "ack", "id": "p1"}
    view = await first(ws, "view")
    # The draw goes on with the time it had when the writes began to fail.
    assert view["now"] == stood and view["deadline_in"] >= 15.0 - stood - 0.1, (stood, view)
    assert actor.clock.now() >= stood
    async with live.db.begin() as s:
        lines = await tables.read_record_lines(s, table_id)
    assert [r.line for r in lines] == list(range(len(lines)))
    mine = [r for r in lines if json.loads(r.text).get("seat") == seat]
    assert [(json.loads(r.text)["do"], r.client_id) for r in mine] == [("pick", "p1")]
    await ws.close()


@pytest.mark.parametrize("time_scale", [1.0])
@POSTGRES_WITH_THE_SLOW
async def test_a_commit_whose_reply_was_lost_is_read_back_and_the_table_goes_on(live):
    table_id, seat, ws, actor = await human_at_a_bot_table(live)
    outage = actor.recorder.writer = Outage(actor.recorder.writer)
    outage.lose_replies = 1
    await ws.send_json({"id": "p1", "do": "pick", "card": 3})
    assert await answer(ws) == {"type": "ack", "id": "p1"}
    assert outage.lose_replies == 0
    # The next steps take the next line numbers: nothing is written twice.
    await ws.send_json({"id": "p1", "do": "pick", "card": 3})
    assert await answer(ws) == {"type": "ack", "id": "p1"}
    await ws.send_json({"id": "p2", "do": "pick", "card": 4})
    assert (await answer(ws))["rule"] == "K1"
    view = await first(ws, "view")
    async with live.db.begin() as s:
        lines = await tables.read_record_lines(s, table_id)
    assert [r.line for r in lines] == list(range(len(lines)))
    assert [r.client_id for r in lines if r.client_id] == ["p1"]
    assert view["seq"] >= 1
    await ws.close()


@pytest.mark.parametrize("time_scale", [100.0])
async def test_a_lost_reply_to_the_games_last_commit_still_ends_it_for_every_seat_rated_once(live):
    people = await live.browsers(10)
    table_id, _ = await seat_table(people)
    outage = live.runtime.table(table_id).recorder.writer = Outage(
        live.runtime.table(table_id).recorder.writer
    )
    outage.lose_final_reply = True
    clients = [SeatClient(person, table_id, steady_play) for person in people]
    for client in clients:
        await client.connect(resume=True)
    await play(clients)
    assert not outage.lose_final_reply  # the reply was lost
    for client in clients:
        assert client.events[client.last]["event"] == "game_over", client.seat
        assert client.close_code == 1000
    async with live.db.begin() as s:
        assert await s.scalar(select(func.count()).select_from(Game)) == 1
        counts = (await s.scalars(select(PlayerRating.games))).all()
        table = await tables.get_table(s, table_id)
    assert sorted(counts) == [1] * 10 and table.status == "finished"


@pytest.mark.parametrize("time_scale", [1.0])
@POSTGRES_WITH_THE_SLOW
async def test_lines_the_database_keeps_refusing_abandon_the_table_visibly(live):
    table_id, seat, ws, actor = await human_at_a_bot_table(live)
    outage = actor.recorder.writer = Outage(actor.recorder.writer)
    outage.refuse = True
    await ws.send_json({"id": "p1", "do": "pick", "card": 3})
    assert (await first(ws, "error"))["code"] == "record_paused"
    told = await first(ws, "error")
    assert told["code"] == "table_aborted", told
    assert outage.tries == 5
    status, body = await live.people[0].request("GET", f"/api/tables/{table_id}")
    assert body["table"]["status"] == "abandoned"
