"""Load benchmark: N tables x 10 WebSocket bot clients against one server.

    .venv/bin/python bench/server_load.py --tables 500 --time-scale 10 --seconds 60

Prepares a fresh database (SQLite in a temporary directory, or
--database-url) with N playing tables of 10 signed-in players, starts
`omerta serve --debug-stats` on it as a subprocess (loopback only), connects
10 clients per table that play from their views, measures for --seconds
after a warm-up, stops everything and prints: tables, messages/s, p50/p99
action->event latency (send -> ack: the ack follows the step's events and
view, so it bounds the latency from above), timer lateness p99 (measured in
the server: a deadline's due wall time to the actor firing it), CPU per
table, and the fan-out rate of a bare aiohttp WebSocket broadcast to as
many connections, as the ceiling. Stops by itself."""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import aiohttp
from aiohttp import web

from omerta.store import Database, tables, upgrade, users

ROOT = Path(__file__).resolve().parents[1]
CONNECT_AT_ONCE = 20
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


# --- set-up ---------------------------------------------------------------------

async def prepare(url: str, count: int) -> list[tuple[int, list[str]]]:
    """`count` playing tables of 10 people each; (table id, session tokens)."""
    await upgrade(url)
    db = Database.connect(url)
    prefix = f"b{secrets.token_hex(3)}_"
    out = []
    try:
        for n in range(count):
            async with db.begin() as s:
                people = [await users.add_user(s, f"{prefix}{n * 10 + i}", "!") for i in range(10)]
                tokens = [await users.open_session(s, p.id, timedelta(hours=2)) for p in people]
                table_id = await tables.create_table(s, people[0].id, "classic", {},
                                                     secrets.randbelow(2 ** 53))
                await tables.add_seats(s, await tables.get_table(s, table_id, lock=True),
                                       [p.id for p in people])
                table = await tables.get_table(s, table_id)
                await tables.start_table(s, table, table.seats)
            out.append((table_id, tokens))
    finally:
        await db.close()
    return out


def start(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    found = re.search(r"(http://\S+?)/?(\s|$)", line)
    if not found:
        process.kill()
        sys.exit(f"the server did not start: {line!r}")
    return process, found.group(1)


# --- the bot clients --------------------------------------------------------------

def choose(view: dict, rng: random.Random) -> dict | None:
    """A player's move from its view. Speeches mostly run their full length
    (as people speak), so a table keeps a natural pace."""
    acts = set(view["actions"])
    living = [s["seat"] for s in view["seats"] if s["alive"]]
    if "pick" in acts:
        return {"do": "pick", "card": rng.randrange(10)}
    if "tech_vote" in acts:
        return {"do": "tech_vote", "yes": False}
    if "nominate" in acts and rng.random() < 0.5:
        free = [s for s in living if s not in view["nominees"]]
        return {"do": "nominate", "target": rng.choice(free)} if free else None
    if "end_speech" in acts and rng.random() < 0.2:
        return {"do": "end_speech"}
    if "interject" in acts and rng.random() < 0.02:
        return {"do": "interject"}
    if "vote" in acts:
        vote = view["vote"]
        return {"do": "vote", "target": vote["calling"] or rng.choice(vote["candidates"])}
    if "lift" in acts:
        return {"do": "lift", "yes": rng.random() < 0.5}
    if "shoot" in acts:
        known = {s["seat"]: s["role"] for s in view["seats"]}
        red = [s for s in living if known[s] not in ("don", "mafia")]
        return {"do": "shoot", "target": min(red) if red else rng.choice(living)}
    if "check" in acts:
        done = {int(t) for t in view["checks"]}
        options = [s for s in living if s != view["seat"] and s not in done]
        return {"do": "check", "target": rng.choice(options)} if options else None
    return None


@dataclass
class Counters:
    messages: int = 0
    bytes: int = 0
    latencies: list[float] = field(default_factory=list)
    refused: int = 0
    measuring: bool = False


async def player(session: aiohttp.ClientSession, base: str, table_id: int, token: str,
                 counters: Counters, connected: asyncio.Semaphore, ready: list[int]) -> None:
    rng = random.Random(token)
    async with connected:
        ws = await session.ws_connect(f"{base}/api/tables/{table_id}/ws",
                                      headers={"Cookie": f"omerta_session={token}"})
    ready.append(1)
    sent: dict[str, float] = {}
    pending: str | None = None
    view: dict | None = None
    ids = 0

    async def act() -> None:
        nonlocal pending, ids
        if pending is not None or view is None:
            return
        action = choose(view, rng)
        if action is None:
            return
        ids += 1
        pending = f"m{ids}"
        sent[pending] = time.perf_counter()
        await ws.send_str(json.dumps({"id": pending, **action}))

    async for message in ws:
        if message.type != aiohttp.WSMsgType.TEXT:
            break
        counters.messages += counters.measuring
        counters.bytes += len(message.data) * counters.measuring
        if message.data.startswith('{"type":"event"'):
            continue                      # only counted: a bot decides from its view
        m = json.loads(message.data)
        if m["type"] == "view":
            view = m["view"]
            await act()
        elif m["type"] in ("ack", "error") and m.get("id") == pending:
            if counters.measuring:
                counters.latencies.append(time.perf_counter() - sent.pop(pending))
                counters.refused += m["type"] == "error"
            pending = None
            await act()
    await ws.close()


async def load(base: str, seated: list[tuple[int, list[str]]], warmup: float,
               seconds: float) -> dict:
    counters = Counters()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        gate, ready = asyncio.Semaphore(CONNECT_AT_ONCE), []
        tasks = [asyncio.create_task(player(session, base, table_id, token, counters, gate, ready))
                 for table_id, tokens in seated for token in tokens]
        started = time.perf_counter()
        while len(ready) < len(tasks) and time.perf_counter() - started < 120:
            await asyncio.sleep(0.2)
        await asyncio.sleep(warmup)
        async with session.get(f"{base}/api/debug/stats?reset=1") as r:
            before = await r.json()
        counters.measuring = True
        t0, cpu0 = time.perf_counter(), time.process_time()
        await asyncio.sleep(seconds)
        counters.measuring = False
        elapsed = time.perf_counter() - t0
        client_cpu = (time.process_time() - cpu0) / elapsed
        async with session.get(f"{base}/api/debug/stats") as r:
            after = await r.json()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"connections": len(ready), "elapsed": elapsed, "counters": counters,
            "before": before, "after": after, "client_cpu": client_cpu}


# --- the bare broadcast ceiling ---------------------------------------------------

def bare_server(port: int) -> None:
    """A WebSocket server that only broadcasts: GET /go?messages=M&size=S
    sends M messages of S bytes to every connection, one message to all
    connections after another, as fast as aiohttp can."""
    sockets: list[web.WebSocketResponse] = []

    async def connect(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=False)
        await ws.prepare(request)
        sockets.append(ws)
        async for _ in ws:
            pass
        return ws

    async def go(request: web.Request) -> web.Response:
        count, size = int(request.query["messages"]), int(request.query["size"])
        text = json.dumps({"type": "event", "seq": 0, "pad": "x" * max(0, size - 30)})
        for _ in range(count):
            for ws in sockets:
                await ws.send_str(text)
        return web.json_response({"sent": count * len(sockets)})

    app = web.Application()
    app.router.add_get("/ws", connect)
    app.router.add_get("/go", go)
    runner = web.AppRunner(app)

    async def run() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", port)
        await site.start()
        print(f"bare broadcast on http://127.0.0.1:{runner.addresses[0][1]}", flush=True)
        await asyncio.Event().wait()
    asyncio.run(run())


async def ceiling(base: str, connections: int, size: int, seconds: float) -> float:
    """Messages per second the bare server fans out to `connections`."""
    counts = [0] * connections
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        sockets = []
        for i in range(0, connections, CONNECT_AT_ONCE):
            sockets += await asyncio.gather(*(session.ws_connect(f"{base}/ws")
                                              for _ in range(min(CONNECT_AT_ONCE, connections - i))))

        async def read(i: int, ws: aiohttp.ClientWebSocketResponse) -> None:
            async for _ in ws:
                counts[i] += 1
        readers = [asyncio.create_task(read(i, ws)) for i, ws in enumerate(sockets)]
        messages = 1
        while True:       # grow the burst until it lasts long enough to time
            t0 = time.perf_counter()
            async with session.get(f"{base}/go?messages={messages}&size={size}") as r:
                await r.json()
            while sum(counts) < messages * connections:
                await asyncio.sleep(0.005)
            elapsed = time.perf_counter() - t0
            if elapsed > seconds:
                break
            counts[:] = [0] * connections
            messages *= 2
        for task in readers:
            task.cancel()
        for ws in sockets:
            await ws.close()
    return messages * connections / elapsed


# --- the run ----------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--time-scale", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0, help="measurement window")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--database-url", help="default: SQLite in a temporary directory")
    parser.add_argument("--bare-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server is not None:
        bare_server(args.bare_server)
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite+aiosqlite:///{tmp}/bench.db"
        t0 = time.perf_counter()
        seated = asyncio.run(prepare(url, args.tables))
        print(f"prepared {args.tables} tables in {time.perf_counter() - t0:.0f} s", flush=True)
        env = {**os.environ, "DATABASE_URL": url}
        server, base = start([sys.executable, "-m", "omerta.cli", "serve", "--port", "0",
                              "--time-scale", str(args.time_scale), "--debug-stats"], env)
        try:
            cpu0 = cpu_seconds(server.pid)
            result = asyncio.run(load(base, seated, args.warmup, args.seconds))
            cpu = cpu_seconds(server.pid) - cpu0
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    report(args, result, cpu)


def report(args: argparse.Namespace, result: dict, cpu_total: float) -> None:
    c: Counters = result["counters"]
    elapsed = result["elapsed"]
    after = result["after"]
    cpu_window = after["cpu_seconds"] - result["before"]["cpu_seconds"]
    rate = c.messages / elapsed
    # The ceiling broadcasts messages of our mean size: a larger message
    # costs more to send, in Python and in the kernel.
    size = max(64, round(c.bytes / max(1, c.messages)))
    bare, bare_base = start([sys.executable, __file__, "--bare-server", "0"], dict(os.environ))
    try:
        bare_cpu0 = cpu_seconds(bare.pid)
        t0 = time.perf_counter()
        top = asyncio.run(ceiling(bare_base, result["connections"], size, 3.0))
        bare_share = (cpu_seconds(bare.pid) - bare_cpu0) / (time.perf_counter() - t0)
    finally:
        bare.kill()
        bare.wait()
    busy = cpu_window / elapsed
    lat = [x * 1000 for x in c.latencies]
    print(f"tables                     {after['tables']} live at the end of {args.tables}"
          f" ({result['connections']} sockets), time scale {args.time_scale:g}")
    print(f"messages/s (to clients)    {rate:,.0f}")
    print(f"actions                    {len(lat):,} ({c.refused} refused),"
          f" {len(lat) / elapsed:,.0f}/s")
    print(f"action->event p50 / p99    {pct(lat, 50):.1f} / {pct(lat, 99):.1f} ms")
    tl = after["timer_lateness"]
    print(f"timer lateness p50 / p99   {tl['p50_ms']} / {tl['p99_ms']} ms"
          f" (max {tl['max_ms']}, {tl['count']:,} deadlines)")
    st = after["steps"]
    print(f"actor step p50 / p99       {st['p50_ms']} / {st['p99_ms']} ms (record write included)")
    lag = after["loop_lag"]
    gc = after["full_gc"]
    print(f"server loop lag p50 / p99  {lag['p50_ms']} / {lag['p99_ms']} ms;"
          f" {gc['count']} full garbage collections (max {gc['max_ms']} ms)")
    cm = after["commits"]
    print(f"group commit p50 / p99     {cm['p50_ms']} / {cm['p99_ms']} ms,"
          f" {after['steps_per_commit']} steps per commit")
    print(f"server CPU                 {busy:.0%} of a core;"
          f" {busy / max(1, after['tables']) * 100:.3f}% of a core per table")
    print(f"bench clients' CPU         {result['client_cpu']:.0%} of a core (one process)")
    print(f"bare broadcast ceiling     {top:,.0f} messages/s at {bare_share:.0%} of a core"
          f" ({result['connections']} sockets, {size}-byte messages: our mean)")
    per_core, bare_per_core = rate / max(busy, 1e-9), top / max(bare_share, 1e-9)
    print(f"fan-out per core           {per_core:,.0f} vs bare {bare_per_core:,.0f} messages/s:"
          f" {per_core / bare_per_core:.0%} of the ceiling")
    print(f"(server CPU over the whole run {cpu_total:.1f} s; median message"
          f" {statistics.median(lat) if lat else 0:.1f} ms)")


if __name__ == "__main__":
    main()
