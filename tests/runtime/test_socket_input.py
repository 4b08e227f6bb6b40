"""Bad input on the table WebSocket: each gets a clear error, changes
nothing, and the connection stays up where that makes sense."""

from __future__ import annotations

import json

import aiohttp
import pytest
from yarl import URL

from omerta.store import tables

from .players import Browser, seat_table

pytestmark = pytest.mark.parametrize("time_scale", [1.0])  # the draw lasts 15 s


async def answer(ws: aiohttp.ClientWebSocketResponse) -> dict:
    """The next ack or error (events and views of the bots' moves go by)."""
    while True:
        message = await ws.receive_json(timeout=5)
        if message["type"] in ("ack", "error"):
            return message


async def first(ws: aiohttp.ClientWebSocketResponse, kind: str) -> dict:
    while True:
        message = await ws.receive_json(timeout=5)
        if message["type"] == kind:
            return message


async def test_every_bad_message_gets_an_error_and_changes_nothing(live):
    [alice] = await live.browsers(1)
    table_id, seats = await seat_table([alice], bots=True)
    me = seats[alice.username]
    other = me % 10 + 1
    ws = await alice.socket(table_id, last=0)
    assert (await ws.receive_json(timeout=5)) == {"type": "hello", "table": table_id, "seat": me}
    await first(ws, "view")

    # A repeated message id is answered again and applied once.
    pick = {"id": "p1", "do": "pick", "card": 0}
    await ws.send_json(pick)
    ack = await answer(ws)
    assert ack == {"type": "ack", "id": "p1"}
    await ws.send_json(pick)
    assert await answer(ws) == ack
    await ws.send_json({**pick, "id": "p2"})
    refused = await answer(ws)
    assert refused["id"] == "p2" and refused["rule"] == "K1" and "already" in refused["error"]

    bad = [
        ("{not json", None, "not valid JSON"),
        ("[1, 2]", None, "must be a JSON object"),
        (json.dumps({"do": "end_speech"}), None, "needs an 'id'"),
        (json.dumps({"id": 7, "do": "end_speech"}), None, "needs an 'id'"),
        (json.dumps({"id": "a1", "do": "dance"}), "a1", "unknown action 'dance'"),
        (json.dumps({"id": "a2", "do": "nominate"}), "a2", "needs an integer 'target'"),
        (
            json.dumps({"id": "a3", "do": "nominate", "target": 2, "seat": other}),
            "a3",
            f"you cannot act for seat {other}",
        ),
        (json.dumps({"id": "a4", "do": "nominate", "target": 2}), "a4", ""),
        (json.dumps({"type": "resume", "last": -1}), None, "resume needs 'last'"),
        (json.dumps({"type": "dance"}), None, "unknown message type 'dance'"),
        (json.dumps({"id": "a5", "do": "end_speech", "pad": "x" * 5000}), None, "at most 4096"),
        (
            json.dumps({"type": "media", "op": "attach", "pad": "x" * 40000}),
            None,
            "32768 for media",
        ),
    ]
    for text, client_id, says in bad:
        await ws.send_str(text)
        reply = await answer(ws)
        assert reply["type"] == "error" and reply["id"] == client_id, (text, reply)
        assert says in reply["error"], (text, reply)
        if client_id == "a4":  # well formed, but the draw is on: the engine names the rule
            assert reply["rule"] == "D2"
    await ws.send_bytes(b"\x00\x01")
    assert "text frames" in (await answer(ws))["error"]
    # A browser's SDP answer for ten seats is some 11 kB: media messages are
    # not held to the actions' limit (this table has no media plane, and says so).
    await ws.send_str(json.dumps({"type": "media", "op": "attach", "sdp": "x" * 11000}))
    assert (await first(ws, "media"))["error"] == "this table has no media connections"

    # Still connected: a resume from the start gets the whole stream again.
    await ws.send_json({"type": "resume", "last": 0})
    assert (await ws.receive_json(timeout=5)) == {
        "type": "event",
        "seq": 1,
        "event": {"event": "phase", "t": 0, "phase": "draw", "day": 0, "seconds": 15},
    }

    # Of all that, only the first pick reached the record.
    async with live.db.begin() as s:
        lines = await tables.read_record_lines(s, table_id)
    mine = [
        (json.loads(r.text), r.client_id) for r in lines[1:] if json.loads(r.text).get("seat") == me
    ]
    assert [(line["do"], client_id) for line, client_id in mine] == [("pick", "p1")]

    # Too many messages at once: the excess is refused, the connection stays.
    for _ in range(30):
        await ws.send_json({"type": "ping"})
    assert "too many messages" in (await first(ws, "error"))["error"]
    assert not ws.closed

    # A frame far over the limit is not even read: the connection closes.
    await ws.send_str("x" * 70_000)
    closing = await ws.receive(timeout=5)
    while closing.type == aiohttp.WSMsgType.TEXT:
        closing = await ws.receive(timeout=5)
    assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == 1009
    await ws.close()


async def test_a_spectator_sees_only_public_events_and_cannot_act(live):
    alice, bob = await live.browsers(2)
    table_id, _ = await seat_table([alice], bots=True)
    ws = await bob.socket(table_id, last=0)
    assert (await ws.receive_json(timeout=5))["seat"] is None
    view = await first(ws, "view")
    assert view["view"]["seat"] is None and view["view"]["actions"] == []
    await ws.send_json({"id": "b1", "do": "pick", "card": 1})
    refused = await answer(ws)
    assert refused["id"] == "b1" and "spectators do not act" in refused["error"]
    await ws.send_json({"type": "resume", "last": 0})
    seen = []
    while (message := await ws.receive_json(timeout=5))["type"] != "view":
        if message["type"] == "event":
            seen.append(message["event"]["event"])
    assert seen[0] == "phase" and not {"role", "team", "seated"} & set(seen)
    await ws.close()


async def test_sockets_are_refused_before_they_open(live):
    [alice] = await live.browsers(1)
    table_id, _ = await seat_table([alice], bots=True)
    stranger = Browser(live.base)
    live.people.append(stranger)
    cases = [
        (stranger.socket(table_id), 401),  # not signed in
        (alice.socket(table_id, origin="https://evil.example"), 403),  # another site's page
        (alice.socket(table_id + 100), 404),
        (alice.session.ws_connect(live.base.join(URL(f"/api/tables/{table_id}/ws?last=x"))), 400),
    ]
    status, body = await alice.request("POST", "/api/tables", {})
    cases.append((alice.socket(body["table"]["id"]), 409))  # not playing yet
    for connecting, status in cases:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await connecting
        assert refused.value.status == status
    # A page from this server itself may connect.
    ws = await alice.socket(table_id, origin=str(live.base.origin()))
    assert (await ws.receive_json(timeout=5))["type"] == "hello"
    await ws.close()
