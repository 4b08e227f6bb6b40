"""The aiohttp application: routes, middlewares, and the lifecycle of the
database and the table runtime."""
from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import AsyncIterator

from aiohttp import web
from aiohttp.typedefs import Handler

from ..store import Database
from ..jobs import scheduler
from . import auth, csrf, debug, lobby, moderation, players, table_ws
from .config import Config
from .keys import CONFIG, DB, LOGIN_LIMIT_PER_IP, LOGIN_LIMIT_PER_USER, PASSWORDS, TABLES
from .passwords import Passwords
from .ratelimit import RateLimiter
from .web import setup_web
from .wire import ApiError, error_response

log = logging.getLogger(__name__)

API_DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure reaches the client as {"error": ...}, never a traceback."""
    try:
        return await handler(request)
    except ApiError as e:
        return error_response(e.status, e.message, e.rule, e.headers)
    except web.HTTPException as e:
        if e.status < 400:      # redirects are answers, not errors
            raise
        # aiohttp's own text is "<status>: <reason>" unless it says more (413 does).
        text = e.text or ""
        message = e.reason if not text or text.startswith(f"{e.status}:") else text
        kept = {name: e.headers[name] for name in ("Allow",) if name in e.headers}
        return error_response(e.status, message, headers=kept)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unhandled error in %s %s", request.method, request.path)
        return error_response(500, "internal server error")


def create_app(config: Config) -> web.Application:
    app = web.Application(middlewares=[csrf.protect, json_errors],
                          client_max_size=config.max_body_bytes)
    app[CONFIG] = config
    app[PASSWORDS] = Passwords(config.password_hasher)
    app[LOGIN_LIMIT_PER_USER] = RateLimiter(config.login_limit_per_user)
    app[LOGIN_LIMIT_PER_IP] = RateLimiter(config.login_limit_per_ip)
    app.cleanup_ctx.append(_lifecycle)
    app.cleanup_ctx.append(_jobs)
    setup_web(app)
    app.router.add_get("/docs/api", _api_docs)
    for routes in (auth.routes, csrf.routes, lobby.routes, players.routes, table_ws.routes,
                   moderation.routes):
        app.router.add_routes(routes)
    if config.debug_stats:
        app.router.add_routes(debug.routes)
    return app


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


async def _api_docs(request: web.Request) -> web.Response:
    try:
        text = await asyncio.get_running_loop().run_in_executor(None, API_DOCS.read_text)
    except FileNotFoundError:
        raise ApiError(404, "the API documentation is not installed with this server") from None
    return web.Response(text=text, content_type="text/plain", charset="utf-8")
