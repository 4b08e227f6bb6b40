"""The lobby: open tables, creating one, sitting down and standing up, bots.

The engine decides what is legal at a table (settings, seat count,
rankedness); the lobby only keeps seats. When the last seat is taken the
table starts by itself (C3): seats are numbered at random (C1), the table
is marked playing, and the runtime takes it from there."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession

from .. import rulesets
from ..moderation import sanctions
from ..runtime.spectators import WatchSettings
from ..store import Database, tables, users
from ..store.games import history
from ..store.models import GameTable
from ..table.errors import BadSettings
from .auth import require_user
from .keys import BOT_GAMES, CONFIG, DB, TABLES, TABLES_CREATED
from .params import MAX_ID, MAX_PER_PAGE, query_int, table_id_of
from .ratelimit import check
from .wire import ApiError, history_json, read_body, table_json

# Seeds stay exact as JSON numbers for any reader of a record (JavaScript: 2**53).
SEED_LIMIT = 2**53
#: Open tables on one page of the lobby list, unless the client asks for fewer or more.
LOBBY_PAGE = 50
# The creator of the demo table: not a name anyone can register.
DEMO_USER = "omerta-demo"
T = TypeVar("T")

routes = web.RouteTableDef()


def _reply(table: GameTable, status: int = 200) -> web.Response:
    return web.json_response({"table": table_json(table)}, status=status)


@routes.get("/api/tables")
async def list_open(request: web.Request) -> web.Response:
    """Open tables, oldest first, a page at a time: `limit` of them (50 by
    default) after table `cursor`; `next` is the cursor of the next page."""
    limit = query_int(request, "limit", LOBBY_PAGE, 1, MAX_PER_PAGE)
    after = query_int(request, "cursor", 0, 0, MAX_ID)
    assert limit is not None and after is not None
    async with request.app[DB].begin() as s:
        found = await tables.tables_with_status(s, "open", after, limit + 1)
    shown = found[:limit]
    more = len(found) > limit
    return web.json_response(
        {"tables": [table_json(t) for t in shown], "next": str(shown[-1].id) if more else None}
    )


@routes.get("/api/tables/{table_id}")
async def show(request: web.Request) -> web.Response:
    table_id = table_id_of(request)
    async with request.app[DB].begin() as s:
        table = await tables.get_table(s, table_id)
    if table is None:
        raise ApiError(404, f"no table {table_id}")
    return _reply(table)


def _parse_settings(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(ruleset, settings with every default filled in), as the engine
    validates them. The ruleset may be given on its own or among the
    settings (docs/rules.md §3 lists it as one)."""
    raw = body.get("settings", {})
    if not isinstance(raw, dict):
        raise ApiError(400, "field 'settings' must be a JSON object", rule="§3")
    name = body.get("ruleset", raw.get("ruleset", "classic"))
    try:
        rules = rulesets.get(name)
        return rules.name, rules.parse_settings(raw).to_dict()
    except BadSettings as e:
        raise ApiError(400, str(e), rule="§3") from None


@routes.post("/api/tables")
async def create(request: web.Request) -> web.Response:
    user = await require_user(request)
    body = await read_body(request)
    ruleset, settings = _parse_settings(body)
    try:  # who may watch and the stream, beside the engine's settings (watch.py)
        settings[tables.WATCH] = WatchSettings.parse(body.get("watch")).to_dict()
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    limits = request.app[CONFIG].limits
    async with request.app[DB].begin() as s:
        if why := await sanctions.creation_refusal(s, user.id, ruleset, settings):
            raise ApiError(403, why)
        if await tables.open_tables_of(s, user.id) >= limits.open_tables_per_account:
            raise ApiError(
                429,
                f"you already have {limits.open_tables_per_account} open tables:"
                " start or wait for one of them before creating another",
            )
        check(request.app[TABLES_CREATED], f"user:{user.id}", "tables created by you")
        table_id = await tables.create_table(
            s, user.id, ruleset, settings, table_seed(request.app[CONFIG].rng)
        )
        table = await tables.get_table(s, table_id)
    assert table is not None
    return _reply(table, 201)


async def _open_table(s: AsyncSession, table_id: int) -> GameTable:
    """The table, locked against other seat changes, if seats may still change."""
    table = await tables.get_table(s, table_id, lock=True)
    if table is None:
        raise ApiError(404, f"no table {table_id}")
    if table.status != "open":
        raise ApiError(
            409,
            f"table {table_id} is {table.status}: seats change only before the game starts",
            rule="C3",
        )
    return table


def table_seed(rng: random.Random) -> int:
    """A new table's seed, drawn from the server's generator (`Config.rng`)."""
    return rng.randrange(SEED_LIMIT)


def seat_order(rng: random.Random, seats: Sequence[T]) -> list[T]:
    """The seats taken before the start (in seat order), in the order they
    become seats 1, 2, ... (C1). Not from the table's seed: the engine deals
    from it, and the same shuffle of seats and cards would hand each arrival
    a role by arrival order."""
    return rng.sample(seats, len(seats))


async def _start_if_full(
    s: AsyncSession, table_id: int, rng: random.Random
) -> tuple[GameTable, bool]:
    """The table as it is now, and whether this call started it."""
    table = await tables.get_table(s, table_id)
    assert table is not None
    rules = rulesets.get(table.ruleset)
    if len(table.seats) < rules.seat_count(rules.parse_settings(tables.game_settings(table))):
        return table, False
    # Nobody a sanction keeps from this table plays at it, whenever it was given.
    barred = [
        seat.user_id
        for seat in table.seats
        if seat.user_id is not None and await sanctions.refusal(s, seat.user_id, table)
    ]
    if barred:
        for user_id in barred:
            await tables.remove_seat(s, table_id, user_id)
        return await _start_if_full(s, table_id, rng)
    await tables.start_table(s, table, seat_order(rng, table.seats))
    started = await tables.get_table(s, table_id)
    assert started is not None
    return started, True


async def _started(request: web.Request, table: GameTable) -> None:
    """After the commit that filled `table`: hand it to the runtime."""
    await request.app[TABLES].start(table.id)
    if request.app[CONFIG].demo:
        await ensure_demo_table(request.app[DB], request.app[CONFIG].rng)


@routes.post("/api/tables/{table_id}/sit")
async def sit(request: web.Request) -> web.Response:
    user = await require_user(request)
    table_id = table_id_of(request)
    try:
        async with request.app[DB].begin() as s:
            table = await _open_table(s, table_id)
            if why := await sanctions.refusal(s, user.id, table):  # suspended or banned
                raise ApiError(403, why)
            _refuse_second_seat(table_id, await tables.seated_at(s, user.id))
            await tables.add_seats(s, table, [user.id])
            table, started = await _start_if_full(s, table_id, request.app[CONFIG].rng)
    except tables.AlreadySeated:  # a concurrent request seated this player first
        async with request.app[DB].begin() as s:
            elsewhere = await tables.seated_at(s, user.id)
        _refuse_second_seat(table_id, elsewhere)
        raise ApiError(409, "you just stood up elsewhere; try again") from None
    if started:
        await _started(request, table)
    return _reply(table)


def _refuse_second_seat(table_id: int, elsewhere: int | None) -> None:
    """A player sits at one live table at a time; the database enforces it
    (seats' one-live-seat index), this says where they sit."""
    if elsewhere == table_id:
        raise ApiError(409, f"you already sit at table {table_id}")
    if elsewhere is not None:
        raise ApiError(409, f"you already sit at table {elsewhere}; stand up there first")


@routes.post("/api/tables/{table_id}/stand")
async def stand(request: web.Request) -> web.Response:
    user = await require_user(request)
    table_id = table_id_of(request)
    async with request.app[DB].begin() as s:
        await _open_table(s, table_id)
        if not await tables.remove_seat(s, table_id, user.id):
            raise ApiError(409, f"you do not sit at table {table_id}")
        table = await tables.get_table(s, table_id)
    assert table is not None
    return _reply(table)


@routes.post("/api/tables/{table_id}/bots")
async def fill_with_bots(request: web.Request) -> web.Response:
    user = await require_user(request)
    table_id = table_id_of(request)
    async with request.app[DB].begin() as s:
        table = await _open_table(s, table_id)
        if table.creator_id != user.id:
            raise ApiError(403, f"only the creator of table {table_id} may seat bots")
        if why := await sanctions.ban_refusal(s, user.id):
            raise ApiError(403, why)  # banned since creating it: starts no game either
        check(request.app[BOT_GAMES], f"user:{user.id}", "games with bots started by you")
        await _fill(s, table)
        table, started = await _start_if_full(s, table_id, request.app[CONFIG].rng)
    if started:
        await _started(request, table)
    return _reply(table)


async def _fill(s: AsyncSession, table: GameTable, leave_free: int = 0) -> None:
    rules = rulesets.get(table.ruleset)
    empty = rules.seat_count(rules.parse_settings(tables.game_settings(table))) - len(table.seats)
    await tables.add_seats(s, table, [None] * (empty - leave_free))


@routes.get("/api/me/games")
async def my_games(request: web.Request) -> web.Response:
    user = await require_user(request)
    async with request.app[DB].begin() as s:
        entries = await history(s, user.id)
    return web.json_response({"games": [history_json(e) for e in entries]})


async def ensure_demo_table(db: Database, rng: random.Random) -> None:
    """`--demo`: keep one open table with bots in every seat but one, so a
    visitor who sits down starts a game at once."""
    async with db.begin() as s:
        demo = await users.user_by_name(s, DEMO_USER)
        if demo is None:
            # "!" is no argon2 hash: nobody can log in as the demo user.
            demo = await users.add_user(s, DEMO_USER, "!")
        if any(t.creator_id == demo.id for t in await tables.tables_with_status(s, "open")):
            return
        ruleset, settings = _parse_settings({})
        table_id = await tables.create_table(s, demo.id, ruleset, settings, table_seed(rng))
        table = await tables.get_table(s, table_id, lock=True)
        assert table is not None
        await _fill(s, table, leave_free=1)
