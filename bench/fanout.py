"""Fan-out benchmark: the CPU the server spends per message it sends to
the table sockets, against a bare aiohttp broadcast, in the same process
and the same run.

    .venv/bin/python bench/fanout.py --tables 200 --rounds 60 --reps 5

Random legal classic games (`omerta.bots.choose` for every seat) are played
once beforehand. Then one process serves --tables tables x 10 WebSocket
connections on loopback (a client process reads them all) and, in turns:

- ours: every table publishes its next step through the live path
  (`Fanout.publish`, the acting seat's ack, `SocketPeer` writing the
  frames), --rounds steps per table;
- bare: as many messages of our mean size, each written with
  `send_str` to one socket after another, as the bare broadcast in
  bench/server_load.py does.

Time is the process's CPU time (the machine's other load disturbs it far
less than the wall clock); turns alternate --reps times and the ratio is
the median of the per-turn ratios. Only the send path is measured: no
engine, no database. To compare another commit, run its tree's code with
this file: PYTHONPATH=TREE .venv/bin/python bench/fanout.py."""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time

import aiohttp
from aiohttp import web

from omerta.bots import choose
from omerta.runtime import messages
from omerta.runtime.clock import GameClock
from omerta.runtime.fanout import Fanout
from omerta.runtime.streams import Streams
from omerta.server.table_ws import SocketPeer
from omerta.table import CLASSIC, Action, Event, State, Timeout, apply, new_game

CONNECT_AT_ONCE = 50


def game(seed: int) -> list[tuple[State, list[Event], int | None]]:
    """One random game as its steps: (state after, events, acting seat)."""
    rng = random.Random(seed)
    state, events = new_game(CLASSIC, {}, seed)
    steps: list[tuple[State, list[Event], int | None]] = [(state, events, None)]
    while not state.over:
        chosen = choose(state, rng.randint(1, state.n), rng)
        action: Action | Timeout
        if chosen is None or chosen.name == "tech_call":
            due = state.next_deadline
            assert due is not None
            action, now, seat = Timeout(), due, None
        else:
            action, now, seat = chosen, state.now, chosen.seat
        state, events = apply(state, action, now)
        steps.append((state, events, seat))
    return steps


class Counted(SocketPeer):
    sent = 0
    sent_bytes = 0

    def send(self, text: str) -> None:
        Counted.sent += 1
        Counted.sent_bytes += len(text)
        super().send(text)


class Table:
    """One table's connections and the game it plays, step by step."""

    def __init__(self, steps: list[tuple[State, list[Event], int | None]], peers: list[Counted]):
        self.steps = steps
        self.peers = {peer.seat: peer for peer in peers}
        self.start()

    def start(self) -> None:
        first = self.steps[0][0]
        clock = GameClock.starting(asyncio.get_running_loop(), 1.0, at=first.now)
        self.fanout = Fanout(1, Streams(first.seats), clock)
        self.at = 1
        for peer in self.peers.values():
            self.fanout.join(peer, None, True, first)

    def step(self) -> None:
        if self.at == len(self.steps):  # the game ended: it starts again
            self.start()
        state, events, seat = self.steps[self.at]
        self.at += 1
        self.fanout.publish(state, events)
        if seat is not None:
            self.peers[seat].send(messages.ack(f"m{self.at}"))


async def serve(
    count: int,
) -> tuple[
    web.AppRunner, str, list[web.WebSocketResponse], list[Counted], list[asyncio.Task[None]]
]:
    sockets: list[web.WebSocketResponse] = []
    peers: list[Counted] = []
    writers: list[asyncio.Task[None]] = []
    seats = iter(range(count))

    async def connect(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=False)
        await ws.prepare(request)
        peer = Counted(ws, next(seats) % 10 + 1)
        sockets.append(ws)
        peers.append(peer)
        writers.append(asyncio.create_task(peer.write()))
        async for _ in ws:
            pass
        return ws

    app = web.Application()
    app.router.add_get("/ws", connect)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}", sockets, peers, writers


async def client(base: str, count: int) -> None:
    """Connect `count` sockets and read them until killed."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        sockets = []
        for i in range(0, count, CONNECT_AT_ONCE):
            sockets += await asyncio.gather(
                *(session.ws_connect(f"{base}/ws") for _ in range(min(CONNECT_AT_ONCE, count - i)))
            )
        print("connected", flush=True)

        async def read(ws: aiohttp.ClientWebSocketResponse) -> None:
            async for _ in ws:
                pass

        await asyncio.gather(*(read(ws) for ws in sockets))


async def settle() -> None:
    """Let the writes of a round happen (and the client read them)."""
    for _ in range(3):
        await asyncio.sleep(0)
    await asyncio.sleep(0.001)


async def ours(tables: list[Table], rounds: int) -> tuple[float, int, int]:
    sent, sent_bytes = Counted.sent, Counted.sent_bytes
    start = time.process_time()
    for _ in range(rounds):
        for table in tables:
            table.step()
        await settle()
    return time.process_time() - start, Counted.sent - sent, Counted.sent_bytes - sent_bytes


async def bare(sockets: list[web.WebSocketResponse], messages_: int, size: int) -> float:
    text = '{"type":"event","seq":0,"pad":"' + "x" * max(0, size - 32) + '"}'
    per_round = max(1, messages_ // len(sockets))
    start = time.process_time()
    sent = 0
    while sent < messages_:
        for ws in sockets:
            await ws.send_str(text)
        sent += len(sockets)
        if sent % (per_round * len(sockets)) < len(sockets):
            await settle()
    return time.process_time() - start


async def run(args: argparse.Namespace) -> None:
    games = [game(args.seed * 1_000_003 + i) for i in range(args.games)]
    count = 10 * args.tables
    runner, base, sockets, peers, writers = await serve(count)
    reader = subprocess.Popen(
        [sys.executable, __file__, "--client", base, str(count)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert reader.stdout is not None
        line = await asyncio.to_thread(reader.stdout.readline)
        assert line.strip() == "connected", line
        while len(peers) < count:
            await asyncio.sleep(0.05)
        by_table = [peers[i * 10 : i * 10 + 10] for i in range(args.tables)]  # seats 1-10
        tables = [Table(games[i % len(games)], by_table[i]) for i in range(args.tables)]
        await ours(tables, 5)  # warm-up
        ratios, rates, bare_rates, sizes = [], [], [], []
        for rep in range(args.reps):
            cpu, sent, sent_bytes = await ours(tables, args.rounds)
            size = round(sent_bytes / sent)
            bare_cpu = await bare(sockets, sent, size)
            rates.append(sent / cpu)
            bare_rates.append(sent / bare_cpu)
            ratios.append(rates[-1] / bare_rates[-1])
            sizes.append(size)
            print(
                f"rep {rep + 1}: ours {rates[-1]:,.0f} messages per CPU second,"
                f" bare {bare_rates[-1]:,.0f} ({size}-byte messages): {ratios[-1]:.0%}",
                flush=True,
            )
        print(
            f"fan-out per core: ours {statistics.median(rates):,.0f}, bare"
            f" {statistics.median(bare_rates):,.0f} messages/s;"
            f" ratio {statistics.median(ratios):.0%} ({min(ratios):.0%}-{max(ratios):.0%});"
            f" {args.tables} tables x 10 sockets, mean message {statistics.median(sizes)} bytes"
        )
    finally:
        reader.kill()
        reader.wait()
        for task in writers:
            task.cancel()
        await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=60, help="steps per table in a turn")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--games", type=int, default=50, help="distinct games the tables play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--client", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        asyncio.run(client(args.client[0], int(args.client[1])))
        return
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
