"""Players over the wire: browsers (HTTP with cookies and CSRF), table
sockets that play from their own view, and the checks of what a seat may
know. Works against the in-process test server and a subprocess alike."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp.test_utils import TestServer
from yarl import URL

from omerta.runtime import RuntimeFactory
from omerta.script import Player, parse
from omerta.server import DB, TABLES, Config, create_app
from omerta.server.limits import UNLIMITED, Limits
from tests.server.conftest import FAST_HASHER

PASSWORD = "correct horse"
BLACK = ("don", "mafia")
Policy = Callable[[dict[str, Any], random.Random], "dict[str, Any] | None"]


class Browser:
    """One signed-in person: their own cookie jar, CSRF header like a page."""

    def __init__(self, base: URL):
        self.base = base
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.username = ""

    def _csrf(self) -> str | None:
        found = self.session.cookie_jar.filter_cookies(self.base).get("omerta_csrf")
        return found.value if found else None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {}
        if method != "GET":
            if self._csrf() is None:
                await self.request("GET", "/api/csrf")
            headers["X-CSRF-Token"] = self._csrf() or ""
        async with self.session.request(
            method, self.base.join(URL(path)), json=body, headers=headers
        ) as response:
            return response.status, await response.json()

    async def register(self, username: str) -> None:
        status, body = await self.request(
            "POST", "/api/register", {"username": username, "password": PASSWORD}
        )
        assert status == 201, body
        self.username = username

    async def socket(
        self, table_id: int, last: int | None = None, **kwargs: Any
    ) -> aiohttp.ClientWebSocketResponse:
        url = self.base.join(URL(f"/api/tables/{table_id}/ws"))
        if last is not None:
            url = url.with_query(last=last)
        return await self.session.ws_connect(url, **kwargs)

    async def close(self) -> None:
        await self.session.close()


async def register(people: list[Browser], prefix: str = "player") -> None:
    await asyncio.gather(*(b.register(f"{prefix}{i}") for i, b in enumerate(people)))


async def seat_table(
    people: list[Browser], settings: dict | None = None, bots: bool = False
) -> tuple[int, dict[str, int]]:
    """The first person creates a table; everyone sits (and bots fill the
    rest, if asked). Returns the table id and username -> seat."""
    status, body = await people[0].request("POST", "/api/tables", {"settings": settings or {}})
    assert status == 201, body
    table_id = body["table"]["id"]
    for person in people:
        status, body = await person.request("POST", f"/api/tables/{table_id}/sit")
        assert status == 200, body
    if bots:
        status, body = await people[0].request("POST", f"/api/tables/{table_id}/bots")
        assert status == 200, body
    assert body["table"]["status"] == "playing"
    return table_id, {s["user"]: s["seat"] for s in body["table"]["seats"] if s["user"]}


@dataclass
class Live:
    """The in-process server with real table actors."""

    server: TestServer
    people: list[Browser] = field(default_factory=list)

    @property
    def base(self) -> URL:
        return self.server.make_url("/")

    @property
    def runtime(self):
        return self.server.app[TABLES]

    @property
    def db(self):
        return self.server.app[DB]

    async def browsers(self, count: int, prefix: str = "player") -> list[Browser]:
        made = [Browser(self.base) for _ in range(count)]
        self.people += made
        await register(made, prefix)
        return made

    async def close(self) -> None:
        for person in self.people:
            await person.close()


@contextlib.asynccontextmanager
async def live_server(
    database_url: str, runtime: RuntimeFactory, time_scale: float, limits: Limits = UNLIMITED
) -> AsyncIterator[Live]:
    """The whole app on a test server, with real table actors, and fast
    password hashing; closed (browsers first) when the block ends."""
    config = Config(
        database_url=database_url,
        runtime=runtime,
        time_scale=time_scale,
        password_hasher=FAST_HASHER,
        limits=limits,
    )
    server = TestServer(create_app(config))
    await server.start_server()
    live = Live(server)
    try:
        yield live
    finally:
        await live.close()
        await server.close()


# --- what a player does, from its own view ------------------------------------


def _living(view: dict) -> list[int]:
    return [s["seat"] for s in view["seats"] if s["alive"]]


def _red_target(view: dict) -> int:
    """The lowest living seat the player does not know to be black: black
    players agree on it without talking."""
    known = {s["seat"]: s["role"] for s in view["seats"]}
    return min(s for s in _living(view) if known[s] not in BLACK)


def random_play(view: dict, rng: random.Random) -> dict | None:
    acts, me = set(view["actions"]), view["seat"]
    living = _living(view)
    if "pick" in acts:
        return {"do": "pick", "card": rng.randrange(len(view["seats"]))}
    if "tech_vote" in acts:
        return {"do": "tech_vote", "yes": rng.random() < 0.5}
    if "nominate" in acts and rng.random() < 0.5:
        return {
            "do": "nominate",
            "target": rng.choice([s for s in living if s not in view["nominees"]]),
        }
    if "end_speech" in acts:
        return {"do": "end_speech"}
    if "interject" in acts and rng.random() < 0.05:
        return {"do": "interject"}
    if "vote" in acts:
        vote = view["vote"]
        return {"do": "vote", "target": vote["calling"] or rng.choice(vote["candidates"])}
    if "lift" in acts:
        return {"do": "lift", "yes": rng.random() < 0.5}
    if "shoot" in acts:
        return {
            "do": "shoot",
            "target": _red_target(view) if rng.random() < 0.8 else rng.choice(living),
        }
    if "check" in acts:
        done = {int(t) for t in view["checks"]}
        return {
            "do": "check",
            "target": rng.choice([s for s in living if s != me and s not in done]),
        }
    return None


def steady_play(view: dict, rng: random.Random) -> dict | None:
    """No randomness and nothing a role changes in public: one nomination a
    day, everyone votes for it, the black team agrees on its shot."""
    acts, me = set(view["actions"]), view["seat"]
    living = _living(view)
    if "nominate" in acts and not view["nominees"]:
        return {"do": "nominate", "target": min(s for s in living if s != me)}
    if "end_speech" in acts:
        return {"do": "end_speech"}
    if "vote" in acts:
        return {"do": "vote", "target": view["vote"]["candidates"][0]}
    if "lift" in acts:
        return {"do": "lift", "yes": False}
    if "shoot" in acts:
        return {"do": "shoot", "target": _red_target(view)}
    if "check" in acts:
        done = {int(t) for t in view["checks"]}
        return {"do": "check", "target": min(s for s in living if s != me and s not in done)}
    return None


class SeatClient:
    """A table socket that keeps every message and plays from its view:
    one action at a time, a fresh id each, a new try after a refusal."""

    RETRIES = 3

    def __init__(
        self,
        person: Browser,
        table_id: int,
        policy: Policy | None = random_play,
        seed: int = 0,
        heard: Callable[[dict], None] | None = None,
    ):
        self.person = person
        #: told of every game event the moment it is read (a test's trigger)
        self.heard = heard
        self.table_id = table_id
        self.policy = policy
        self.rng = random.Random(f"{seed}/{person.username}")
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.messages: list[dict] = []
        self.events: dict[int, dict] = {}
        self.seat: int | None = None
        self.view: dict | None = None
        self.acked: dict[str, dict] = {}
        self.refused: list[dict] = []
        self.close_code: int | None = None
        self.presence: list[int] = []
        self._ids = itertools.count(1)
        self._pending: str | None = None
        self._tries = 0
        self._synced = 0

    @property
    def last(self) -> int:
        """The newest event number this client knows of (a resync view
        moves it on without the events in between)."""
        return max(max(self.events, default=0), self._synced)

    async def connect(self, base: URL | None = None, resume: bool = False) -> None:
        if base is not None:
            self.person.base = base
        self.ws = await self.person.socket(self.table_id, self.last if resume else None)
        self._pending = None

    async def run(self) -> None:
        """Read and play until the server closes the socket (or it breaks)."""
        assert self.ws is not None
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            await self._take(json.loads(message.data))
        self.close_code = self.ws.close_code

    async def _take(self, m: dict) -> None:
        kind = m["type"]
        if kind == "presence":  # who is connected: not the game's, kept apart
            self.presence = m["connected"]
            return
        self.messages.append(m)
        if kind == "hello":
            self.seat = m["seat"]
        elif kind == "event":
            assert m["seq"] == self.last + 1, f"seat {self.seat}: seq {m['seq']} after {self.last}"
            self.events[m["seq"]] = m["event"]
            if self.heard is not None:
                self.heard(m["event"])
        elif kind == "view":
            assert m["seq"] >= self.last, f"a view at seq {m['seq']}, events up to {self.last}"
            self._synced = m["seq"]
            self.view = m["view"]
            self._tries = 0
            await self.nudge()
        elif m.get("id") is not None and m["id"] == self._pending:
            self._pending = None
            if kind == "ack":
                self.acked[m["id"]] = self._sent
                await self.nudge()  # the view may have come before the ack
            else:
                self.refused.append(m)
                self._tries += 1
                if self._tries < self.RETRIES:
                    await self.nudge()

    async def nudge(self) -> None:
        """Play from the current view, unless an action is on its way."""
        if self.policy is None or self._pending is not None or self.view is None:
            return
        action = self.policy(self.view, self.rng)
        if action is None:
            return
        self._pending = f"{self.person.username}-{next(self._ids)}"
        self._sent = action
        assert self.ws is not None
        # The server may have gone away: run() ends and the test reconnects.
        with contextlib.suppress(ConnectionError):
            await self.ws.send_json({"id": self._pending, **action})


async def play(clients: list[SeatClient], timeout: float = 60) -> None:
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), timeout)


# --- what a seat may know -------------------------------------------------------


def played(record: list[str]) -> Player:
    """The record's lines played, as a restarted server plays them (no
    running on past the last line, unlike `omerta replay`)."""
    script = parse("\n".join(record))
    player = Player(script.header)
    for line in script.lines:
        player.play(line)
    return player


def seat_events(record: list[str], seat: int | None) -> list[dict]:
    """Every event in `record` that `seat` may see, in order."""
    return [e.to_dict() for e in played(record).events if e.audience.includes(seat)]


def check_no_leak(client: SeatClient, roles: dict[int, str], voting: str = "closed") -> None:
    """Every message `client` got tells it only what its seat may know:
    its own role (and its team's, if black), its own checks and ballots,
    everything else only once the game is over."""
    me = client.seat
    assert me is not None, "the client has joined its table"
    black = {s for s, r in roles.items() if r in BLACK}
    mine = black if me in black else {me}
    over = False
    for m in client.messages:
        if m["type"] == "event":
            e = m["event"]
            name = e["event"]
            assert name not in ("seated", "tech_record"), e
            if name == "game_over":
                over = True
            elif name == "role":
                assert e["seat"] == me, e
            elif name == "team":
                assert me in black and set(map(int, e["roles"])) == black, e
            elif name == "check":
                assert e["by"] == me, e
            elif name == "night_action":
                assert me in black, e
            elif name in ("ballot", "tech_ballot") and (
                voting == "closed" or name == "tech_ballot"
            ):
                assert e["voter"] == me, e
        elif m["type"] == "view" and not over:
            v = m["view"]
            known = {s["seat"] for s in v["seats"] if s["role"] is not None}
            assert known <= mine, (me, v["seats"])
            assert not v["checks"] or roles[me] in ("don", "sheriff"), v["checks"]
            if v["vote"] and voting == "closed":
                assert set(v["vote"]["ballots"]) <= {str(me)}, v["vote"]
