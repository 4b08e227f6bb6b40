"""A finished game, told in full (docs/api.md, "Finished games"): who sat
where, the roles, the result, and every event of the game, night actions
and checks included. While a game is played each seat gets only what it
may see; once it is over nothing is hidden any more (docs/rules.md E4), so
its story is public, for the end screen and the game's page."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ..script import ScriptError, replay
from ..store import tables
from ..store.models import Game, GamePlayer
from ..table.events import Event
from ..table.views import told
from .keys import DB
from .params import path_id
from .wire import ApiError

routes = web.RouteTableDef()


def _events(record: list[str]) -> list[dict[str, Any]]:
    """Every event the record replays to, also those no seat saw while the
    game was on (a city death's cause, M11), but never `views.NEVER_TOLD`."""
    played: list[Event] = []
    replay("\n".join(record), played.append)
    return [e.to_dict() for e in told(played)]


async def _story(s: AsyncSession, game: Game | None, what: str) -> dict[str, Any]:
    if game is None:
        raise ApiError(404, f"no finished {what}")
    table = await tables.get_table(s, game.table_id)
    assert table is not None  # a game's table is never deleted
    names = {seat.seat: seat.user.username if seat.user else None for seat in table.seats}
    players = (
        (
            await s.execute(
                select(GamePlayer).where(GamePlayer.game_id == game.id).order_by(GamePlayer.seat)
            )
        )
        .scalars()
        .all()
    )
    try:
        events = _events(await tables.read_record(s, game.table_id))
    except ScriptError:
        events = []  # a record that no longer replays: the result alone
    return {
        "game": {
            "id": game.id,
            "table": game.table_id,
            "ruleset": table.ruleset,
            "settings": tables.game_settings(table),
            "winner": game.winner,
            "reason": game.reason,
            "ranked": game.ranked,
            "ended_at": game.ended_at.isoformat(),
            "players": [
                {
                    "seat": p.seat,
                    "user": names.get(p.seat),
                    "bot": p.user_id is None,
                    "role": p.role,
                    "result": p.result,
                }
                for p in players
            ],
            "events": events,
        }
    }


@routes.get("/api/games/{game_id}")
async def game_story(request: web.Request) -> web.Response:
    game_id = path_id(request, "game_id", "game")
    async with request.app[DB].begin() as s:
        body = await _story(s, await s.get(Game, game_id), f"game {game_id}")
    return web.json_response(body)


@routes.get("/api/tables/{table_id}/game")
async def table_game_story(request: web.Request) -> web.Response:
    table_id = path_id(request, "table_id", "table")
    async with request.app[DB].begin() as s:
        game = await s.scalar(select(Game).where(Game.table_id == table_id))
        body = await _story(s, game, f"game at table {table_id}")
    return web.json_response(body)
