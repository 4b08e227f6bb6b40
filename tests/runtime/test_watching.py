"""Watching a live table over WebSockets (issue 19): a spectator (signed in,
or anyone if the table says so) gets exactly the public share of the
record and cannot act; the players are told how many watch; a table takes
at most OMERTA_LIMIT_SPECTATORS_PER_TABLE of them; the delayed stream gives
nothing of a step before its time plus the delay, and none to a player."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import aiohttp
import pytest
from yarl import URL

from omerta.server.limits import UNLIMITED, Limits
from omerta.store import tables

from .players import Browser, Live, seat_events

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

HIDDEN = {"role", "team", "check", "night_action", "seated", "tech_record", "tech_ballot"}
DELAY = 30  # game seconds: 0.6 s of wall time at time scale 50


@pytest.fixture
def limits() -> Limits:
    """Tables that take two spectators each."""
    return dataclasses.replace(UNLIMITED, spectators_per_table=2)


async def watched_table(owner: Browser, watch: dict[str, Any]) -> int:
    status, body = await owner.request("POST", "/api/tables", {"watch": watch})
    assert status == 201, body
    assert body["table"]["watch"] == {"stream": False, "stream_delay": 180, **watch}
    table_id = body["table"]["id"]
    assert (await owner.request("POST", f"/api/tables/{table_id}/sit"))[0] == 200
    status, body = await owner.request("POST", f"/api/tables/{table_id}/bots")
    assert body["table"]["status"] == "playing"
    return table_id


async def until(
    ws: aiohttp.ClientWebSocketResponse, kind: str, events: list | None = None, **fields: Any
) -> dict:
    """The next `kind` message with `fields`; the events passed on the way
    go to `events`."""
    while True:
        message = await ws.receive_json(timeout=5)
        if message["type"] == "event" and events is not None:
            events.append(message["event"])
        if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
            return message


def anonymous(live: Live) -> Browser:
    stranger = Browser(live.base)
    live.people.append(stranger)
    return stranger


async def test_anyone_may_watch_an_open_table_and_sees_the_public_share_and_is_counted(live):
    [alice] = await live.browsers(1)
    table_id = await watched_table(alice, {"spectators": "anyone"})
    player = await alice.socket(table_id)
    stranger = anonymous(live)
    ws = await stranger.socket(table_id, last=0)
    assert (await ws.receive_json(timeout=5)) == {"type": "hello", "table": table_id, "seat": None}
    assert (await until(player, "spectators"))["count"] == 1
    await ws.send_json({"id": "s1", "do": "pick", "card": 1})
    got: list[dict] = []
    assert (await until(ws, "error", got, id="s1"))["code"] == "spectator"
    deadline = asyncio.get_running_loop().time() + 1.0
    while asyncio.get_running_loop().time() < deadline:
        message = await ws.receive_json(timeout=5)
        if message["type"] == "event":
            assert message["seq"] == len(got) + 1
            got.append(message["event"])
        elif message["type"] == "view":
            view = message["view"]
            assert view["seat"] is None and view["actions"] == [] and view["checks"] == {}
            assert all(row["role"] is None for row in view["seats"])
    await ws.close()
    assert (await until(player, "spectators"))["count"] == 0
    async with live.db.begin() as s:
        record = await tables.read_record(s, table_id)
    assert len(got) > 10 and not HIDDEN & {e["event"] for e in got}
    assert got == seat_events(record, None)[: len(got)]
    await player.close()


async def test_a_table_watched_signed_in_refuses_strangers_and_takes_its_limit(live):
    alice, bob, carol, dave = await live.browsers(4)
    table_id = await watched_table(alice, {"spectators": "signed_in"})
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await anonymous(live).socket(table_id)
    assert refused.value.status == 401
    watching = [await bob.socket(table_id), await carol.socket(table_id)]
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await dave.socket(table_id)
    assert refused.value.status == 429
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await dave.session.ws_connect(live.base.join(URL(f"/api/tables/{table_id}/stream")))
    assert refused.value.status == 403  # not streamed
    player = await alice.socket(table_id)  # a player is never held to it
    assert (await until(player, "spectators"))["count"] == 2
    await watching[0].close()
    late = await dave.socket(table_id)
    assert (await late.receive_json(timeout=5))["seat"] is None
    for ws in (watching[1], late, player):
        await ws.close()


async def test_the_stream_holds_every_step_back_by_its_delay_and_no_player_gets_it(live):
    alice, bob = await live.browsers(2)
    table_id = await watched_table(
        alice, {"spectators": "signed_in", "stream": True, "stream_delay": DELAY}
    )
    url = live.base.join(URL(f"/api/tables/{table_id}/stream"))
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await alice.session.ws_connect(url)
    assert refused.value.status == 403  # she plays at it
    player = await alice.socket(table_id)
    ws = await bob.session.ws_connect(url)
    actor = live.runtime.table(table_id)
    assert (await ws.receive_json(timeout=5)) == {
        "type": "stream",
        "table": table_id,
        "delay": DELAY,
    }
    assert (await until(player, "spectators"))["count"] == 1
    seen: set[str] = set()
    while not {"role", "picked", "phase"} <= seen:
        message = await ws.receive_json(timeout=5)
        now = actor.clock.now()
        if message["type"] == "event":
            seen.add(message["event"]["event"])
            assert now >= message["event"]["t"] + DELAY, (now, message)
        else:
            assert message["type"] == "view" and now >= message["now"] + DELAY
    assert {"role", "picked"} <= seen and "tech_record" not in seen
    await ws.close()
    await player.close()
