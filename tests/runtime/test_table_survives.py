"""No message kills or wedges a table (issue 12, findings 1 and 12): hostile
text is refused at the edge with a code naming what is wrong, a bug of ours
in one message is answered `internal` and the table plays on, and a table
that truly cannot go on ends `abandoned` with every seat told."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass

import aiohttp
import pytest
from sqlalchemy import func, select

from omerta.server import keepalive
from omerta.server.keys import KEEPALIVE
from omerta.server.table_ws import RATE
from omerta.store import tables
from omerta.store.models import Game
from omerta.table import Action

from .players import seat_table
from .test_socket_input import answer, first


@dataclass(frozen=True, slots=True)
class NoSuchAction(Action):
    """An action the engine has no handler for: applying it is a bug, not a rule."""


class FakePeer:
    def __init__(self, seat: int | None):
        self.seat = seat
        self.sent: list[dict] = []
        self.closed: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


async def human_at_a_bot_table(live):
    [alice] = await live.browsers(1)
    table_id, seats = await seat_table([alice], bots=True)
    ws = await alice.socket(table_id, last=0)
    await first(ws, "view")
    return table_id, seats[alice.username], ws


async def my_lines(live, table_id: int, seat: int) -> list[tuple[str, str | None]]:
    async with live.db.begin() as s:
        lines = await tables.read_record_lines(s, table_id)
    return [
        (json.loads(r.text)["do"], r.client_id)
        for r in lines[1:]
        if json.loads(r.text).get("seat") == seat
    ]


@pytest.mark.parametrize("time_scale", [1.0])  # the draw lasts 15 s
async def test_a_lone_surrogate_or_a_nul_in_an_id_is_refused_and_the_table_goes_on(live):
    table_id, me, ws = await human_at_a_bot_table(live)
    # 38 bytes that used to kill the table's actor (the encoder refused the id).
    await ws.send_str('{"id": "\\ud800", "do": "end_speech"}')
    refused = await answer(ws)
    assert refused["code"] == "bad_json" and "surrogate" in refused["error"], refused
    # A NUL is valid JSON, but Postgres refuses it in a record's client id.
    for bad in ["a\u0000", "\u202e" * 3 + "x\n", "x" * 65, ""]:
        await ws.send_json({"id": bad, "do": "pick", "card": 0})
        refused = await answer(ws)
        assert refused["code"] == "bad_id" and refused["id"] is None, (bad, refused)
        assert "printable" in refused["error"]
    await ws.send_json({"id": "p1", "do": "pick", "card": 0})
    assert await answer(ws) == {"type": "ack", "id": "p1"}
    assert await my_lines(live, table_id, me) == [("pick", "p1")]
    await ws.close()


@pytest.mark.parametrize("time_scale", [1.0])
async def test_deeply_nested_json_is_refused_with_an_error_and_the_socket_stays_open(live):
    table_id, me, ws = await human_at_a_bot_table(live)
    deep = '{"type": "media", "op": "attach", "x": ' + "[" * 2000 + "]" * 2000 + "}"
    await ws.send_str(deep)
    refused = await answer(ws)
    assert refused["code"] == "bad_json" and "depth" in refused["error"], refused
    nested = {"id": "n1", "do": "pick", "card": 0, "x": [[[[[[[[[[1]]]]]]]]]]}
    await ws.send_json(nested)
    refused = await answer(ws)
    assert refused["code"] == "too_deep" and refused["params"] == {"max": 8}, refused
    for text, code in [
        ('{"id": "a", "do": "pick", "card": NaN}', "bad_json"),
        ("[1]", "not_object"),
        ('{"type": ["resume"]}', "unknown_type"),
        ('{"id": "a", "do": "pick", "card": 1e400}', "bad_json"),
    ]:
        await ws.send_str(text)
        refused = await answer(ws)
        assert refused["code"] == code, (text, refused)
    assert not ws.closed
    await ws.send_json({"id": "p1", "do": "pick", "card": 0})
    assert await answer(ws) == {"type": "ack", "id": "p1"}
    await ws.close()


@pytest.mark.parametrize("time_scale", [1.0])
async def test_a_bug_in_one_message_answers_internal_is_logged_once_and_the_table_plays_on(
    live, caplog
):
    table_id, me, ws = await human_at_a_bot_table(live)
    actor = live.runtime.table(table_id)
    peer = FakePeer(me)
    with caplog.at_level(logging.ERROR):
        for n in range(3):
            actor.act(peer, f"x{n}", NoSuchAction(me))
        await asyncio.wait_for(_until(lambda: len(peer.sent) == 3), 5)
    assert [m["code"] for m in peer.sent] == ["internal"] * 3
    assert all("KeyError" not in m["error"] and "Traceback" not in m["error"] for m in peer.sent)
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 1, [r.getMessage() for r in caplog.records]
    # The table's actor is still there and still plays.
    await ws.send_json({"id": "p1", "do": "pick", "card": 0})
    assert await answer(ws) == {"type": "ack", "id": "p1"}
    assert live.runtime.table(table_id) is actor
    await ws.close()


async def test_a_table_whose_deadline_cannot_fire_ends_abandoned_and_every_seat_is_told(live):
    people = await live.browsers(2)
    table_id, _ = await seat_table(people, bots=True)
    sockets = [await person.socket(table_id, last=0) for person in people]
    for ws in sockets:
        await first(ws, "view")
    actor = live.runtime.table(table_id)
    broken = actor.state.clone()
    broken.deck = 42  # a state the engine cannot step from: a bug, whatever its cause
    actor.state = broken
    for ws in sockets:
        told = await first(ws, "error")
        assert told["code"] == "table_aborted" and "nothing about it is rated" in told["error"]
        closing = await ws.receive(timeout=5)
        while closing.type == aiohttp.WSMsgType.TEXT:
            closing = await ws.receive(timeout=5)
        assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == 1011
    status, body = await people[0].request("GET", f"/api/tables/{table_id}")
    assert body["table"]["status"] == "abandoned"
    async with live.db.begin() as s:
        assert await s.scalar(select(func.count()).select_from(Game)) == 0
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await people[0].socket(table_id)
    assert refused.value.status == 409


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.01)


@pytest.mark.parametrize("time_scale", [1.0])
async def test_resumes_are_limited_per_connection_so_a_small_message_cannot_pull_the_stream(live):
    """Issue 12, finding 8: a 29-byte `resume` replayed the whole stream as
    often as it was sent."""
    table_id, me, ws = await human_at_a_bot_table(live)
    for _ in range(10):
        await ws.send_json({"type": "resume", "last": 0})
    views = refusals = 0
    while (views, refusals) != (3, 7):
        message = await ws.receive_json(timeout=5)
        views += message["type"] == "view"
        if message["type"] == "error":
            assert message["code"] == "rate_limited" and "resumes" in message["error"], message
            refusals += 1
    await ws.send_json({"type": "resume", "last": 0})
    assert (await answer(ws))["code"] == "rate_limited"
    assert not ws.closed
    await ws.close()


@pytest.mark.parametrize("time_scale", [1.0])
async def test_everyone_is_told_which_seats_are_connected(live):
    """Issue 14: who else has disconnected shows on their tile."""
    alice, bob = await live.browsers(2)
    table_id, seats = await seat_table([alice, bob], bots=True)
    a = await alice.socket(table_id)
    assert (await first(a, "presence"))["connected"] == [seats[alice.username]]
    b = await bob.socket(table_id)
    both = sorted(seats.values())
    assert (await first(a, "presence"))["connected"] == both
    assert (await first(b, "presence"))["connected"] == both
    await b.close()
    assert (await first(a, "presence"))["connected"] == [seats[alice.username]]
    await a.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the socket's, not the store's
@pytest.mark.parametrize("time_scale", [1.0])
async def test_a_connection_that_goes_silent_shows_as_gone_to_the_others_within_5_s(live):
    """Issue 14: a network that drops without a word (no close frame, no
    answer to the server's pings) shows on the others' tiles within 5 s."""
    alice, bob = await live.browsers(2)
    table_id, seats = await seat_table([alice, bob], bots=True)
    a = await alice.socket(table_id)
    assert (await first(a, "presence"))["connected"] == [seats[alice.username]]
    b = await bob.socket(table_id, autoping=False)  # reads nothing, answers no ping
    loop = asyncio.get_running_loop()
    connected = loop.time()
    assert (await first(a, "presence"))["connected"] == sorted(seats.values())
    assert (await first(a, "presence"))["connected"] == [seats[alice.username]]
    took = loop.time() - connected
    assert took <= 5, f"bob was told gone after {took:.1f} s"
    await b.close()
    await a.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the socket's, not the store's
@pytest.mark.parametrize("time_scale", [1.0])
async def test_the_web_clients_ping_is_answered_pong_and_counts_in_the_rate_limit(live):
    """The exact text the web client sends is answered before any parsing,
    but a flood of it is refused like any other flood."""
    alice, *_ = await live.browsers(1)
    table_id, _ = await seat_table([alice], bots=True)
    ws = await alice.socket(table_id)
    await first(ws, "view")
    for _ in range(RATE.attempts + 5):
        await ws.send_str('{"type":"ping"}')
    answers = []
    while len(answers) < RATE.attempts + 5:
        message = await ws.receive_json(timeout=5)
        if message["type"] in ("pong", "error"):
            answers.append(message.get("code", message["type"]))
    assert answers.count("pong") == RATE.attempts
    assert answers.count("rate_limited") == 5
    assert not ws.closed
    await ws.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("time_scale", [1.0])
async def test_a_socket_that_answers_the_servers_pings_stays_and_one_that_does_not_is_cut(
    live, monkeypatch
):
    """The sweep's rules on a real socket, on a shorter beat (the fake-clock
    tests of tests/server/test_keepalive.py hold the real one): a client
    that only listens but answers WebSocket pings stays through many
    silences; one that answers nothing is cut and shown as gone."""
    monkeypatch.setattr(keepalive, "LOOK_EVERY", 0.1)
    monkeypatch.setattr(keepalive, "PING_AFTER", 0.5)
    monkeypatch.setattr(keepalive, "DROP_AFTER", 1.5)
    monkeypatch.setattr(keepalive, "ANSWER_WITHIN", 0.9)
    alice, bob = await live.browsers(2)
    table_id, seats = await seat_table([alice, bob], bots=True)
    a = await alice.socket(table_id)  # aiohttp answers pings while it reads
    assert (await first(a, "presence"))["connected"] == [seats[alice.username]]
    b = await bob.socket(table_id, autoping=False)  # reads nothing, answers no ping
    assert (await first(a, "presence"))["connected"] == sorted(seats.values())
    assert (await first(a, "presence"))["connected"] == [seats[alice.username]]
    # 4 s, alice pinged some five times meanwhile. One outer deadline: a
    # receive's own timeout starts again after each ping it answers.
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(4.0):
            while True:
                message = await a.receive()
                assert message.type == aiohttp.WSMsgType.TEXT, message
                assert message.json()["type"] != "presence", message
    assert not a.closed
    await b.close()
    await a.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("time_scale", [1.0])
async def test_a_closed_socket_has_nothing_unread(live):
    """The keep-alive asks a socket about to be cut whether bytes wait; one
    whose connection closed meanwhile says no instead of raising."""
    [alice] = await live.browsers(1)
    table_id, _ = await seat_table([alice], bots=True)
    ws = await alice.socket(table_id)
    await first(ws, "view")
    [peer] = set().union(*live.server.app[KEEPALIVE]._slices)
    assert peer.unread() is False
    peer.ws._writer.transport.abort()
    await asyncio.sleep(0.05)
    assert peer.unread() is False
    await ws.close()
