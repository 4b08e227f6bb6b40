"""The table WebSocket (docs/api.md, "Table WebSocket"): a signed-in
player's connection to the table they sit at, or a spectator's.

The seat comes from the session, never from a message. This module only
checks the envelope (size, rate, JSON, id, seat) and turns a message into
an engine action; the table's actor decides, records and answers."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import itertools
import logging
import termios
from typing import Any
from urllib.parse import urlsplit

import orjson
from aiohttp import WSMsgType, hdrs, web

from ..runtime import messages
from ..runtime.actor import GAME_OVER, TableActor
from ..runtime.final import final_messages
from ..store import tables
from ..table import IllegalAction, parse_action
from . import forward
from . import watchers as watch
from .auth import current_user
from .clients import socket_slot
from .keys import CONFIG, DB, KEEPALIVE, TABLES
from .params import table_id_of
from .ratelimit import Limit, RateLimiter
from .wire import ApiError

#: Largest action or control message the server reads (bytes); a larger
#: one is refused.
MAX_MESSAGE = 4096
#: Largest media (WebRTC signalling) message: a browser's SDP answer has an
#: m-line per slot, about 11 kB for ten seats and 14 kB for twelve.
MAX_MEDIA_MESSAGE = 32 * 1024
#: A frame larger than this is not even read: the connection closes (1009).
MAX_FRAME = 64 * 1024
#: The web client's keep-alive, as its JSON.stringify writes it (and as
#: Python's json.dumps does): answered before any parsing, since every
#: browser sends one every 2 s. Any other spelling takes the parsed path.
PINGS = frozenset(('{"type":"ping"}', '{"type": "ping"}'))
#: Messages a connection may send: far above what a person clicks.
RATE = Limit(attempts=20, seconds=1.0)
#: Bytes waiting to go out before a connection counts as too slow.
SEND_BACKLOG = 4 * 1024 * 1024
#: `resume`s a connection may send (each may replay up to MAX_CATCH_UP events).
RESUMES = Limit(attempts=3, seconds=10.0)
MAX_ID = 64
#: How deep a message may nest objects and arrays (a media candidate needs 2).
MAX_DEPTH = 8
TOO_SLOW = 1013  # "try again later": reconnect and catch up

routes = web.RouteTableDef()
log = logging.getLogger(__name__)
_VIEWERS = itertools.count(1)


class SocketPeer:
    """A connection as the actor sees it: `send` never blocks. Whatever is
    sent while the loop runs one callback (a step's events, view and ack) is
    written as WebSocket frames in one write once that callback ends: one
    system call per connection and step, and no task to wake for it."""

    def __init__(self, ws: web.WebSocketResponse, seat: int | None):
        self.ws = ws
        self.seat = seat
        #: a spectator's number for the media plane (its media connection, if any)
        self.viewer = next(_VIEWERS) if seat is None else None
        self._out: list[str] = []
        self._closing: tuple[int, str] | None = None
        self._close = asyncio.Event()
        #: loop times of the last frame heard and the last ping (keepalive.py)
        self.heard = 0.0
        self.pinged = 0.0

    def send(self, text: str) -> None:
        if self._closing is not None:
            return
        self._out.append(text)
        if len(self._out) == 1:
            asyncio.get_running_loop().call_soon(self._flush)

    def close(self, code: int, reason: str) -> None:
        """Close once everything sent before is written."""
        if self._closing is None:
            self._flush()
            self._shut(code, reason)

    def _shut(self, code: int, reason: str) -> None:
        if self._closing is None:
            self._closing = (code, reason)
            self._close.set()

    async def write(self) -> None:
        """The connection's own task: it waits for `close` and closes the
        socket (the messages are written by `send`)."""
        await self._close.wait()
        assert self._closing is not None
        code, reason = self._closing
        with contextlib.suppress(ConnectionError, RuntimeError):
            await self.ws.close(code=code, message=reason.encode())

    def ping(self) -> None:
        self._control(_PING)

    def pong(self, data: bytes) -> None:
        """Answer a WebSocket ping (the sockets do not autoping: they see
        every frame, pongs included, as a sign of life)."""
        payload = data[:125]  # a control frame's most (RFC 6455, 5.5)
        self._control(bytes((0x8A, len(payload))) + payload)

    def drop(self) -> None:
        """A connection gone silent: cut at once, nothing more is written
        (a dead network would never take a close frame); the socket loop
        ends and the table tells the others."""
        writer = self.ws._writer
        if writer is not None:
            writer.transport.abort()

    def unread(self) -> bool:
        writer = self.ws._writer
        if writer is None or writer.transport.is_closing():
            return False
        sock = writer.transport.get_extra_info("socket")
        try:
            waiting = fcntl.ioctl(sock.fileno(), termios.FIONREAD, _NO_BYTES)
        except (OSError, ValueError):  # closed meanwhile (its descriptor is -1)
            return False
        return waiting != _NO_BYTES

    def _control(self, frame: bytes) -> None:
        writer = self.ws._writer
        if self._closing is None and writer is not None and not writer.transport.is_closing():
            writer.transport.write(frame)

    def _flush(self) -> None:
        out, self._out = self._out, []
        # aiohttp's own send_str is a coroutine per message; the frames are
        # written to its writer's transport directly instead.
        writer = self.ws._writer
        if not out or self._closing is not None or writer is None or self.ws.closed:
            return
        transport = writer.transport
        if transport.is_closing():
            return  # the client is gone; it reconnects with its last seq
        if transport.get_write_buffer_size() > SEND_BACKLOG:
            self._shut(TOO_SLOW, "too far behind: reconnect with your last seq")
            return
        transport.write(b"".join([part for text in out for part in _text_frame(text)]))


#: FIONREAD's answer when nothing waits (a C int)
_NO_BYTES = bytes(4)
#: A final, unmasked ping frame with no payload (RFC 6455, 5.5.2).
_PING = bytes((0x89, 0))


def _text_frame(text: str) -> tuple[bytes, bytes]:
    """A final, unmasked, uncompressed text frame (RFC 6455, 5.2): what
    aiohttp writes for `send_str` on a socket without compression."""
    data = text.encode()
    size = len(data)
    if size < 126:
        return bytes((0x81, size)), data
    if size < 65536:
        return bytes((0x81, 126)) + size.to_bytes(2, "big"), data
    return bytes((0x81, 127)) + size.to_bytes(8, "big"), data


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
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        raise ApiError(
            400, f"'last' must be the number of the last event you received, got {raw!r}"
        )
    return int(raw)


async def _finished_table(
    request: web.Request, table_id: int, user_id: int | None, last: int | None
) -> web.StreamResponse:
    """No live actor: a finished game still answers, with its end."""
    final = await final_messages(request.app[DB], table_id, user_id, last)
    if final is None:
        async with request.app[DB].begin() as s:
            table = await tables.get_table(s, table_id)
        if table is None:
            raise ApiError(404, f"no table {table_id}")
        raise ApiError(
            409,
            f"table {table_id} is {table.status}: only a table being played or"
            " finished has a socket",
        )
    ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, compress=False)
    await ws.prepare(request)
    for text in final:
        await ws.send_str(text)
    await ws.close(code=GAME_OVER, message=b"the game is over")
    return ws


@routes.get("/api/tables/{table_id}/ws")
async def table_socket(request: web.Request) -> web.StreamResponse:
    table_id = table_id_of(request)
    _check_origin(request)
    user = await current_user(request)
    if user is None:  # a spectator, if the table lets anyone watch (watch.py)
        await watch.may_watch(request, table_id, user)
    last = _last_of(request)
    live = request.app[TABLES].table(table_id)
    if live is None:
        owner = await forward.owner_url(request, table_id)  # does another node run it?
        if owner is not None:
            with socket_slot(request, user.id if user else None):
                return await forward.forward(request, owner, table_id)
        return await _finished_table(request, table_id, user.id if user else None, last)
    seat = live.seat_of(user.id) if user else None
    with (
        socket_slot(request, user.id if user else None),  # per account and address (clients.py)
        watch.watcher_slot(request, table_id) if seat is None else contextlib.nullcontext(),
    ):
        ws = web.WebSocketResponse(autoping=False, max_msg_size=MAX_FRAME, compress=False)
        await ws.prepare(request)
        peer = SocketPeer(ws, seat)
        writer = asyncio.create_task(peer.write())
        live.join(peer, last)
        limiter, resumes = RateLimiter(RATE), RateLimiter(RESUMES)
        keepalive = request.app[KEEPALIVE]
        keepalive.watch(peer)
        clock = asyncio.get_running_loop().time
        try:
            async for message in ws:
                peer.heard = clock()
                if message.type == WSMsgType.TEXT:
                    if message.data in PINGS:
                        _ping(peer, limiter)
                    else:
                        await _receive(live, peer, limiter, resumes, message.data)
                elif message.type == WSMsgType.PING:
                    peer.pong(message.data)
                elif message.type == WSMsgType.BINARY:
                    peer.send(messages.error("send JSON in text frames", code="binary"))
        finally:
            keepalive.forget(peer)
            live.leave(peer)
            if peer.viewer is not None:  # a spectator's media connection ends with its socket
                await live.signal(None, {"op": "detach"}, peer.viewer)
            peer.close(1000, "")
            await writer
        return ws


class Refused(Exception):
    """A message refused at the edge: it never reaches the table."""

    def __init__(
        self,
        code: str,
        message: str,
        client_id: str | None = None,
        rule: str | None = None,
        params: dict[str, Any] | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.client_id = client_id
        self.rule = rule
        self.params = params or {}


async def _receive(
    live: TableActor, peer: SocketPeer, limiter: RateLimiter, resumes: RateLimiter, text: str
) -> None:
    """One text frame. Whatever it holds, the client gets an answer and this
    connection and the table go on: a refusal names what is wrong, and a bug
    of ours is logged here, answered `internal`, and never shown."""
    try:
        await _take(live, peer, limiter, resumes, text)
    except Refused as e:
        peer.send(_refusal(e))
    except Exception:
        log.exception(
            "table %d: a message from seat %s could not be handled", live.table_id, peer.seat
        )
        peer.send(messages.error(messages.INTERNAL, code="internal"))


def _ping(peer: SocketPeer, limiter: RateLimiter) -> None:
    """The web client's keep-alive, known by its exact text: a pong, with
    no parsing and no task, but counted like any message."""
    if limiter.hit("") is None:
        peer.send(messages.pong())
    else:
        peer.send(_refusal(_rate_limited()))


def _refusal(e: Refused) -> str:
    return messages.error(e.message, e.client_id, e.rule, e.code, e.params)


def _rate_limited() -> Refused:
    return Refused(
        "rate_limited",
        f"too many messages: at most {RATE.attempts} a second; this one was dropped",
        params={"per_second": RATE.attempts},
    )


def _parse(text: str) -> dict[str, Any]:
    size = len(text.encode(errors="surrogatepass"))
    if size > MAX_MEDIA_MESSAGE:
        raise Refused(
            "too_large",
            f"a message has at most {MAX_MESSAGE} bytes ({MAX_MEDIA_MESSAGE}"
            f" for media); this one has {size}",
            params={"max": MAX_MESSAGE, "max_media": MAX_MEDIA_MESSAGE, "size": size},
        )
    try:
        # orjson, not json: it refuses NaN, lone surrogates and nesting past
        # its own limit instead of recursing.
        message = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise Refused("bad_json", f"not valid JSON: {e}") from None
    if not isinstance(message, dict):
        raise Refused("not_object", "a message must be a JSON object")
    if _depth(message) > MAX_DEPTH:
        raise Refused(
            "too_deep",
            f"a message may nest objects and arrays at most {MAX_DEPTH} deep",
            params={"max": MAX_DEPTH},
        )
    if size > MAX_MESSAGE and message.get("type") != "media":
        raise Refused(
            "too_large",
            f"a message has at most {MAX_MESSAGE} bytes (only media"
            f" messages may have up to {MAX_MEDIA_MESSAGE}); this one has"
            f" {size}",
            params={"max": MAX_MESSAGE, "max_media": MAX_MEDIA_MESSAGE, "size": size},
        )
    return message


def _depth(value: Any) -> int:
    """How deep objects and arrays nest in `value` (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        elif not isinstance(value, list):
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_DEPTH:
            stack += [(item, depth + 1) for item in value]
    return deepest


def _client_id(message: dict[str, Any]) -> str:
    """The action's id: it is stored beside the record and echoed in every
    answer, so only printable text of a bounded length (no NUL, no lone
    surrogate, nothing a database or an encoder may refuse)."""
    client_id = message.get("id")
    if (
        not isinstance(client_id, str)
        or not 1 <= len(client_id) <= MAX_ID
        or not client_id.isprintable()
    ):
        raise Refused(
            "bad_id",
            f"an action needs an 'id': a string of 1 to {MAX_ID} printable"
            " characters, new for each action",
            params={"max": MAX_ID},
        )
    return client_id


async def _take(
    live: TableActor, peer: SocketPeer, limiter: RateLimiter, resumes: RateLimiter, text: str
) -> None:
    if limiter.hit("") is not None:
        raise _rate_limited()
    message = _parse(text)
    if "type" in message:
        await _control(live, peer, message, resumes)
        return
    client_id = _client_id(message)
    if peer.seat is None:
        raise Refused("spectator", "you are watching this table: spectators do not act", client_id)
    if "seat" in message and message["seat"] != peer.seat:
        raise Refused(
            "not_your_seat",
            f"you sit in seat {peer.seat}: you cannot act for seat {message['seat']!r}",
            client_id,
            params={"seat": peer.seat},
        )
    try:
        action = parse_action(message, seat=peer.seat)
    except IllegalAction as e:
        raise Refused(e.code, e.message, client_id, e.rule, e.params) from None
    live.act(peer, client_id, action)


async def _control(
    live: TableActor, peer: SocketPeer, message: dict[str, Any], resumes: RateLimiter
) -> None:
    kind = message["type"]
    if kind == "resume":
        last = message.get("last")
        if isinstance(last, bool) or not isinstance(last, int) or last < 0:
            raise Refused(
                "bad_resume",
                f"resume needs 'last': the number of the last event you"
                f" received (0 for none), got {last!r}",
            )
        wait = resumes.hit("")
        if wait is not None:
            raise Refused(
                "rate_limited",
                f"at most {RESUMES.attempts} resumes every"
                f" {RESUMES.seconds:g} seconds; try again in {wait:.1f} s",
                params={"retry_after": round(wait, 1)},
            )
        live.join(peer, last, hello=False)
    elif kind == "ping":
        peer.send(messages.pong())
    elif kind == "media":
        reply = await live.signal(peer.seat, message, peer.viewer)
        if reply is not None:
            peer.send(messages.media(reply))
    else:
        raise Refused(
            "unknown_type",
            f"unknown message type {kind!r}: resume, ping or media (an"
            " action has no type: it has 'do')",
        )
