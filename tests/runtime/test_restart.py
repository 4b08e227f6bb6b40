"""`kill -9` in the middle of a game: the restarted server resumes the table
from its record, in the same state, with nothing acknowledged lost, and
the players reconnect and catch up (SQLite file and real Postgres)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select
from yarl import URL

from omerta.store import Database, tables
from omerta.store.models import Game, PlayerRating
from omerta.table.views import view

from .players import Browser, SeatClient, played, register, seat_events, seat_table, steady_play

TIME_SCALE = 50


async def start_server(database_url: str, log: Path) -> tuple[subprocess.Popen, URL]:
    env = {**os.environ, "DATABASE_URL": database_url}
    command = [
        sys.executable,
        "-m",
        "omerta.cli",
        "serve",
        "--port",
        "0",
        "--time-scale",
        str(TIME_SCALE),
    ]
    with open(log, "a") as errors:
        server = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=errors, text=True
        )
    assert server.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(server.stdout.readline), 30)
    found = re.search(r"open (http://\S+/)", line)
    assert found, f"the server said {line!r}; its log: {log.read_text()}"
    return server, URL(found.group(1))


async def stored(database_url: str, table_id: int) -> list[tables.RecordLine]:
    db = Database.connect(database_url)
    try:
        async with db.begin() as s:
            return await tables.read_record_lines(s, table_id)
    finally:
        await db.close()


async def until(condition, timeout: float = 30) -> None:
    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout)


@pytest.mark.slow  # both databases: the README command stays under 8 minutes
async def test_a_killed_server_resumes_its_table_and_loses_nothing(database_url, tmp_path):
    log = tmp_path / "server.log"
    server, base = await start_server(database_url, log)
    people = [Browser(base) for _ in range(10)]
    try:
        await register(people)
        table_id, _ = await seat_table(people)
        clients = [SeatClient(person, table_id, seed=3) for person in people]
        for client in clients:
            await client.connect(resume=True)
        running = [asyncio.create_task(client.run()) for client in clients]
        await until(
            lambda: any(
                e["event"] == "phase" and e.get("day") == 2 for e in clients[0].events.values()
            )
        )
        server.send_signal(signal.SIGKILL)
        assert await asyncio.to_thread(server.wait, 10) == -signal.SIGKILL
        await asyncio.wait_for(asyncio.gather(*running), 10)

        # Every acknowledged action is in the record, once, as sent.
        before = await stored(database_url, table_id)
        recorded = {line.client_id: json.loads(line.text) for line in before if line.client_id}
        assert sum(len(client.acked) for client in clients) >= 10
        assert len(recorded) == sum(1 for line in before if line.client_id)
        for client in clients:
            for client_id, action in client.acked.items():
                line = recorded[client_id]
                assert line["seat"] == client.seat and line["do"] == action["do"]
                assert all(line[k] == v for k, v in action.items())
        # What each seat saw is a prefix of its share of the record.
        texts = [line.text for line in before]
        for client in clients:
            assert list(client.events.values()) == seat_events(texts, client.seat)[: client.last]
        frozen = played(texts).state

        server, base = await start_server(database_url, log)
        # Reconnect without playing until each has its view: the clock stands
        # still (the grace), so the view shows the state the record left.
        plays = [client.policy for client in clients]
        for client in clients:
            client.policy = None
            # One client has lost its place: it resyncs from the view alone.
            await client.connect(base, resume=client is not clients[1])
        running = [asyncio.create_task(client.run()) for client in clients]
        marks = [len(client.messages) for client in clients]
        await until(
            lambda: all(
                c.view is not None and c.messages[-1]["type"] == "view" and len(c.messages) > m
                for c, m in zip(clients, marks)
            )
        )
        for client, mark in zip(clients, marks):
            assert client.messages[-1]["view"] == json.loads(json.dumps(view(frozen, client.seat)))
            caught_up = [m["seq"] for m in client.messages[mark:] if m["type"] == "event"]
            newest = len(seat_events(texts, client.seat))
            assert client.messages[-1]["seq"] == newest
            if client is clients[1]:
                assert caught_up == []
        for client, policy in zip(clients, plays):
            client.policy = policy
            await client.nudge()
        await asyncio.wait_for(asyncio.gather(*running), 60)

        after = [line.text for line in await stored(database_url, table_id)]
        assert after[: len(texts)] == texts
        for client in clients:
            assert client.events[client.last]["event"] == "game_over"
            whole = seat_events(after, client.seat)
            assert all(whole[seq - 1] == event for seq, event in client.events.items())
        status, body = await people[0].request("GET", f"/api/tables/{table_id}")
        assert body["table"]["status"] == "finished"
    finally:
        server.kill()
        await asyncio.to_thread(server.wait)
        server.stdout.close()
        for person in people:
            await person.close()


async def finished_game(database_url: str, table_id: int) -> tuple[str, int, list[int]]:
    db = Database.connect(database_url)
    try:
        async with db.begin() as s:
            table = await tables.get_table(s, table_id)
            games = await s.scalar(select(func.count()).select_from(Game))
            rated = list((await s.scalars(select(PlayerRating.games))).all())
            assert table is not None and games is not None
            return table.status, games, rated
    finally:
        await db.close()


async def a_moment(
    client: SeatClient, steps: int, ended: asyncio.Event, ended_before: bool
) -> None:
    """Until `client` has read `steps` more events, or the end has been read
    (and the server killed for it) for the first time."""
    start = client.last
    await until(lambda: client.last >= start + steps or (ended.is_set() and not ended_before), 60)


@pytest.mark.slow
async def test_kill_9_at_random_moments_to_the_games_end_loses_nothing_and_rates_once(
    database_url, tmp_path
):
    """Killed again and again, at any step, the game's end included: every
    seat still gets the whole game and `game_over` (after the end, from the
    finished table's socket), the record replays to it, and it is rated once.
    The moments are counted in the game's events, not in seconds, so that a
    fast machine and a loaded one kill as often and as far into the game."""
    log = tmp_path / "server.log"
    rng = random.Random(9)
    server, base = await start_server(database_url, log)
    people = [Browser(base) for _ in range(10)]
    kills = 0
    ended = asyncio.Event()

    def heard(event: dict) -> None:
        # Killed the moment the first seat reads the end: the others may
        # not have read theirs, and the game may not be rated yet.
        if event["event"] == "game_over" and not ended.is_set():
            server.send_signal(signal.SIGKILL)
            ended.set()

    try:
        await register(people)
        table_id, _ = await seat_table(people)
        clients = [SeatClient(person, table_id, steady_play, heard=heard) for person in people]
        while True:
            for client in clients:
                await client.connect(base, resume=True)
            running = [asyncio.create_task(client.run()) for client in clients]
            ended_before = ended.is_set()
            moment = asyncio.create_task(
                a_moment(clients[rng.randrange(10)], rng.randint(1, 40), ended, ended_before)
            )
            # Wait for every seat, not the first: after the end the finished
            # table closes the seats' sockets one by one, and a moment counted
            # in events that will never come must not be awaited then.
            everyone = asyncio.gather(*running)
            await asyncio.wait([everyone, moment], return_when=asyncio.FIRST_COMPLETED)
            if everyone.done() and not (ended.is_set() and not ended_before):
                moment.cancel()
                everyone.result()
                break
            await moment
            server.send_signal(signal.SIGKILL)
            assert await asyncio.to_thread(server.wait, 10) == -signal.SIGKILL
            kills += 1
            await asyncio.wait_for(everyone, 10)
            server, base = await start_server(database_url, log)
        assert kills >= 3 and ended.is_set(), (
            kills,
            [client.close_code for client in clients],
            log.read_text()[-3000:],
        )
        record = [line.text for line in await stored(database_url, table_id)]
        assert played(record).state.over
        for client in clients:
            assert client.events[client.last]["event"] == "game_over", client.seat
            assert list(client.events.values()) == seat_events(record, client.seat)
        status, games, rated = await finished_game(database_url, table_id)
        assert (status, games, sorted(rated)) == ("finished", 1, [1] * 10)
    finally:
        server.kill()
        await asyncio.to_thread(server.wait)
        server.stdout.close()
        for person in people:
            await person.close()
