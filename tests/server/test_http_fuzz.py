"""Generated HTTP input against a live server, on SQLite and Postgres
(issue 12, finding 12): every route with wrong types, huge numbers, bad
JSON, bad UTF-8, missing fields, odd content types, hostile path and query
parameters, signed in or not. Every answer is below 500, every refusal a
JSON {"error": ...} with a message, and the server logs no traceback.

The server runs in a thread of its own (a real socket, as a client sees
it); hypothesis drives a plain blocking client. Two hundred inputs run
with the suite, 10,000 per database with `pytest -m slow`."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_from_bytes

import pytest
from aiohttp import web
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omerta.moderation.admin import grant_moderator
from omerta.server import CONFIG, DB, create_app
from omerta.server.app import server_options
from omerta.server.limits import UNLIMITED
from omerta.store import tables, users

from .conftest import PASSWORD, FakeRuntime, make_config

DEFAULT_EXAMPLES = 100  # per database, with the suite
SLOW_EXAMPLES = 10_000  # per database, `pytest -m slow`


@dataclass
class LiveServer:
    port: int
    #: cookie headers of a signed-in player and a moderator, with their CSRF
    player: str
    moderator: str
    table: int
    problems: list[logging.LogRecord] = field(default_factory=list)


class Problems(logging.Handler):
    """Every error or traceback the server logs."""

    def __init__(self, into: list[logging.LogRecord]):
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.into.append(record)


async def _prepare(app: web.Application) -> tuple[int, str, str]:
    """A player with an open table, and a moderator; their cookies."""
    db = app[DB]
    async with db.begin() as s:
        player = await users.add_user(s, "fuzzplayer", "!")
        await users.add_user(s, "fuzzmod", "!")
        table = await tables.create_table(s, player.id, "classic", {}, 1)
        lifetime = app[CONFIG].session_lifetime
        tokens = [await users.open_session(s, player.id, lifetime)]
        moderator = await users.user_by_name(s, "fuzzmod")
        assert moderator is not None
        tokens.append(await users.open_session(s, moderator.id, lifetime))
    await grant_moderator(db, "fuzzmod")
    cookies = [f"omerta_session={token}; omerta_csrf=fuzz" for token in tokens]
    return table, cookies[0], cookies[1]


@pytest.fixture
def live_server(database_url: str) -> Iterator[LiveServer]:
    config = make_config(database_url, FakeRuntime(), limits=UNLIMITED)
    app = create_app(config)
    started = threading.Event()
    stop: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
    found: list[LiveServer] = []
    failure: list[BaseException] = []

    async def run() -> None:
        runner = web.AppRunner(app, **server_options(config))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        try:
            table, player, moderator = await _prepare(app)
            found.append(LiveServer(runner.addresses[0][1], player, moderator, table))
        except BaseException as e:  # reported to the test, not lost in the thread
            failure.append(e)
        finished = asyncio.Event()
        stop.append((asyncio.get_running_loop(), finished))
        started.set()
        try:
            await finished.wait()
        finally:
            await runner.cleanup()

    thread = threading.Thread(target=lambda: asyncio.run(run()), daemon=True)
    thread.start()
    assert started.wait(60), "the fuzzed server did not start"
    if failure:
        raise failure[0]
    server = found[0]
    handler = Problems(server.problems)
    logging.getLogger().addHandler(handler)
    try:
        yield server
    finally:
        logging.getLogger().removeHandler(handler)
        loop, finished = stop[0]
        loop.call_soon_threadsafe(finished.set)
        thread.join(30)
    assert not server.problems, [r.getMessage() for r in server.problems]


# --- what a hostile client sends ------------------------------------------------

SURROGATES = st.sampled_from(["\ud800", "\udfff", "\x00", "\u202e", "\uffff"])
TEXT = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(st.text(max_size=4), SURROGATES), max_size=6).map("".join),
)
NUMBER = st.one_of(
    st.integers(-5, 20),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    NUMBER,
    TEXT,
    st.sampled_from(
        [
            "classic",
            "city",
            "ban",
            "suspension",
            "warning",
            "fuzzplayer",
            "fuzzmod",
            PASSWORD,
            "open",
            "closed",
        ]
    ),
)
JSON_VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=12,
)
FIELDS = [
    "username",
    "password",
    "settings",
    "ruleset",
    "game",
    "reason",
    "user",
    "kind",
    "days",
    "case",
    "voting",
    "auto_deal",
    "agreement",
]
BODY_OBJECT = st.dictionaries(st.one_of(st.sampled_from(FIELDS), TEXT), JSON_VALUE, max_size=6)


def _encode(value: Any) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity written as Python does


BODY = st.one_of(
    st.just(b""),
    BODY_OBJECT.map(_encode),
    JSON_VALUE.map(_encode),
    st.binary(max_size=64),  # not UTF-8, not JSON
    st.integers(1, 200_000).map(lambda depth: b"[" * depth + b"]" * depth),
    st.integers(1, 5000).map(lambda digits: b'{"game": ' + b"9" * digits + b"}"),
    TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
)

ID = st.one_of(
    st.just("1"),
    st.just("2"),
    st.integers(-3, 10).map(str),
    st.integers(2**31 - 2, 2**80).map(str),
    st.sampled_from(["²", "١", "0x1", "1e3", " 1", "+1", ""]),
)
SEGMENT = st.one_of(ID, TEXT, st.binary(max_size=8))


def _segment(raw: str | bytes) -> str:
    if isinstance(raw, bytes):
        return quote_from_bytes(raw, safe="")
    return quote(raw.encode("utf-8", "surrogatepass"), safe="")


ROUTES = [
    "/",
    "/web/{x}",
    "/docs/api",
    "/api/csrf",
    "/api/register",
    "/api/login",
    "/api/logout",
    "/api/me",
    "/api/me/games",
    "/api/tables",
    "/api/tables/{x}",
    "/api/tables/{x}/sit",
    "/api/tables/{x}/stand",
    "/api/tables/{x}/bots",
    "/api/tables/{x}/ws",
    "/api/players/{x}",
    "/api/players/{x}/games",
    "/api/leaderboard",
    "/api/reports",
    "/api/moderation/cases",
    "/api/moderation/cases/{x}",
    "/api/moderation/cases/{x}/uphold",
    "/api/moderation/cases/{x}/overturn",
    "/api/moderation/cases/{x}/dismiss",
    "/api/moderation/sanctions",
    "/api/moderation/sanctions/{x}/lift",
    "/api/moderation/tables/{x}/script",
    "/api/moderation/audit",
    "/api/debug/stats",
    "/{x}",
    "/api/{x}/{x}",
]
QUERY_KEYS = ["page", "per_page", "limit", "cursor", "upto", "status", "flagged", "last", "reset"]
QUERY = st.lists(
    st.tuples(
        st.one_of(st.sampled_from(QUERY_KEYS), TEXT), st.one_of(ID, TEXT, st.binary(max_size=6))
    ),
    max_size=4,
)
CONTENT_TYPES = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "application/json",
            "application/json; charset=latin-1",
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "multipart/form-data",
            "application/octet-stream",
            "garbage",
            'application/json; x="',
        ]
    ),
)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    who: str  # anonymous, player, moderator
    csrf: bool
    content_type: str | None
    body: bytes

    def send(self, server: LiveServer) -> tuple[int, bytes, dict[str, str]]:
        headers = {"Host": "127.0.0.1"}
        cookie = {"player": server.player, "moderator": server.moderator}.get(self.who)
        if cookie:
            headers["Cookie"] = cookie
        elif self.csrf:
            headers["Cookie"] = "omerta_csrf=fuzz"
        if self.csrf:
            headers["X-CSRF-Token"] = "fuzz"
        if self.content_type:
            headers["Content-Type"] = self.content_type
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        try:
            connection.request(self.method, self.path, body=self.body or None, headers=headers)
            with connection.getresponse() as response:
                return response.status, response.read(), dict(response.getheaders())
        finally:
            connection.close()


@st.composite
def requests(draw: st.DrawFn) -> Request:
    template = draw(st.sampled_from(ROUTES))
    path = "".join(
        part if i % 2 == 0 else _segment(draw(SEGMENT))
        for i, part in enumerate(template.replace("{x}", "\0{x}\0").split("\0"))
    ).replace("{x}", "")
    pairs = draw(QUERY)
    if pairs:
        path += "?" + "&".join(f"{_segment(k)}={_segment(v)}" for k, v in pairs)
    who = draw(st.sampled_from(["anonymous", "player", "moderator"]))
    if template == "/api/logout" and who != "anonymous":
        who = "anonymous"  # keep the fuzzing identities signed in
    return Request(
        method=draw(
            st.sampled_from(
                ["GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
            )
        ),
        path=path,
        who=who,
        csrf=draw(st.booleans() | st.just(True)),
        content_type=draw(CONTENT_TYPES),
        body=draw(BODY),
    )


def check(server: LiveServer, request: Request) -> None:
    # Problems are never cleared: one the server logs after its answer (a
    # background task, a closing connection) fails the next input's check,
    # or the fixture's teardown after the last.
    status, body, headers = request.send(server)
    assert status < 500, (request, status, body[:300])
    if status >= 400 and request.method != "HEAD":
        reply = json.loads(body)
        assert isinstance(reply.get("error"), str) and reply["error"], (request, body[:300])
    if status == 429 or (status == 503 and "Retry-After" in headers):
        assert int(headers["Retry-After"]) > 0
    assert not server.problems, [r.getMessage() for r in server.problems]


FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


@settings(FUZZ, max_examples=DEFAULT_EXAMPLES)
@given(request=requests())
def test_generated_http_input_never_crashes_the_server_or_logs_a_traceback(live_server, request):
    check(live_server, request)


@pytest.mark.slow
@settings(FUZZ, max_examples=SLOW_EXAMPLES)
@given(request=requests())
def test_ten_thousand_generated_http_inputs_never_crash_the_server(live_server, request):
    check(live_server, request)


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/register", b"[" * 30_000 + b"]" * 30_000),
        ("/api/login", b'{"username": "bob", "password": NaN}'),
        ("/api/reports", b'{"game": ' + b"9" * 5000 + b"}"),
        ("/api/login", json.dumps({"username": "fuzz\u0000", "password": "x" * 8}).encode()),
        ("/api/login", b'{"username": "\\ud800abc", "password": "xxxxxxxx"}'),
        ("/api/moderation/sanctions", b'{"user": "\\u0000", "kind": "ban", "reason": "x"}'),
        ("/api/reports", b'{"game": 1, "reason": "\\ud800"}'),
    ],
)
def test_known_bad_bodies_get_a_clear_400(live_server, path, body):
    for who in ("player", "moderator"):
        request = Request("POST", path, who, True, "application/json", body)
        status, reply, _ = request.send(live_server)
        assert 400 <= status < 500, (path, status, reply[:200])
        assert json.loads(reply)["error"]
    assert not live_server.problems


@pytest.mark.parametrize(
    "path",
    [
        "/api/tables/%C2%B2",
        "/api/players/%00bob",
        "/api/players/%ED%A0%80",
        "/api/players/%FF",
        "/api/tables?cursor=%C2%B2",
        "/api/leaderboard?page=%FF",
        "/api/moderation/cases/99999999999999999999",
        "/web/..%2F..%2Fpyproject.toml",
        "/web/%00",
    ],
)
def test_known_bad_paths_get_a_clear_4xx(live_server, path):
    status, reply, _ = Request("GET", path, "moderator", False, None, b"").send(live_server)
    assert 400 <= status < 500, (path, status, reply[:200])
    assert json.loads(reply)["error"]
    assert not live_server.problems
