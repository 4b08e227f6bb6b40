"""The aiohttp application: routes, middlewares, and the lifecycle of the
database and the table runtime."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from ..jobs import scheduler
from ..store import Database
from ..store.db import database_down
from . import (
    auth,
    csrf,
    debug,
    forward,
    games,
    health,
    lobby,
    moderation,
    players,
    table_ws,
    tournaments,
    watch,
)
from .config import Config
from .keepalive import Keepalive
from .keys import (
    BOT_GAMES,
    CONFIG,
    DB,
    KEEPALIVE,
    LOGIN_PER_ACCOUNT,
    LOGIN_PER_ADDRESS,
    LOGIN_PER_PAIR,
    PASSWORDS,
    REGISTRATIONS,
    SOCKETS_PER_ACCOUNT,
    SOCKETS_PER_ADDRESS,
    TABLES,
    TABLES_CREATED,
)
from .passwords import Busy, Passwords
from .ratelimit import Occupancy, RateLimiter
from .web import setup_web
from .wire import ApiError, error_response

log = logging.getLogger(__name__)

# docs/api.md, shipped inside the package: omerta/server/api.md links to it
# and a built wheel carries a copy.
API_DOCS = Path(__file__).resolve().parent / "api.md"


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure reaches the client as {"error": ...}, never a traceback."""
    try:
        return await handler(request)
    except ApiError as e:
        return error_response(e.status, e.message, e.rule, e.headers)
    except web.HTTPException as e:
        if e.status < 400:  # redirects are answers, not errors
            raise
        # aiohttp's own text is "<status>: <reason>" unless it says more (413 does).
        text = e.text or ""
        message = e.reason if not text or text.startswith(f"{e.status}:") else text
        kept = {name: e.headers[name] for name in ("Allow",) if name in e.headers}
        return error_response(e.status, message, headers=kept)
    except Busy:
        return error_response(
            503,
            "the server is busy checking passwords; try again in a few seconds",
            headers={"Retry-After": "5"},
        )
    except asyncio.CancelledError:
        raise
    except Exception as e:
        if database_down(e):
            # A fault of ours the client can only wait out, not a bug: one
            # line in the log, no traceback.
            log.warning(
                "database unavailable in %s %s: %s",
                request.method,
                request.path,
                (str(e).splitlines() or [type(e).__name__])[0],
            )
            return error_response(
                503, "the database is unavailable; try again shortly", headers={"Retry-After": "5"}
            )
        log.exception("unhandled error in %s %s", request.method, request.path)
        return error_response(500, "internal server error")


@web.middleware
async def body_in_time(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A request's body must arrive within `request_body_seconds`: a client
    trickling it byte by byte does not hold a handler (aiohttp has no such
    timer). The body read here is kept for the handler."""
    if request.body_exists:
        seconds = request.app[CONFIG].limits.request_body_seconds
        try:
            async with asyncio.timeout(seconds):
                await request.read()
        except TimeoutError:
            raise ApiError(408, f"the request body did not arrive within {seconds:g} s") from None
    return await handler(request)


def create_app(config: Config) -> web.Application:
    app = web.Application(
        middlewares=[csrf.protect, json_errors, body_in_time], client_max_size=config.max_body_bytes
    )
    app[CONFIG] = config
    limits = config.limits
    app[PASSWORDS] = Passwords(config.password_hasher, limits.hashing_at_once, limits.hashing_queue)
    for key, limit in (
        (LOGIN_PER_PAIR, limits.login_per_pair),
        (LOGIN_PER_ACCOUNT, limits.login_per_account),
        (LOGIN_PER_ADDRESS, limits.login_per_address),
        (REGISTRATIONS, limits.register_per_address),
        (TABLES_CREATED, limits.tables_per_account),
        (BOT_GAMES, limits.bot_games_per_account),
    ):
        app[key] = RateLimiter(limit)
    app[SOCKETS_PER_ACCOUNT] = Occupancy(limits.sockets_per_account)
    app[SOCKETS_PER_ADDRESS] = Occupancy(limits.sockets_per_address)
    app.cleanup_ctx.append(_lifecycle)
    app.cleanup_ctx.append(_jobs)
    app.cleanup_ctx.append(_keepalive)
    app.cleanup_ctx.append(tournaments.round_starter)
    setup_web(app)
    app.router.add_get("/docs/api", _api_docs)
    for routes in (
        auth.routes,
        csrf.routes,
        lobby.routes,
        players.routes,
        table_ws.routes,
        moderation.routes,
        games.routes,
        tournaments.routes,
    ):
        app.router.add_routes(routes)
    watch.setup(app)
    health.setup(app)  # /healthz, /readyz; tables handed over on SIGTERM
    forward.setup(app)  # table sockets that reach another node than the table's
    if config.debug_stats:
        app.router.add_routes(debug.routes)
    return app


def server_options(config: Config) -> dict[str, Any]:
    """What the HTTP server (web.AppRunner, TestServer) is run with: a
    connection must send a complete request head within this many seconds
    of connecting or of its last response, else it is closed (aiohttp's
    keep-alive timer also covers a request still arriving; its default is
    an hour, which lets slow clients hold connections)."""
    return {"keepalive_timeout": config.limits.request_head_seconds}


async def _lifecycle(app: web.Application) -> AsyncIterator[None]:
    """Open the database (its schema is already current: `omerta serve`
    checks before it builds the app), then start the runtime, which
    resumes every table that was playing when the server last stopped."""
    config = app[CONFIG]
    db = Database.connect(config.database_url)
    app[DB] = db
    runtime = config.runtime(db, config.time_scale)
    app[TABLES] = runtime
    try:
        await runtime.resume_all()
        if config.demo:
            await lobby.ensure_demo_table(db, config.rng)
        yield
    finally:
        await runtime.shutdown()
        await db.close()


async def _jobs(app: web.Application) -> AsyncIterator[None]:
    """The periodic jobs run while the app does (after the database opens)."""
    jobs = scheduler(app[DB])
    jobs.start()
    try:
        yield
    finally:
        jobs.shutdown(wait=False)


async def _keepalive(app: web.Application) -> AsyncIterator[None]:
    """The node's one sweep that keeps its sockets alive (keepalive.py)."""
    loop = asyncio.get_running_loop()
    keepalive = Keepalive(loop.time, loop.call_soon)
    app[KEEPALIVE] = keepalive
    keepalive.start(loop)
    try:
        yield
    finally:
        keepalive.stop()


async def _api_docs(request: web.Request) -> web.Response:
    try:
        text = await asyncio.get_running_loop().run_in_executor(None, API_DOCS.read_text)
    except FileNotFoundError:
        raise ApiError(404, "the API documentation is not installed with this server") from None
    return web.Response(text=text, content_type="text/plain", charset="utf-8")
