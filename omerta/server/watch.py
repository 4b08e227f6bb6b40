"""Watching tables (issue 19; docs/api.md, "Watching"): who may open a live
table's socket as a spectator, the delayed full-reveal stream's socket, and
a finished game's replay.

A spectator's socket is the table socket (table_ws.py) with seat None: the
engine's spectator view and stream. The stream's socket gets everything,
but only once the table's delay has passed (runtime/spectators.py); a
seated player never gets it. A replay is a finished game's record told
again, step by step, as one seat saw it or in full: nothing of a game
that is still on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import orjson
from aiohttp import WSMsgType, web

from ..runtime import messages
from ..runtime.actor import GAME_OVER
from ..runtime.spectators import stream_events
from ..script import Player, ScriptError, parse
from ..store import tables
from ..store.models import Game
from ..table.views import reveal
from .auth import current_user
from .clients import socket_slot
from .keys import CONFIG, DB, KEEPALIVE, TABLES
from .params import path_id, query_int, table_id_of
from .replays import frames
from .table_ws import MAX_FRAME, SocketPeer, _check_origin
from .watchers import BROADCASTS, Broadcasts, watch_settings, watcher_slot
from .wire import ApiError

routes = web.RouteTableDef()
#: The longest message a stream viewer sends that is read (a ping); the rest are ignored.
MAX_PING = 64
#: The most seats a table has (city mode: 12); a larger `seat` is refused.
MAX_SEATS = 12


def setup(app: web.Application) -> None:
    """The streams' registry, its end with the app, and the routes."""
    app[BROADCASTS] = Broadcasts(
        app[CONFIG].limits.spectators_per_table,
        lambda table_id: app[TABLES].table(table_id) is not None,
    )
    app.cleanup_ctx.append(_streams)
    app.router.add_routes(routes)


async def _streams(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[BROADCASTS].close()


@routes.get("/api/games/{game_id}/replay")
async def replay(request: web.Request) -> web.Response:
    """A finished game step by step (replays.py): `?seat=N` as seat N saw
    it, without it in full. A game exists only once its table is finished,
    so nothing of a game being played is ever told here."""
    game_id = path_id(request, "game_id", "game")
    seat = query_int(request, "seat", None, 1, MAX_SEATS)
    async with request.app[DB].begin() as s:
        game = await s.get(Game, game_id)
        if game is None:
            raise ApiError(404, f"no finished game {game_id}")
        table = await tables.get_table(s, game.table_id)
        assert table is not None and table.status == "finished"  # a game's table is kept
        record = "\n".join(await tables.read_record(s, game.table_id))
    try:
        told = await asyncio.to_thread(frames, record, seat)
    except ValueError as e:  # a seat the game did not have
        raise ApiError(400, str(e)) from None
    except ScriptError as e:
        raise ApiError(409, f"the record of game {game_id} no longer replays: {e}") from None
    body = {
        "replay": {
            "game": game.id,
            "table": table.id,
            "ruleset": table.ruleset,
            "winner": game.winner,
            "reason": game.reason,
            "seats": [
                {"seat": q.seat, "user": q.user.username if q.user else None, "bot": q.is_bot}
                for q in table.seats
            ],
            **told,
        }
    }
    response = web.json_response(body)
    response.enable_compression()
    return response


@routes.get("/api/tables/{table_id}/stream")
async def stream_socket(request: web.Request) -> web.StreamResponse:
    """The delayed stream: every card and night action, each step only once
    the table's delay has passed since it."""
    table_id = table_id_of(request)
    _check_origin(request)
    user = await current_user(request)
    table, settings = await watch_settings(request, table_id)
    if not settings.stream:
        raise ApiError(403, f"table {table_id} is not streamed")
    if user is None and settings.spectators != "anyone":
        raise ApiError(401, "sign in first (POST /api/login): this table is watched signed in")
    if user is not None and any(seat.user_id == user.id for seat in table.seats):
        raise ApiError(403, "you play at this table: its stream is for those who do not")
    broadcasts = request.app[BROADCASTS]
    broadcast = broadcasts.get(table_id)
    live = request.app[TABLES].table(table_id)
    if broadcast is None and live is not None:
        broadcast = broadcasts.start(live, settings.stream_delay)
    if broadcast is None:
        if table.status != "finished":
            raise ApiError(409, f"table {table_id} is {table.status}: it has no stream")
        return await _finished_stream(request, table_id, settings.stream_delay)
    with (
        socket_slot(request, user.id if user else None),
        watcher_slot(request, table_id),
    ):
        ws = web.WebSocketResponse(autoping=False, max_msg_size=MAX_FRAME, compress=False)
        await ws.prepare(request)
        peer = SocketPeer(ws, None)
        writer = asyncio.create_task(peer.write())
        broadcast.join(peer)
        broadcasts.counted(table_id)
        keepalive = request.app[KEEPALIVE]
        keepalive.watch(peer)
        clock = asyncio.get_running_loop().time
        try:
            async for message in ws:  # viewers only listen; a ping is answered
                peer.heard = clock()
                if message.type == WSMsgType.TEXT and _is_ping(message.data):
                    peer.send(messages.pong())
                elif message.type == WSMsgType.PING:
                    peer.pong(message.data)
        finally:
            keepalive.forget(peer)
            broadcast.leave(peer)
            broadcasts.counted(table_id)
            peer.close(1000, "")
            await writer
        return ws


def _is_ping(text: str) -> bool:
    if len(text) > MAX_PING:
        return False
    try:
        message = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return isinstance(message, dict) and message.get("type") == "ping"


async def _finished_stream(
    request: web.Request, table_id: int, delay: float
) -> web.WebSocketResponse:
    """A finished game's stream: the whole game at once (E4: nothing is hidden any more)."""
    played = await _played(request, table_id)
    ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, compress=False)
    await ws.prepare(request)
    await ws.send_str(messages.stream_hello(table_id, delay))
    told = stream_events(played.events)
    for seq, text in enumerate(told, 1):
        await ws.send_str(messages.event(seq, text))
    state = played.state
    await ws.send_str(messages.view(len(told), state.now, None, messages.view_json(reveal(state))))
    await ws.close(code=GAME_OVER, message=b"the game is over")
    return ws


async def _played(request: web.Request, table_id: int) -> Player:
    """A finished table's record, played again."""
    async with request.app[DB].begin() as s:
        table = await tables.get_table(s, table_id)
        if table is None:
            raise ApiError(404, f"no table {table_id}")
        if table.status != "finished":
            raise ApiError(409, f"table {table_id} is {table.status}: only a finished game replays")
        lines = await tables.read_record_lines(s, table_id)
    try:
        script = parse("\n".join(line.text for line in lines))
        player = Player(script.header)
        for line in script.lines:
            player.play(line)
    except ScriptError as e:
        raise ApiError(409, f"the record of table {table_id} no longer replays: {e}") from None
    return player
