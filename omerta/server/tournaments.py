"""Tournaments over HTTP (docs/api.md, docs/tournaments.md): directors
create them, generate the schedule, swap and replace players before a
round; players register and check in; everyone reads the schedule, live
tables, results and standings, and exports them as CSV or JSON.

The round starter (`round_starter`, an app cleanup context) starts each
round's tables together at the round's time: a timer in the server, woken
early when a director changes a tournament."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession

from ..store import tables, users
from ..store import tournaments as store
from ..store.db import database_down
from ..store.models import Tournament, TournamentRound, User, utcnow
from ..table.errors import BadSettings
from ..tournament import rounds as service
from ..tournament import seating
from ..tournament.scoring import BadScoring, Scoring, Standing, game_points
from .auth import current_user, require_user
from .keys import CONFIG, DB, TABLES
from .params import body_id, path_id, strict_int
from .wire import ApiError, read_body, text_field

log = logging.getLogger(__name__)
routes = web.RouteTableDef()

#: set to wake the round starter at once (a schedule or a start time changed)
ROUNDS_WAKE = web.AppKey("tournament_rounds_wake", asyncio.Event)
#: the round starter looks again at least this often (another server
#: process may have scheduled a round)
LOOK_AGAIN = 30.0
NAME_MAX = 80
#: the furthest ahead a round may be set, and the longest gap between rounds
HORIZON = timedelta(days=366)


@asynccontextmanager
async def _transaction(request: web.Request) -> AsyncIterator[AsyncSession]:
    try:
        async with request.app[DB].begin() as s:
            yield s
    except service.Refused as e:
        raise ApiError(e.status, e.message) from None


async def _tournament(s: AsyncSession, request: web.Request, *, lock: bool = False) -> Tournament:
    tournament_id = path_id(request, "tournament_id", "tournament")
    t = await store.get(s, tournament_id, lock=lock)
    if t is None:
        raise ApiError(404, f"no tournament {tournament_id}")
    return t


def _director_of(user: User, t: Tournament) -> None:
    if t.director_id != user.id:
        raise ApiError(403, f"only the director of tournament {t.id} may do this")


async def _require_director(request: web.Request) -> User:
    user = await require_user(request)
    if not user.is_director:
        raise ApiError(403, "only directors may create tournaments (ask the server operator)")
    return user


def _wake(request: web.Request) -> None:
    wake = request.app.get(ROUNDS_WAKE)
    if wake is not None:
        wake.set()


# --- Reading --------------------------------------------------------------------


def _summary(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "director_id": t.director_id,
        "status": t.status,
        "rounds": t.rounds,
        "tables": t.tables_per_round,
        "created_at": t.created_at.isoformat(),
    }


def _standing_json(row: Standing, names: dict[int, str]) -> dict[str, Any]:
    return {**row.to_dict(), "username": names.get(row.player, "")}


@routes.get("/api/tournaments")
async def list_tournaments(request: web.Request) -> web.Response:
    user = await current_user(request)
    async with request.app[DB].begin() as s:
        found = await store.listing(s)
    return web.json_response(
        {
            "tournaments": [_summary(t) for t in found],
            "can_direct": bool(user and user.is_director),
        }
    )


async def _full(s: AsyncSession, t: Tournament, user: User | None) -> dict[str, Any]:
    entrants = await store.players(s, t.id)
    round_rows = await store.rounds(s, t.id)
    table_rows = await store.round_tables(s, t.id)
    results = await service.results(s, t)
    seat_ids = {u for row in table_rows for u in row.seats if u is not None}
    names = await store.user_names(s, sorted(seat_ids | {e.user_id for e in entrants}))
    statuses = await store.table_statuses(s, [r.table_id for r in table_rows if r.table_id])
    games = {row.table_id: (game, o) for row, game, o in results.games}
    scoring = Scoring.parse(t.scoring)

    def table_json(row: Any) -> dict[str, Any]:
        game = games.get(row.table_id)
        points = {}
        if game is not None:
            points = {p.seat: p.to_dict() for p in game_points(game[1], scoring)}
        return {
            "number": row.number,
            "table_id": row.table_id,
            "status": statuses.get(row.table_id, "scheduled"),
            "winner": game[0].winner if game else None,
            "seats": [
                {
                    "seat": seat,
                    "user_id": u,
                    "username": names.get(u) if u is not None else None,
                    "absent": seat in row.absent,
                    "points": points.get(seat),
                }
                for seat, u in enumerate(row.seats, start=1)
            ],
        }

    me = None
    if user is not None:
        mine = next((e for e in entrants if e.user_id == user.id), None)
        me = {
            "user_id": user.id,
            "registered": mine is not None,
            "checked_in": bool(mine and mine.checked_in),
            "director": t.director_id == user.id,
            "seats": [
                {"round": row.round, "table": row.number, "seat": row.seats.index(user.id) + 1}
                for row in table_rows
                if user.id in row.seats
            ],
        }
    return {
        **_summary(t),
        "director": await _name(s, t.director_id),
        "settings": t.settings,
        "scoring": scoring.to_dict(),
        "seed": t.seed,
        "players": [
            {
                "user_id": e.user_id,
                "username": e.username,
                "number": e.number,
                "invited": e.invited,
                "checked_in": e.checked_in,
            }
            for e in entrants
        ],
        "schedule": [
            {
                "number": r.number,
                "starts_at": r.starts_at.isoformat(),
                "started_at": r.started_at.isoformat() if r.started_at else None,
                "tables": [table_json(row) for row in table_rows if row.round == r.number],
            }
            for r in round_rows
        ],
        "measures": seating.measures(service.schedule_of(t)) if t.schedule else None,
        "standings": [_standing_json(row, names) for row in results.standings],
        "me": me,
    }


async def _name(s: AsyncSession, user_id: int) -> str:
    return (await store.user_names(s, [user_id])).get(user_id, "")


@routes.get("/api/tournaments/{tournament_id}")
async def show(request: web.Request) -> web.Response:
    user = await current_user(request)
    async with _transaction(request) as s:
        t = await _tournament(s, request)
        body = await _full(s, t, user)
    return web.json_response({"tournament": body})


@routes.get("/api/tournaments/{tournament_id}/standings")
async def show_standings(request: web.Request) -> web.Response:
    """Standings after each finished round, and now."""
    async with _transaction(request) as s:
        t = await _tournament(s, request)
        results = await service.results(s, t)
        names = await store.user_names(s, [row.player for row in results.standings])
    return web.json_response(
        {
            "standings": [_standing_json(r, names) for r in results.standings],
            "by_round": [[_standing_json(r, names) for r in rnd] for rnd in results.by_round],
        }
    )


@routes.get("/api/tournaments/{tournament_id}/export.json")
async def export_json(request: web.Request) -> web.Response:
    async with _transaction(request) as s:
        t = await _tournament(s, request)
        body = await _full(s, t, None)
    body.pop("me")
    return web.json_response(
        {"tournament": body},
        headers={"Content-Disposition": f'attachment; filename="tournament-{t.id}.json"'},
    )


CSV_HEADER = [
    "round",
    "table",
    "table_id",
    "seat",
    "user_id",
    "username",
    "absent",
    "winner",
    "won",
    "win",
    "best_move",
    "removal",
    "technical_defeat",
    "first_killed",
    "total",
]


@routes.get("/api/tournaments/{tournament_id}/export.csv")
async def export_csv(request: web.Request) -> web.Response:
    """One line per scheduled seat of every round; points once the game ended."""
    async with _transaction(request) as s:
        t = await _tournament(s, request)
        body = await _full(s, t, None)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for rnd in body["schedule"]:
        for table in rnd["tables"]:
            for seat in table["seats"]:
                points = seat["points"] or {}
                writer.writerow(
                    [
                        rnd["number"],
                        table["number"],
                        table["table_id"] or "",
                        seat["seat"],
                        seat["user_id"] if seat["user_id"] is not None else "",
                        _csv_text(seat["username"] or ""),
                        int(seat["absent"]),
                        table["winner"] or "",
                        int(points["won"]) if points else "",
                        *(
                            points.get(k, "")
                            for k in (
                                "win",
                                "best_move",
                                "removal",
                                "technical_defeat",
                                "first_killed",
                                "total",
                            )
                        ),
                    ]
                )
    return web.Response(
        text=out.getvalue(),
        content_type="text/csv",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="tournament-{t.id}.csv"'},
    )


def _csv_text(text: str) -> str:
    """A spreadsheet must not read a cell as a formula (usernames are
    letters, digits and underscores today; this keeps it so)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


# --- Directors -------------------------------------------------------------------


def _when(value: object, name: str) -> datetime:
    if not isinstance(value, str):
        raise ApiError(400, f"field {name!r} must be an ISO 8601 time with its zone")
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        raise ApiError(400, f"field {name!r} is not an ISO 8601 time: {value[:40]!r}") from None
    if at.tzinfo is None:
        raise ApiError(400, f"field {name!r} needs a zone (e.g. Z or +02:00)")
    try:
        at = at.astimezone(UTC)
    except OverflowError:
        raise ApiError(400, f"field {name!r} is out of range") from None
    if at > utcnow() + HORIZON:
        raise ApiError(400, "a tournament's last round starts within a year")
    return at


def _count(body: dict[str, Any], name: str, low: int, high: int) -> int:
    value = body.get(name)
    if not strict_int(value) or not low <= value <= high:
        raise ApiError(400, f"field {name!r} must be a whole number from {low} to {high}")
    return value


def _start_times(body: dict[str, Any], rounds: int) -> list[datetime]:
    """Either `starts` (one time per round) or `start` and `every_minutes`."""
    now = utcnow()
    if "starts" in body:
        raw = body["starts"]
        if not isinstance(raw, list) or len(raw) != rounds:
            raise ApiError(400, f"field 'starts' must be a list of {rounds} times, one a round")
        times = [_when(v, "starts") for v in raw]
    else:
        first = _when(body.get("start"), "start")
        every = _count(body, "every_minutes", 1, 24 * 60)
        times = [first + timedelta(minutes=every * r) for r in range(rounds)]
    if any(b < a for a, b in zip(times, times[1:])):
        raise ApiError(400, "the rounds' start times must not go back in time")
    if times[-1] > now + HORIZON:
        raise ApiError(400, "a tournament's last round starts within a year")
    return times


@routes.post("/api/tournaments")
async def create(request: web.Request) -> web.Response:
    user = await _require_director(request)
    body = await read_body(request)
    name = text_field(body, "name").strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise ApiError(400, f"a tournament's name is 1 to {NAME_MAX} characters")
    rounds = _count(body, "rounds", 1, service.MAX_ROUNDS)
    tables_per_round = _count(body, "tables", 1, service.MAX_TABLES)
    times = _start_times(body, rounds)
    try:
        settings = service.settings_for(body.get("settings"))
        scoring = Scoring.parse(body.get("scoring"))
    except service.Refused as e:
        raise ApiError(e.status, e.message, rule="§3") from None
    except BadSettings as e:
        raise ApiError(400, str(e), rule="§3") from None
    except BadScoring as e:
        raise ApiError(400, str(e)) from None
    seed = body.get("seed")
    if seed is None:
        seed = request.app[CONFIG].rng.randrange(service.SEED_LIMIT)
    elif not strict_int(seed) or not 0 <= seed < service.SEED_LIMIT:
        raise ApiError(
            400, f"field 'seed' must be a whole number from 0 to {service.SEED_LIMIT - 1}"
        )
    async with _transaction(request) as s:
        t = Tournament(
            name=name,
            director_id=user.id,
            ruleset=service.RULESET,
            settings=settings,
            scoring=scoring.to_dict(),
            rounds=rounds,
            tables_per_round=tables_per_round,
            seed=seed,
            status="registration",
        )
        s.add(t)
        await s.flush()
        for number, at in enumerate(times, start=1):
            s.add(TournamentRound(tournament_id=t.id, number=number, starts_at=at))
        await s.flush()
        body_out = await _full(s, t, user)
    return web.json_response({"tournament": body_out}, status=201)


async def _directed(
    request: web.Request,
    act: Callable[[AsyncSession, Tournament, User, dict[str, Any]], Awaitable[Any]],
    *,
    moderators: bool = False,
) -> web.Response:
    """Run `act` on the locked tournament for its director (or a moderator
    when `moderators`); answer with the tournament and what `act` returned."""
    user = await require_user(request)
    body = await read_body(request)
    async with _transaction(request) as s:
        t = await _tournament(s, request, lock=True)
        if not (moderators and user.is_moderator):
            _director_of(user, t)
        extra = await act(s, t, user, body)
        await s.flush()
        out = await _full(s, t, user)
    _wake(request)
    return web.json_response({"tournament": out, **(extra or {})})


async def _user_field(s: AsyncSession, body: dict[str, Any], name: str) -> int:
    value = body_id(body, name, "user", required=True)
    assert value is not None
    if await s.get(User, value) is None:
        raise ApiError(404, f"no user {value}")
    return value


@routes.post("/api/tournaments/{tournament_id}/invite")
async def invite(request: web.Request) -> web.Response:
    async def act(s: AsyncSession, t: Tournament, user: User, body: dict[str, Any]) -> None:
        invited = await users.user_by_name(s, text_field(body, "username"))
        if invited is None:
            raise ApiError(404, "no user by that name")
        await service.admit(s, t, invited.id, user.id)

    return await _directed(request, act)


@routes.post("/api/tournaments/{tournament_id}/schedule")
async def generate(request: web.Request) -> web.Response:
    async def act(s: AsyncSession, t: Tournament, user: User, body: dict[str, Any]) -> None:
        await service.generate(s, t)

    return await _directed(request, act)


def _round_field(body: dict[str, Any], t: Tournament) -> int:
    return _count(body, "round", 1, t.rounds)


@routes.post("/api/tournaments/{tournament_id}/swap")
async def swap(request: web.Request) -> web.Response:
    """`{"round", "a", "b", "apply"}`: what swapping players a and b (user
    ids) in that round costs; with `"apply": true` it is done."""

    async def act(
        s: AsyncSession, t: Tournament, user: User, body: dict[str, Any]
    ) -> dict[str, Any]:
        apply = body.get("apply", False)
        if not isinstance(apply, bool):
            raise ApiError(400, "field 'apply' must be true or false")
        round = _round_field(body, t)
        a, b = await _user_field(s, body, "a"), await _user_field(s, body, "b")
        cost = await service.swap(s, t, round, a, b, apply)
        return {"cost": cost, "applied": apply}

    return await _directed(request, act)


@routes.post("/api/tournaments/{tournament_id}/replace")
async def replace(request: web.Request) -> web.Response:
    """`{"round", "player", "by"}`: before the round, user `by` (null: a bot)
    plays the seat of `player`. Directors of the tournament and moderators."""

    async def act(s: AsyncSession, t: Tournament, user: User, body: dict[str, Any]) -> None:
        round = _round_field(body, t)
        player = await _user_field(s, body, "player")
        by = None if body.get("by") is None else await _user_field(s, body, "by")
        await service.replace(s, t, round, player, by)

    return await _directed(request, act, moderators=True)


@routes.post("/api/tournaments/{tournament_id}/rounds/{round}/start")
async def start_now(request: web.Request) -> web.Response:
    """The director starts a round now instead of at its time."""
    number = path_id(request, "round", "round")

    async def act(s: AsyncSession, t: Tournament, user: User, body: dict[str, Any]) -> None:
        if t.status not in ("scheduled", "running"):
            raise ApiError(409, f"tournament {t.id} is {t.status}: generate the schedule first")
        found = await s.get(TournamentRound, (t.id, number))
        if found is None or found.started_at is not None:
            raise ApiError(409, f"round {number} does not wait to start")
        found.starts_at = min(found.starts_at, utcnow())

    return await _directed(request, act)


# --- Players --------------------------------------------------------------------


@routes.post("/api/tournaments/{tournament_id}/register")
async def register(request: web.Request) -> web.Response:
    user = await require_user(request)
    async with _transaction(request) as s:
        t = await _tournament(s, request, lock=True)
        await service.admit(s, t, user.id, None)
        out = await _full(s, t, user)
    return web.json_response({"tournament": out})


@routes.post("/api/tournaments/{tournament_id}/withdraw")
async def withdraw(request: web.Request) -> web.Response:
    user = await require_user(request)
    async with _transaction(request) as s:
        t = await _tournament(s, request, lock=True)
        if t.status != "registration":
            raise ApiError(409, f"tournament {t.id} is {t.status}: ask the director to replace you")
        row = await store.entrant(s, t.id, user.id)
        if row is None:
            raise ApiError(409, f"you are not registered for tournament {t.id}")
        await s.delete(row)
        await s.flush()
        out = await _full(s, t, user)
    return web.json_response({"tournament": out})


@routes.post("/api/tournaments/{tournament_id}/checkin")
async def check_in(request: web.Request) -> web.Response:
    user = await require_user(request)
    async with _transaction(request) as s:
        t = await _tournament(s, request, lock=True)
        await service.check_in(s, t, user.id)
        await s.flush()
        out = await _full(s, t, user)
    return web.json_response({"tournament": out})


# --- The round starter ----------------------------------------------------------


async def start_due_rounds(app: web.Application) -> float:
    """Start every round that is due; returns the seconds until the next
    one (at most LOOK_AGAIN)."""
    db, config = app[DB], app[CONFIG]
    now = utcnow()
    async with db.begin() as s:
        due = await store.due_rounds(s, now)
    for tournament_id, number in due:
        try:
            async with db.begin() as s:
                t = await store.get(s, tournament_id, lock=True)
                assert t is not None
                started = await service.start_round(s, t, number, config.rng, now)
        except service.Refused:
            continue  # started meanwhile by another process
        except tables.AlreadySeated:
            log.warning(
                "tournament %d round %d: a player sat down elsewhere; retrying",
                tournament_id,
                number,
            )
            return 0.2
        log.info("tournament %d round %d: tables %s started", tournament_id, number, started)
        for table_id in started:
            await app[TABLES].start(table_id)
    # A table that ended without a game (abandoned) runs no game-end hook:
    # the last round's end is also looked for here.
    async with db.begin() as s:
        for tournament_id in await store.running_with_every_round_started(s):
            await service.finish_if_over(s, tournament_id)
        next_at = await store.next_start(s)
    if next_at is None:
        return LOOK_AGAIN
    return min(LOOK_AGAIN, max(0.0, (next_at - utcnow()).total_seconds()))


async def _run_rounds(app: web.Application, wake: asyncio.Event, stopping: asyncio.Event) -> None:
    while not stopping.is_set():
        wake.clear()
        try:
            delay = await start_due_rounds(app)
        except Exception as e:
            if not database_down(e):
                log.exception("the tournament round starter failed; trying again in a second")
            else:
                # The database's outage is reported once by whoever serves
                # requests; the starter only waits it out.
                log.warning("the tournament round starter waits for the database: %s", e)
            delay = 1.0
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await wake.wait()


async def round_starter(app: web.Application) -> AsyncIterator[None]:
    """An app cleanup context, after the one that opens the database."""
    wake = asyncio.Event()
    app[ROUNDS_WAKE] = wake
    stopping = asyncio.Event()
    task = asyncio.create_task(_run_rounds(app, wake, stopping))
    try:
        yield
    finally:
        # Stopped between two looks, never cancelled inside one: a cancelled
        # SQLite query leaves its connection's close pending for ever, and
        # asyncio.run then never returns (the server hung at its exit).
        stopping.set()
        wake.set()
        await task
