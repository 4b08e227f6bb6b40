"""Write-through: nothing reaches a client before its step is stored, and a
failed write applies nothing (the table goes back to its stored state)."""
from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy.exc import OperationalError

from omerta.store import tables

from .players import seat_table
from .test_socket_input import answer, first

pytestmark = pytest.mark.parametrize("time_scale", [1.0])   # the draw lasts 15 s


async def human_at_a_bot_table(live):
    [alice] = await live.browsers(1)
    table_id, seats = await seat_table([alice], bots=True)
    ws = await alice.socket(table_id, last=0)
    await first(ws, "view")
    return table_id, seats[alice.username], ws, live.runtime.table(table_id)


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
        await ws.receive_json(timeout=0.3)      # applied, not yet stored: nothing sent
    assert actor.state.roles[seat] is not None and actor.stored.roles[seat] is None
    release.set()
    got = [await ws.receive_json(timeout=5)]
    while got[-1]["type"] != "ack":
        got.append(await ws.receive_json(timeout=5))
    assert got[-1]["id"] == "p1" and got[-2]["type"] == "view"
    assert {"role", "picked"} <= {m["event"]["event"] for m in got if m["type"] == "event"}


async def test_a_failed_write_applies_nothing_and_the_table_goes_on(live):
    table_id, seat, ws, actor = await human_at_a_bot_table(live)
    write = actor.recorder.write
    failures = []

    async def broken(*args):
        failures.append(args)
        raise OperationalError("INSERT", {}, Exception("disk I/O error"))
    actor.recorder.write = broken
    await ws.send_json({"id": "p1", "do": "pick", "card": 3})
    refused = await answer(ws)
    assert refused["id"] == "p1" and "could not record" in refused["error"]
    assert actor.state is actor.stored and actor.state.roles[seat] is None
    actor.recorder.write = write
    # The same id again is applied now: a failed write answered nothing for good.
    await ws.send_json({"id": "p1", "do": "pick", "card": 3})
    assert await answer(ws) == {"type": "ack", "id": "p1"}
    async with live.db.begin() as s:
        lines = await tables.read_record_lines(s, table_id)
    assert [r.line for r in lines] == list(range(len(lines)))
    mine = [r for r in lines if json.loads(r.text).get("seat") == seat]
    assert [(json.loads(r.text)["do"], r.client_id) for r in mine] == [("pick", "p1")]
    assert failures
    await ws.close()
