"""The table WebSocket (docs/api.md, "Table WebSocket"): a signed-in
player's connection to the table they sit at, or a spectator's.

The seat comes from the session, never from a message. This module only
checks the envelope (size, rate, JSON, id, seat) and turns a message into
an engine action; the table's actor decides, records and answers."""
from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, hdrs, web

from ..runtime import wire
from ..runtime.actor import TableActor
from ..store import tables
from ..table import IllegalAction, parse_action
from .auth import require_user
from .keys import CONFIG, DB, TABLES
from .ratelimit import Limit, RateLimiter
from .wire import ApiError, table_id_of

#: Largest action or control message the server reads (bytes); a larger
#: one is refused.
MAX_MESSAGE = 4096
#: Largest media (WebRTC signalling) message: a browser's SDP answer has an
#: m-line per slot, about 11 kB for ten seats and 14 kB for twelve.
MAX_MEDIA_MESSAGE = 32 * 1024
#: A frame larger than this is not even read: the connection closes (1009).
MAX_FRAME = 64 * 1024
#: Seconds between pings; a client that misses a pong is disconnected.
HEARTBEAT = 20.0
#: Messages a connection may send: far above what a person clicks.
RATE = Limit(attempts=20, seconds=1.0)
#: Messages waiting to go out before a connection counts as too slow.
SEND_BACKLOG = 5000
MAX_ID = 64
TOO_SLOW = 1013   # "try again later": reconnect and catch up

routes = web.RouteTableDef()


class SocketPeer:
    """A connection as the actor sees it: messages are queued without
    blocking the actor and written by this connection's own task."""

    def __init__(self, ws: web.WebSocketResponse, seat: int | None):
        self.ws = ws
        self.seat = seat
        self._out: deque[str] = deque()
        self._wake = asyncio.Event()
        self._closing: tuple[int, str] | None = None

    def send(self, text: str) -> None:
        if self._closing is not None:
            return
        if len(self._out) >= SEND_BACKLOG:
            self._out.clear()
            self.close(TOO_SLOW, "too far behind: reconnect with your last seq")
            return
        self._out.append(text)
        self._wake.set()

    def close(self, code: int, reason: str) -> None:
        if self._closing is None:
            self._closing = (code, reason)
            self._wake.set()

    async def write(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._out:
                    await self.ws.send_str(self._out.popleft())
                if self._closing is not None:
                    code, reason = self._closing
                    await self.ws.close(code=code, message=reason.encode())
                    return
        except (ConnectionError, RuntimeError):
            return   # the client is gone; it reconnects with its last seq


def _check_origin(request: web.Request) -> None:
    """A browser always sends Origin on a WebSocket: a page of another site
    must not reach a table with this site's cookies. Clients that are not
    browsers send none (they cannot borrow anyone's cookies)."""
    origin = request.headers.get(hdrs.ORIGIN)
    if origin is None or origin in request.app[CONFIG].allowed_origins:
        return
    if urlsplit(origin).netloc.lower() != request.host.lower():
        raise ApiError(403, f"a page from {origin} may not open a table socket on this server")


def _last_of(request: web.Request) -> int | None:
    raw = request.query.get("last")
    if raw is None:
        return None
    if not raw.isdigit() or len(raw) > 9:
        raise ApiError(400, f"'last' must be the number of the last event you received, got {raw!r}")
    return int(raw)


async def _live_table(request: web.Request, table_id: int) -> TableActor:
    live = request.app[TABLES].table(table_id)
    if live is not None:
        return live
    async with request.app[DB].begin() as s:
        table = await tables.get_table(s, table_id)
    if table is None:
        raise ApiError(404, f"no table {table_id}")
    raise ApiError(409, f"table {table_id} is {table.status}: only a table being played has a"
                        " live socket")


@routes.get("/api/tables/{table_id}/ws")
async def table_socket(request: web.Request) -> web.StreamResponse:
    table_id = table_id_of(request)
    _check_origin(request)
    user = await require_user(request)
    last = _last_of(request)
    live = await _live_table(request, table_id)
    ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_FRAME, compress=False)
    await ws.prepare(request)
    peer = SocketPeer(ws, live.seat_of(user.id))
    writer = asyncio.create_task(peer.write())
    live.join(peer, last)
    limiter = RateLimiter(RATE)
    try:
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                await _receive(live, peer, limiter, message.data)
            elif message.type == WSMsgType.BINARY:
                peer.send(wire.error("send JSON in text frames"))
    finally:
        live.leave(peer)
        peer.close(1000, "")
        await writer
    return ws


async def _receive(live: TableActor, peer: SocketPeer, limiter: RateLimiter, text: str) -> None:
    if limiter.hit("") is not None:
        peer.send(wire.error(f"too many messages: at most {RATE.attempts} a second; this one was"
                             " dropped"))
        return
    size = len(text.encode())
    if size > MAX_MEDIA_MESSAGE:
        peer.send(wire.error(f"a message has at most {MAX_MESSAGE} bytes ({MAX_MEDIA_MESSAGE}"
                             f" for media); this one has {size}"))
        return
    try:
        message = json.loads(text)
    except ValueError as e:
        peer.send(wire.error(f"not valid JSON: {e}"))
        return
    if not isinstance(message, dict):
        peer.send(wire.error("a message must be a JSON object"))
        return
    if size > MAX_MESSAGE and message.get("type") != "media":
        peer.send(wire.error(f"a message has at most {MAX_MESSAGE} bytes (only media messages"
                             f" may have up to {MAX_MEDIA_MESSAGE}); this one has {size}"))
        return
    if "type" in message:
        await _control(live, peer, message)
        return
    client_id = message.get("id")
    if not isinstance(client_id, str) or not 1 <= len(client_id) <= MAX_ID:
        peer.send(wire.error(f"an action needs an 'id': a string of 1 to {MAX_ID} characters,"
                             " new for each action"))
        return
    if peer.seat is None:
        peer.send(wire.error("you are watching this table: spectators do not act", client_id))
        return
    if "seat" in message and message["seat"] != peer.seat:
        peer.send(wire.error(f"you sit in seat {peer.seat}: you cannot act for seat"
                             f" {message['seat']!r}", client_id))
        return
    try:
        action = parse_action(message, seat=peer.seat)
    except IllegalAction as e:
        peer.send(wire.error(e.message, client_id, e.rule))
        return
    live.act(peer, client_id, action)


async def _control(live: TableActor, peer: SocketPeer, message: dict[str, Any]) -> None:
    kind = message["type"]
    if kind == "resume":
        last = message.get("last")
        if isinstance(last, bool) or not isinstance(last, int) or last < 0:
            peer.send(wire.error(f"resume needs 'last': the number of the last event you"
                                 f" received (0 for none), got {last!r}"))
            return
        live.join(peer, last, hello=False)
    elif kind == "media":
        reply = await live.signal(peer.seat, message)
        if reply is not None:
            peer.send(wire.media(reply))
    else:
        peer.send(wire.error(f"unknown message type {kind!r}: resume or media (an action has"
                             " no type: it has 'do')"))
