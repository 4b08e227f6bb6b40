"""Generated hostile input on the table WebSocket, against a live server on
each database (issue 12): every message gets exactly one clear answer (an
error with a code, or what a valid control message asks for), nothing is
logged as a failure, and neither the table's record nor any other
connection's stream changes.

The table is in its draw with the clock all but stopped (time scale 0.001),
and the fuzzing seat has picked its card: no action it could send is
legal, so every action is refused and any change would be a defect."""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import pytest

from omerta.store import tables

from ..runtime.players import seat_table
from ..runtime.test_socket_input import answer, first
from .generate import draw
from .ws_inputs import FRAMES

#: Connections sending at once, each under the socket's 20 messages a second.
CONNECTIONS = 40
PACE = 0.055
#: What answers a message: an error, or a control message's reply (a
#: resume's events come before its view).
ENDS = {"error", "pong", "media", "view"}


async def send_all(
    ws: aiohttp.ClientWebSocketResponse, frames: list[tuple[str, object]], seq: int
) -> list[tuple[object, list[dict]]]:
    out: list[tuple[object, list[dict]]] = []
    for kind, payload in frames:
        if kind == "binary":
            assert isinstance(payload, bytes)
            await ws.send_bytes(payload)
        else:
            assert isinstance(payload, str)
            await ws.send_str(payload)
        got = [await answer_part(ws)]
        while got[-1]["type"] not in ENDS:
            got.append(await answer_part(ws))
        out.append((payload, got))
        await asyncio.sleep(PACE)
    return out


async def answer_part(ws: aiohttp.ClientWebSocketResponse) -> dict:
    """The next message, but for `presence` (sent to everyone when a seat's
    connections come and go: not an answer)."""
    while (message := await ws.receive_json(timeout=10))["type"] == "presence":
        pass
    return message


async def listen(ws: aiohttp.ClientWebSocketResponse, heard: list[dict]) -> None:
    """Keep reading (a client that reads nothing misses the server's pings
    and is dropped), keeping all but `presence`."""
    async for message in ws:
        if message.type == aiohttp.WSMsgType.TEXT and message.json()["type"] != "presence":
            heard.append(message.json())


def check_answer(payload: object, got: list[dict], newest: int) -> None:
    end = got[-1]
    if end["type"] == "error":
        assert len(got) == 1, (payload, got)
        assert isinstance(end["error"], str) and end["error"], (payload, end)
        assert isinstance(end["code"], str) and isinstance(end["params"], dict), (payload, end)
        assert "Traceback" not in end["error"] and "Exception" not in end["error"], (payload, end)
        assert end["code"] != "internal", (payload, end)
    elif end["type"] == "view":  # a resume: the events after `last`, then the view
        assert end["seq"] == newest, (payload, end)
        assert all(m["type"] == "event" for m in got[:-1]), (payload, got)
    elif end["type"] == "media":
        assert end["op"] == "error" and end["error"], (payload, end)
    else:
        assert got == [{"type": "pong"}], (payload, got)


async def fuzz_the_table(live, caplog, count: int, seed: int) -> None:
    alice, bob = await live.browsers(2)
    table_id, seats = await seat_table([alice, bob], bots=True)
    watcher = await bob.socket(table_id, last=0)
    await first(watcher, "view")
    ws = await alice.socket(table_id, last=0)
    await first(ws, "view")
    await ws.send_json({"id": "mine", "do": "pick", "card": 0})
    assert await answer(ws) == {"type": "ack", "id": "mine"}
    await first(watcher, "event")  # the pick's public event
    async with live.db.begin() as s:
        before = await tables.read_record_lines(s, table_id)
    actor = live.runtime.table(table_id)
    newest = actor.fanout.streams.last(seats[alice.username])
    heard: list[dict] = []
    listening = [asyncio.create_task(listen(quiet, heard)) for quiet in (watcher, ws)]

    frames = draw(FRAMES, count, seed)
    sockets = [await alice.socket(table_id) for _ in range(CONNECTIONS)]
    for socket in sockets:
        await first(socket, "view")
    with caplog.at_level(logging.WARNING):
        results = await asyncio.gather(
            *(send_all(socket, frames[k::CONNECTIONS], k) for k, socket in enumerate(sockets))
        )
    answered = [pair for result in results for pair in result]
    assert len(answered) == len(frames)
    for payload, got in answered:
        check_answer(payload, got, newest)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], [
        r.getMessage() for r in caplog.records
    ]

    # Nothing changed: the record, the table's actor, and what the others hear.
    async with live.db.begin() as s:
        assert await tables.read_record_lines(s, table_id) == before
    assert live.runtime.table(table_id) is actor and not actor._paused
    for socket in sockets + [watcher, ws]:
        await socket.close()
    await asyncio.gather(*listening)
    assert heard == []


@pytest.mark.parametrize("time_scale", [0.001])
async def test_a_few_hundred_generated_messages_are_each_refused_clearly_and_change_nothing(
    live, caplog
):
    await fuzz_the_table(live, caplog, count=300, seed=12)


@pytest.mark.slow
@pytest.mark.parametrize("time_scale", [0.001])
async def test_ten_thousand_generated_messages_are_each_refused_clearly_and_change_nothing(
    live, caplog
):
    await fuzz_the_table(live, caplog, count=10_000, seed=1212)
