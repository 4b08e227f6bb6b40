"""A table socket that reaches the wrong node (docs/deploy.md, "Several
nodes"): any node accepts it and forwards it to the node that runs the
table, frame for frame, so clients and the load balancer need not know
which node that is. A player whose table moves (its node died or stopped)
reconnects as after any drop, lands on any node, and reaches the new one.

The hop between nodes carries the player's own request (cookies, Origin,
Host, X-Forwarded-For) and the shared secret `OMERTA_CLUSTER_SECRET`, with
the address the first node saw the player at: the node that runs the
table checks the player exactly as if they had connected to it, and
counts their sockets by their own address. A forwarded socket is never
forwarded again."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import WSMsgType, hdrs, web
from aiohttp.typedefs import Handler
from yarl import URL

from ..runtime.live import LiveTables
from ..store import leases, tables
from .keys import CONFIG, DB, TABLES
from .wire import ApiError

log = logging.getLogger(__name__)

#: The secret one node proves it is one to another with, and the address
#: it saw the player at.
SECRET_HEADER = "X-Omerta-Node-Secret"
CLIENT_HEADER = "X-Omerta-Client"
#: What a forwarded socket carries over from the player's request.
PASSED = (hdrs.COOKIE, hdrs.ORIGIN, hdrs.USER_AGENT, hdrs.X_FORWARDED_FOR)
#: Seconds to reach the node that runs the table.
CONNECT_SECONDS = 5.0
#: Close codes: this node stops; its way to the table broke (reconnect, both).
GOING_AWAY, SERVICE_RESTART = 1001, 1012
MAX_FRAME = 64 * 1024

SESSION = web.AppKey("forwarding_session", aiohttp.ClientSession)
#: the sockets this node forwards now (closed when it stops)
FORWARDED = web.AppKey("forwarded_sockets", set[web.WebSocketResponse])


def from_node(request: web.Request) -> bool:
    """Whether `request` was forwarded by another node of this cluster."""
    secret = request.app[CONFIG].cluster_secret
    sent = request.headers.get(SECRET_HEADER)
    return secret is not None and sent is not None and hmac.compare_digest(sent, secret)


@web.middleware
async def forwarded_client(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A request forwarded by a node comes from the player it forwards."""
    if SECRET_HEADER in request.headers:
        if not from_node(request):
            raise ApiError(403, "not a node of this cluster")
        request = request.clone(remote=request.headers.get(CLIENT_HEADER, "unknown")[:64])
    return await handler(request)


async def _session(app: web.Application) -> AsyncIterator[None]:
    app[SESSION] = aiohttp.ClientSession(
        # one connection per forwarded socket, as many as there are (aiohttp's default: 100)
        connector=aiohttp.TCPConnector(limit=0),
        timeout=aiohttp.ClientTimeout(connect=CONNECT_SECONDS),
    )
    try:
        yield
    finally:
        await app[SESSION].close()


async def _close_forwarded(app: web.Application) -> None:
    """Stopping: the players this node forwards reconnect through another."""
    forwarded = app[FORWARDED]
    for ws in list(forwarded):
        await ws.close(code=GOING_AWAY, message=b"this server is stopping: reconnect")


def setup(app: web.Application) -> None:
    forwarded: set[web.WebSocketResponse] = set()
    app[FORWARDED] = forwarded
    app.middlewares.append(forwarded_client)
    app.cleanup_ctx.append(_session)
    app.on_shutdown.append(_close_forwarded)


async def owner_url(request: web.Request, table_id: int) -> str | None:
    """The URL of the node that runs table `table_id`, when another node
    does and this one may forward to it; None when no node runs it (a
    finished table answers here). 503 while the table is between nodes."""
    runtime = request.app[TABLES]
    if not isinstance(runtime, LiveTables) or request.app[CONFIG].cluster_secret is None:
        return None
    async with request.app[DB].begin() as s:
        holder = await leases.owner(s, table_id)
        table = await tables.get_table(s, table_id) if holder is None else None
    if holder is None and (table is None or table.status != "playing"):
        return None
    if holder is None or holder[0] == runtime.ownership.node or holder[1] is None:
        raise _moving()  # not adopted yet, or being started or stopped here
    if from_node(request):
        raise _moving()  # the node that forwarded it saw another holder: soon it sees this
    return holder[1]


async def forward(request: web.Request, url: str, table_id: int) -> web.WebSocketResponse:
    """Open the table's socket on the node at `url` for the player of
    `request`, then pass frames both ways until either side closes."""
    headers = {str(name): request.headers[name] for name in PASSED if name in request.headers}
    headers[hdrs.HOST] = request.host
    headers[CLIENT_HEADER] = request.remote or "unknown"
    secret = request.app[CONFIG].cluster_secret
    assert secret is not None
    headers[SECRET_HEADER] = secret
    target = URL(url).join(URL(f"/api/tables/{table_id}/ws")).with_query(request.query)
    try:
        upstream = await request.app[SESSION].ws_connect(
            target, headers=headers, max_msg_size=MAX_FRAME, heartbeat=5.0, autoping=True
        )
    except aiohttp.WSServerHandshakeError as e:
        if 400 <= e.status < 500:
            raise ApiError(e.status, e.message or "refused") from None
        raise _moving() from None
    except (aiohttp.ClientError, OSError, TimeoutError):
        raise _moving() from None
    ws = web.WebSocketResponse(heartbeat=5.0, max_msg_size=MAX_FRAME, compress=False)
    request.app[FORWARDED].add(ws)
    try:
        await ws.prepare(request)
        down = asyncio.create_task(_pump(upstream, ws))
        up = asyncio.create_task(_pump(ws, upstream))
        await asyncio.wait({down, up}, return_when=asyncio.FIRST_COMPLETED)
        up.cancel()
        down.cancel()
        await asyncio.gather(up, down, return_exceptions=True)
    finally:
        code = upstream.close_code or SERVICE_RESTART
        with contextlib.suppress(Exception):
            await upstream.close()
        with contextlib.suppress(Exception):
            await ws.close(code=code, message=b"reconnect with your last seq")
        request.app[FORWARDED].discard(ws)
    return ws


def _moving() -> ApiError:
    return ApiError(
        503,
        "this table is moving to another server: reconnect in a moment",
        headers={"Retry-After": "1"},
    )


async def _pump(
    source: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
    sink: web.WebSocketResponse | aiohttp.ClientWebSocketResponse,
) -> None:
    with contextlib.suppress(ConnectionError, RuntimeError):
        async for message in source:
            if message.type == WSMsgType.TEXT:
                await sink.send_str(message.data)
            elif message.type == WSMsgType.BINARY:
                await sink.send_bytes(message.data)
