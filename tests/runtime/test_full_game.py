"""Whole games over the table WebSocket at a high time scale, on SQLite and
on real Postgres: ten people, one person and nine bots, ten bots."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from omerta.script import replay
from omerta.server.commands import export_game
from omerta.store import tables

from .players import SeatClient, check_no_leak, play, seat_events, seat_table


async def record_of(live, table_id: int) -> list[str]:
    async with live.db.begin() as s:
        return await tables.read_record(s, table_id)


async def finished(live, table_id: int, timeout: float = 30) -> None:
    async def wait() -> None:
        while live.runtime.table(table_id) is not None:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(wait(), timeout)


@pytest.mark.parametrize("time_scale", [100.0])
async def test_ten_players_play_a_whole_game_over_websockets(live):
    people = await live.browsers(10)
    table_id, seats = await seat_table(people)
    clients = [SeatClient(person, table_id, seed=1) for person in people]
    for client in clients:
        await client.connect(resume=True)  # from event 1: the whole stream
    await play(clients)

    record = await record_of(live, table_id)
    roles = {int(s): r for s, r in clients[0].events[clients[0].last]["roles"].items()}
    for client in clients:
        assert client.seat == seats[client.person.username]
        assert client.events[client.last]["event"] == "game_over"
        assert client.close_code == 1000
        # What each seat saw is exactly its share of the stored record.
        assert list(client.events.values()) == seat_events(record, client.seat)
        check_no_leak(client, roles)
    assert sum(len(c.acked) for c in clients) >= 20
    acked_lines = [json.loads(line) for line in record[1:] if "seat" in json.loads(line)]
    assert len(acked_lines) == sum(len(c.acked) for c in clients)  # no bots: only ours

    status, body = await people[0].request("GET", f"/api/tables/{table_id}")
    assert body["table"]["status"] == "finished"
    for client in clients:
        status, body = await client.person.request("GET", "/api/me/games")
        [game] = body["games"]
        assert game["table"] == table_id and game["seat"] == client.seat
        assert game["role"] == roles[client.seat] and game["ranked"] is True


@pytest.mark.parametrize("time_scale", [1000.0])
async def test_one_person_and_nine_bots_play_to_the_end_and_the_export_replays(
    live, database_url, monkeypatch
):
    [person] = await live.browsers(1)
    table_id, seats = await seat_table([person], bots=True)
    client = SeatClient(person, table_id, seed=2)
    await client.connect(resume=True)
    await play([client])
    assert client.events[client.last]["event"] == "game_over"

    status, body = await person.request("GET", "/api/me/games")
    [game] = body["games"]
    assert game["ranked"] is False  # A1: bots make it practice
    out = io.StringIO()
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert await asyncio.to_thread(export_game, game["game"], out) == 0
    exported = out.getvalue()
    assert exported.splitlines() == await record_of(live, table_id)
    header = json.loads(exported.splitlines()[0])
    assert sorted(header["bots"]) == sorted(set(range(1, 11)) - {client.seat})
    replayed = [e.to_dict() for e in replay(exported).events if e.audience.includes(client.seat)]
    assert replayed == list(client.events.values())


@pytest.mark.parametrize("time_scale", [1000.0])
async def test_ten_bots_play_a_table_to_its_end(live):
    [creator] = await live.browsers(1)
    status, body = await creator.request("POST", "/api/tables", {})
    table_id = body["table"]["id"]
    status, body = await creator.request("POST", f"/api/tables/{table_id}/bots")
    assert body["table"]["status"] == "playing"
    await finished(live, table_id)
    status, body = await creator.request("GET", f"/api/tables/{table_id}")
    assert body["table"]["status"] == "finished"
    record = await record_of(live, table_id)
    assert sum('"seat"' in line for line in record[1:]) >= 10  # the bots acted, recorded
    # Bots leave technical votes to people: theirs froze every clock for 30 s.
    assert not [line for line in record[1:] if json.loads(line).get("do") == "tech_call"]
    assert replay("\n".join(record)).state.over
