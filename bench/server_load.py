"""Load benchmark: N tables x 10 WebSocket bot clients against one server.

    .venv/bin/python bench/server_load.py --tables 500 --time-scale 10 --seconds 60

With --nodes K (Postgres only) it starts K nodes of a cluster instead
(docs/deploy.md, "Several nodes"); the tables are made once every node is
up, each node adopts its share, and each client process connects to the
node that runs its tables, as the proxy of docs/deploy.md sends a player
(a socket to another node would be forwarded, costing a descriptor on both):
it prints each node's tables, CPU and step and timer p99. A node then needs
descriptors for its own tables' sockets only, so K nodes fit K times the
tables of one process under the same descriptor limit.

With --ramp S each table starts when its tenth player sits down (the
lobby's route), at a random moment of the first S seconds, so the tables'
clocks are not all in step as they are when every table starts with the
server.

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
import contextlib
import gc
import json
import multiprocessing
import os
import random
import re
import resource
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
from aiohttp import web
from sqlalchemy import select
from sqlalchemy.engine import make_url

from omerta.store import Database, tables, upgrade, users
from omerta.store.leases import TableLease

ROOT = Path(__file__).resolve().parents[1]
CONNECT_AT_ONCE = 20
#: The web client's keep-alive and the server's answer (docs/api.md).
PING, PONG = '{"type":"ping"}', '{"type":"pong"}'
#: Tables made at once before the run.
PREPARE_AT_ONCE = 8
#: Seconds a client process has to open its sockets.
CONNECT_SECONDS = 600
#: Sockets one client process opens at most (its descriptors and its core).
SOCKETS_PER_CLIENT = 5000
#: Files a server process keeps open beside its sockets (listener, database, epoll).
FILES_BESIDE_SOCKETS = 100
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


# --- set-up ---------------------------------------------------------------------


async def prepare(url: str, count: int, start: bool = True) -> list[tuple[int, list[str]]]:
    """`count` playing tables of 10 people each; (table id, session tokens).
    Unless `start`, the tenth person is not seated yet (the table is open
    until they sit down). Several tables are made at once: one at a time,
    2,000 take a quarter of an hour on a busy machine."""
    await upgrade(url)
    db = Database.connect(url)
    prefix = f"b{secrets.token_hex(3)}_"
    gate = asyncio.Semaphore(PREPARE_AT_ONCE)

    async def one(n: int) -> tuple[int, list[str]]:
        async with gate, db.begin() as s:
            people = [await users.add_user(s, f"{prefix}{n * 10 + i}", "!") for i in range(10)]
            tokens = [await users.open_session(s, p.id, timedelta(hours=2)) for p in people]
            table_id = await tables.create_table(
                s, people[0].id, "classic", {}, secrets.randbelow(2**53)
            )
            created = await tables.get_table(s, table_id, lock=True)
            assert created is not None
            await tables.add_seats(s, created, [p.id for p in people[: 10 if start else 9]])
            if start:
                table = await tables.get_table(s, table_id)
                assert table is not None
                await tables.start_table(s, table, table.seats)
        return table_id, tokens

    try:
        return await asyncio.gather(*(one(n) for n in range(count)))
    finally:
        await db.close()


def prepared(url: str, count: int, start: bool = True) -> list[tuple[int, list[str]]]:
    """`prepare`, timed and told."""
    t0 = time.perf_counter()
    seated = asyncio.run(prepare(url, count, start))
    print(f"prepared {count} tables in {time.perf_counter() - t0:.0f} s", flush=True)
    return seated


def start(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
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


async def player(
    session: aiohttp.ClientSession,
    base: str,
    table_id: int,
    token: str,
    counters: Counters,
    connected: asyncio.Semaphore,
    ready: list[int],
    pings: float,
    opened: asyncio.Event | None,
) -> None:
    rng = random.Random(token)
    if opened is not None:
        await opened.wait()
    async with connected:
        ws = await session.ws_connect(
            f"{base}/api/tables/{table_id}/ws", headers={"Cookie": f"omerta_session={token}"}
        )
    ready.append(1)
    if pings:  # as the web client does (omerta/web/js/table/socket.js), every `pings` s
        pinger = asyncio.create_task(ping(ws, rng, pings))
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
        if message.data == PONG:
            continue  # not the game's fan-out (the server's CPU for it is counted)
        counters.messages += counters.measuring
        counters.bytes += len(message.data) * counters.measuring
        if message.data.startswith('{"type":"event"'):
            continue  # only counted: a bot decides from its view
        m = json.loads(message.data)
        if m["type"] == "view":
            view = m["view"]
            await act()
        elif m["type"] in ("ack", "error") and pending is not None and m.get("id") == pending:
            if counters.measuring:
                counters.latencies.append(time.perf_counter() - sent.pop(pending))
                counters.refused += m["type"] == "error"
            pending = None
            await act()
    if pings:
        pinger.cancel()
    await ws.close()


async def ping(ws: aiohttp.ClientWebSocketResponse, rng: random.Random, every: float) -> None:
    await asyncio.sleep(rng.random() * every)
    with contextlib.suppress(aiohttp.ClientConnectionResetError):  # closed meanwhile
        while not ws.closed:
            await ws.send_str(PING)
            await asyncio.sleep(every)


async def sit_last(
    session: aiohttp.ClientSession,
    base: str,
    table_id: int,
    token: str,
    delay: float,
    opened: asyncio.Event,
) -> None:
    """After `delay` seconds the table's tenth player sits down, as in the
    lobby: the table starts (its clocks with it), its players connect."""
    await asyncio.sleep(delay)
    csrf = secrets.token_hex(8)
    async with session.post(
        f"{base}/api/tables/{table_id}/sit",
        headers={"Cookie": f"omerta_session={token}; omerta_csrf={csrf}", "X-CSRF-Token": csrf},
    ) as r:
        if r.status != 200:
            print(f"table {table_id}: sit refused: {r.status} {await r.text()}", file=sys.stderr)
            return
    opened.set()


@dataclass(frozen=True)
class Plan:
    """What one client process plays: its node, its tables (id, tokens),
    the seconds between its pings (0: none) and the start ramp (0: none)."""

    base: str
    seated: list[tuple[int, list[str]]]
    pings: float
    ramp: float


async def play(plan: Plan, control: Any, results: Any) -> None:
    """One client process: connect a socket per token, play, and count the
    messages and latencies while the parent says the window is open. With
    a `ramp`, each table starts at a random moment of the first `ramp`
    seconds (else all were started before the server)."""
    base, seated, pings, ramp = plan.base, plan.seated, plan.pings, plan.ramp
    counters = Counters()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        gate = asyncio.Semaphore(CONNECT_AT_ONCE)
        ready: list[int] = []
        opened = {table_id: asyncio.Event() for table_id, _ in seated} if ramp else {}
        tasks = [
            asyncio.create_task(
                player(
                    session,
                    base,
                    table_id,
                    token,
                    counters,
                    gate,
                    ready,
                    pings,
                    opened.get(table_id),
                )
            )
            for table_id, tokens in seated
            for token in tokens
        ]
        tasks += [
            asyncio.create_task(
                sit_last(
                    session,
                    base,
                    table_id,
                    tokens[-1],
                    random.Random(table_id).uniform(0, ramp),
                    opened[table_id],
                )
            )
            for table_id, tokens in seated
            if ramp
        ]
        players = 10 * len(seated)
        started = time.perf_counter()
        while len(ready) < players and time.perf_counter() - started < CONNECT_SECONDS + ramp:
            await asyncio.sleep(0.2)
        results.put(("ready", len(ready)))
        await asyncio.to_thread(control["start"].wait)
        counters.measuring = True
        cpu0 = time.process_time()
        await asyncio.to_thread(control["stop"].wait)
        counters.measuring = False
        results.put(
            (
                "done",
                {
                    "cpu": time.process_time() - cpu0,
                    "messages": counters.messages,
                    "bytes": counters.bytes,
                    "latencies": counters.latencies,
                    "refused": counters.refused,
                },
            )
        )
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def client_process(plan: Plan, control: Any, results: Any) -> None:
    # As the server does (omerta/server/commands.py): a process holding
    # thousands of sockets otherwise stalls for a second or two in full
    # collections, and a stalled client misses the server's pings and is
    # cut, and adds its stall to the latencies it measures.
    gc.freeze()
    gc.set_threshold(10_000, 10, 1000)
    asyncio.run(play(plan, control, results))


def clients(
    by_node: dict[str, list[tuple[int, list[str]]]],
) -> list[tuple[str, list[tuple[int, list[str]]]]]:
    """Each client process's node and tables: a node's tables split among
    as many processes as SOCKETS_PER_CLIENT asks for."""
    out = []
    for base, seated in by_node.items():
        processes = max(1, -(-10 * len(seated) // SOCKETS_PER_CLIENT))
        out += [(base, seated[i::processes]) for i in range(processes)]
    return out


async def owners(url: str) -> dict[int, str]:
    """Which node holds each table's lease."""
    db = Database.connect(url)
    try:
        async with db.begin() as s:
            rows = await s.execute(select(TableLease.table_id, TableLease.node))
            return {table_id: node for table_id, node in rows.all()}
    finally:
        await db.close()


def load(
    bases: list[str],
    groups: list[tuple[str, list[tuple[int, list[str]]]]],
    warmup: float,
    seconds: float,
    pings: float = 0.0,
    ramp: float = 0.0,
) -> dict:
    """Play every table from one client process per group (one process
    cannot hold 20,000 sockets, nor read them on one core); measure one
    window, the same in all of them. The processes fork before any event
    loop runs here."""
    context = multiprocessing.get_context("fork")
    control = {"start": context.Event(), "stop": context.Event()}
    results = context.Queue()
    workers = [
        context.Process(
            target=client_process,
            args=(Plan(base, seated, pings, ramp), control, results),
            daemon=True,
        )
        for base, seated in groups
    ]
    for worker in workers:
        worker.start()
    try:
        return asyncio.run(measure(bases, warmup, seconds, len(workers), control, results, ramp))
    finally:
        control["stop"].set()
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.kill()


async def measure(
    bases: list[str],
    warmup: float,
    seconds: float,
    processes: int,
    control: Any,
    results: Any,
    ramp: float,
) -> dict:
    connections = 0
    for _ in range(processes):
        kind, count = await asyncio.to_thread(results.get, True, CONNECT_SECONDS + ramp + 60)
        assert kind == "ready"
        connections += count
    await asyncio.sleep(warmup)
    async with aiohttp.ClientSession() as session:
        before = [await stats(session, base, reset=True) for base in bases]
        control["start"].set()
        t0 = time.perf_counter()
        await asyncio.sleep(seconds)
        control["stop"].set()
        elapsed = time.perf_counter() - t0
        nodes = [await stats(session, base) for base in bases]
    counters, client_cpu = Counters(), []
    for _ in range(processes):
        kind, done = await asyncio.to_thread(results.get, True, 60)
        assert kind == "done"
        counters.messages += done["messages"]
        counters.bytes += done["bytes"]
        counters.latencies += done["latencies"]
        counters.refused += done["refused"]
        client_cpu.append(done["cpu"] / elapsed)
    return {
        "connections": connections,
        "elapsed": elapsed,
        "counters": counters,
        "before": before[0],
        "after": nodes[0],
        "nodes": list(zip(before, nodes)),
        "client_cpu": client_cpu,
    }


async def stats(session: aiohttp.ClientSession, base: str, reset: bool = False) -> dict:
    async with session.get(f"{base}/api/debug/stats{'?reset=1' if reset else ''}") as r:
        return await r.json()


async def live_tables(bases: list[str], count: int, timeout: float = 300) -> list[int]:
    """Wait until the nodes run `count` tables between them; each one's count."""
    started = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        while True:
            counts = [(await stats(session, base))["tables"] for base in bases]
            if sum(counts) >= count or time.perf_counter() - started > timeout:
                return counts
            await asyncio.sleep(1)


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
            sockets += await asyncio.gather(
                *(
                    session.ws_connect(f"{base}/ws")
                    for _ in range(min(CONNECT_AT_ONCE, connections - i))
                )
            )

        async def read(i: int, ws: aiohttp.ClientWebSocketResponse) -> None:
            async for _ in ws:
                counts[i] += 1

        readers = [asyncio.create_task(read(i, ws)) for i, ws in enumerate(sockets)]
        messages = 1
        while True:  # grow the burst until it lasts long enough to time
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
    parser.add_argument(
        "--database-url",
        help="default: SQLite in a temporary directory; Postgres: the run gets a"
        " fresh schema of its own, dropped at the end",
    )
    parser.add_argument(
        "--noise",
        action="store_true",
        help="a CPU burner process pinned to the last core for the whole run",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=1,
        metavar="K",
        help="K server processes of one cluster (Postgres only; docs/deploy.md)",
    )
    parser.add_argument(
        "--pings",
        action="store_true",
        help="every client sends the web client's ping (the server answers each;"
        " without it the server pings sockets silent for 2.5 s itself)",
    )
    parser.add_argument(
        "--ping-every",
        type=float,
        default=2.0,
        metavar="S",
        help="seconds between a client's pings with --pings: 2 as the web client"
        " (omerta/web/js/table/socket.js), 1 as it was before 2026-12-02",
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=0.0,
        metavar="S",
        help="each table starts when its tenth player sits down, at a random moment"
        " of the first S seconds, as tables fill in a lobby (default 0: every table"
        " starts with the server, all clocks in step)",
    )
    parser.add_argument("--bare-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.nodes > 1 and not (args.database_url or "").startswith("postgresql"):
        sys.exit("--nodes needs --database-url postgresql://...: nodes share Postgres")
    if args.bare_server is not None:
        bare_server(args.bare_server)
        return
    sockets = 10 * args.tables
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    # A node's share is not exact (each adopts what it finds free): a margin.
    per_node = sockets if args.nodes == 1 else int(sockets / args.nodes * 1.1)
    if per_node > limit - FILES_BESIDE_SOCKETS:
        sys.exit(
            f"{per_node} sockets do not fit in one server process: this user may open"
            f" {limit} files (RLIMIT_NOFILE), at most"
            f" {(limit - FILES_BESIDE_SOCKETS) // 10} tables a node (try --nodes)"
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))  # inherited by the server
    with contextlib.ExitStack() as run, tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite+aiosqlite:///{tmp}/bench.db"
        if url.startswith("postgresql"):
            url = run.enter_context(fresh_schema(url))
        if args.nodes == 1:
            seated = prepared(url, args.tables, start=not args.ramp)
        else:
            asyncio.run(upgrade(url))  # the nodes check the schema
        if args.noise:
            run.enter_context(noise())
        load_before = os.getloadavg()[0]
        # every simulated player connects from this one address
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "OMERTA_LIMIT_SOCKETS_PER_ADDRESS": str(sockets + 100),
            "OMERTA_CLUSTER_SECRET": secrets.token_hex(16),
        }
        command = [sys.executable, "-m", "omerta.cli", "serve", "--port", "0"]
        command += ["--time-scale", str(args.time_scale), "--debug-stats"]
        servers: list[tuple[subprocess.Popen, str]] = []
        try:
            for n in range(args.nodes):
                node = ["--node", f"n{n + 1}"] if args.nodes > 1 else []
                servers.append(start(command + node, env))
            bases = [base for _, base in servers]
            by_node = {bases[0]: seated} if args.nodes == 1 else {}
            if args.nodes > 1 and args.ramp:  # a table runs where its last player sits
                seated = prepared(url, args.tables, start=False)
                for n, table in enumerate(seated):
                    by_node.setdefault(bases[n % args.nodes], []).append(table)
            elif args.nodes > 1:
                t0 = time.perf_counter()
                seated = asyncio.run(prepare(url, args.tables))
                counts = asyncio.run(live_tables(bases, args.tables))
                owner = asyncio.run(owners(url))
                for table in seated:
                    holder = owner.get(table[0], "n1")
                    by_node.setdefault(bases[int(holder[1:]) - 1], []).append(table)
                print(
                    f"prepared {args.tables} tables in {time.perf_counter() - t0:.0f} s;"
                    f" the nodes run {counts}",
                    flush=True,
                )
            cpu0 = [cpu_seconds(server.pid) for server, _ in servers]
            pings = args.ping_every if args.pings else 0.0
            result = load(bases, clients(by_node), args.warmup, args.seconds, pings, args.ramp)
            cpu = sum(cpu_seconds(server.pid) for server, _ in servers) - sum(cpu0)
        finally:
            for server, _ in servers:
                server.send_signal(signal.SIGTERM)
            for server, _ in servers:
                server.wait(60)
        result["load"] = (load_before, os.getloadavg()[0])
        report(args, result, cpu)


@contextlib.contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A schema of the run's own in the Postgres database at `url` (tables
    left playing by an earlier run would otherwise be resumed and played by
    the server too); dropped at the end."""
    parsed = make_url(url)
    schema = f"bench_{secrets.token_hex(4)}"

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(
            host=parsed.host,
            port=parsed.port,
            user=parsed.username,
            password=parsed.password,
            database=parsed.database,
        )
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f"CREATE SCHEMA {schema}"))
    try:
        yield parsed.update_query_dict({"search_path": schema}).render_as_string(
            hide_password=False
        )
    finally:
        asyncio.run(run(f"DROP SCHEMA {schema} CASCADE"))


@contextlib.contextmanager
def noise() -> Iterator[None]:
    """A process that keeps the last core busy (another program on the
    machine), stopped when the run ends however it ends."""
    last = max(os.sched_getaffinity(0))
    burner = subprocess.Popen(
        [sys.executable, "-c", "while True: pass"],
        preexec_fn=lambda: os.sched_setaffinity(0, {last}),
    )
    try:
        yield
    finally:
        burner.kill()
        burner.wait()


def report(args: argparse.Namespace, result: dict, cpu_total: float) -> None:
    c: Counters = result["counters"]
    elapsed = result["elapsed"]
    after = result["after"]
    # every node's CPU and tables (one node: the server's)
    cpu_window = sum(
        node["cpu_seconds"] - before["cpu_seconds"] for before, node in result["nodes"]
    )
    live = sum(node["tables"] for _, node in result["nodes"])
    rate = c.messages / elapsed
    # The ceiling broadcasts messages of our mean size: a larger message
    # costs more to send, in Python and in the kernel.
    size = max(64, round(c.bytes / max(1, c.messages)))
    bare, bare_base = start([sys.executable, __file__, "--bare-server", "0"], dict(os.environ))
    try:
        bare_cpu0 = cpu_seconds(bare.pid)
        t0 = time.perf_counter()
        # One process holds both ends' count of descriptors: at most a
        # client process's share (a per-core rate hardly depends on it).
        broadcast_to = min(result["connections"], SOCKETS_PER_CLIENT)
        top = asyncio.run(ceiling(bare_base, broadcast_to, size, 3.0))
        bare_share = (cpu_seconds(bare.pid) - bare_cpu0) / (time.perf_counter() - t0)
    finally:
        bare.kill()
        bare.wait()
    busy = cpu_window / elapsed
    lat = [x * 1000 for x in c.latencies]
    print(
        f"tables                     {live} live at the end of {args.tables}"
        f" ({result['connections']} sockets), time scale {args.time_scale:g},"
        + (f" started over {args.ramp:g} s" if args.ramp else " all started at once")
    )
    print(f"messages/s (to clients)    {rate:,.0f}")
    print(
        f"actions                    {len(lat):,} ({c.refused} refused),"
        f" {len(lat) / elapsed:,.0f}/s"
    )
    print(f"action->event p50 / p99    {pct(lat, 50):.1f} / {pct(lat, 99):.1f} ms")
    tl = after["timer_lateness"]
    print(
        f"timer lateness p50 / p99   {tl['p50_ms']} / {tl['p99_ms']} ms"
        f" (max {tl['max_ms']}, {tl['count']:,} deadlines)"
    )
    st = after["steps"]
    print(f"actor step p50 / p99       {st['p50_ms']} / {st['p99_ms']} ms (record write included)")
    lag = after["loop_lag"]
    gc = after["full_gc"]
    print(
        f"server loop lag p50 / p99  {lag['p50_ms']} / {lag['p99_ms']} ms;"
        f" {gc['count']} full garbage collections (max {gc['max_ms']} ms)"
    )
    if "keepalive" in after:  # servers older than the keep-alive sweep do not say
        kept = [
            (node["sockets"], node["keepalive"], before["keepalive"])
            for before, node in result["nodes"]
        ]
        pings = sum(k["pings"] - b["pings"] for _, k, b in kept) / elapsed
        print(
            f"sockets open at the end    {sum(n for n, _, _ in kept):,} of"
            f" {result['connections']:,}; the server pinged {pings:,.0f}/s and cut"
            f" {sum(k['cuts'] - b['cuts'] for _, k, b in kept)} silent ones in the window"
        )
    cm = after["commits"]
    print(
        f"group commit p50 / p99     {cm['p50_ms']} / {cm['p99_ms']} ms,"
        f" {after['steps_per_commit']} steps per commit"
    )
    print(
        f"server CPU                 {busy:.0%} of a core;"
        f" {busy / max(1, live) * 100:.3f}% of a core per table"
    )
    print(
        f"bench clients' CPU         {sum(result['client_cpu']):.0%} of a core"
        f" ({len(result['client_cpu'])} processes)"
    )
    print(
        f"bare broadcast ceiling     {top:,.0f} messages/s at {bare_share:.0%} of a core"
        f" ({broadcast_to} sockets, {size}-byte messages: our mean)"
    )
    per_core, bare_per_core = rate / max(busy, 1e-9), top / max(bare_share, 1e-9)
    print(
        f"fan-out per core           {per_core:,.0f} vs bare {bare_per_core:,.0f} messages/s:"
        f" {per_core / bare_per_core:.0%} of the ceiling"
    )
    print(
        f"(server CPU over the whole run {cpu_total:.1f} s; median action->event"
        f" {statistics.median(lat) if lat else 0:.1f} ms)"
    )
    if args.nodes > 1:
        for n, (before, node) in enumerate(result["nodes"], 1):
            share = (node["cpu_seconds"] - before["cpu_seconds"]) / elapsed
            print(
                f"node n{n}                    {node['tables']} tables, CPU {share:.0%} of a core;"
                f" step p99 {node['steps']['p99_ms']} ms, timer lateness p99"
                f" {node['timer_lateness']['p99_ms']} ms"
            )
    print(
        f"machine                    load average {result['load'][0]:.1f} before the server,"
        f" {result['load'][1]:.1f} after; noise {'on' if args.noise else 'off'},"
        f" client pings {f'every {args.ping_every:g} s' if args.pings else 'off'}"
    )


if __name__ == "__main__":
    main()
