"""Moderation over HTTP: players report games; moderators review the
queue, decide cases, sanction players and read the audit log.

Every /api/moderation route is wrapped by `_moderators_only`: 401 for a
visitor, 403 for a player. CSRF is checked for every unsafe route by the
app's middleware (csrf.py)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from aiohttp import web
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from ..moderation import Conflict, Invalid, NotAllowed, NotFound, Refused, audit, decisions, queue
from ..moderation.records import file_report
from ..rating_fits import calibration_report
from ..store import users
from ..store.models import User
from .auth import require_user
from .keys import DB
from .params import body_id, body_int, query_int
from .params import page as _page
from .params import path_id as _path_id
from .wire import ApiError, read_body, text_field

routes = web.RouteTableDef()
_STATUS = ((NotFound, 404), (NotAllowed, 403), (Conflict, 409), (Invalid, 400))
ModeratorHandler = Callable[[web.Request, User], Awaitable[web.StreamResponse]]


def _moderators_only(
    handler: ModeratorHandler,
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    @functools.wraps(handler)
    async def guarded(request: web.Request) -> web.StreamResponse:
        user = await require_user(request)
        if not user.is_moderator:
            raise ApiError(403, "only moderators may use the moderation API")
        return await handler(request, user)

    return guarded


@asynccontextmanager
async def _transaction(request: web.Request) -> AsyncIterator[AsyncSession]:
    """One transaction; a refusal from omerta.moderation becomes its HTTP error."""
    try:
        async with request.app[DB].begin() as s:
            yield s
    except Refused as e:
        status = next(code for kind, code in _STATUS if isinstance(e, kind))
        raise ApiError(status, e.message) from None


def _json(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        return {f.name: _json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    return value


@routes.post("/api/reports")
async def report(request: web.Request) -> web.Response:
    user = await require_user(request)
    body = await read_body(request)
    game = body_id(body, "game", "game")
    try:
        async with _transaction(request) as s:
            case_id = await file_report(s, game, user.id, body.get("reason"))
    except IntegrityError:  # the same player's report, committed in between
        raise ApiError(409, f"you already reported game {game}") from None
    return web.json_response({"report": {"game": game, "case": case_id}}, status=201)


@routes.get("/api/moderation/cases")
@_moderators_only
async def list_cases(request: web.Request, moderator: User) -> web.Response:
    status = request.query.get("status", "open")
    if status not in (*queue.STATUSES, "all"):
        raise ApiError(
            400, f"query parameter 'status' must be one of {', '.join(queue.STATUSES)}, all"
        )
    flagged = request.query.get("flagged")
    if flagged not in (None, "true", "false"):
        raise ApiError(400, "query parameter 'flagged' must be true or false")
    practice = request.query.get("practice", "false")
    if practice not in ("true", "false"):
        raise ApiError(400, "query parameter 'practice' must be true or false")
    page, per_page = _page(request)
    async with _transaction(request) as s:
        found, total = await queue.cases(
            s,
            None if status == "all" else status,
            None if flagged is None else flagged == "true",
            page,
            per_page,
            practice=practice == "true",
        )
    return web.json_response(
        {"page": page, "per_page": per_page, "total": total, "cases": _json(found)}
    )


@routes.get("/api/moderation/cases/{case_id}")
@_moderators_only
async def show_case(request: web.Request, moderator: User) -> web.Response:
    case_id = _path_id(request, "case_id", "case")
    async with _transaction(request) as s:
        detail = await queue.case(s, case_id)
    body = _json(detail)
    vote = detail.case.vote
    body["script"] = f"/api/moderation/tables/{detail.table}/script" + (
        f"?upto={vote.record_line}" if vote else ""
    )
    return web.json_response(body)


def _decision(decide: Callable[..., Awaitable[int]]) -> ModeratorHandler:
    async def handler(request: web.Request, moderator: User) -> web.Response:
        case_id = _path_id(request, "case_id", "case")
        body = await read_body(request)
        async with _transaction(request) as s:
            entry = await decide(s, moderator.id, case_id, body.get("reason"))
            detail = await queue.case(s, case_id)
        return web.json_response({"audit": entry, "case": _json(detail.case)})

    return handler


for _name, _decide in (
    ("uphold", decisions.uphold),
    ("overturn", decisions.overturn),
    ("dismiss", decisions.dismiss),
):
    routes.post(f"/api/moderation/cases/{{case_id}}/{_name}")(_moderators_only(_decision(_decide)))


@routes.post("/api/moderation/sanctions")
@_moderators_only
async def give_sanction(request: web.Request, moderator: User) -> web.Response:
    body = await read_body(request)
    name = text_field(body, "user")
    case_id = body_id(body, "case", "case", required=False)
    async with _transaction(request) as s:
        user = await users.user_by_name(s, name)
        if user is None:
            raise NotFound(f"no player named {name!r}")
        given = await decisions.sanction(
            s,
            moderator.id,
            user.id,
            body.get("kind"),
            body.get("reason"),
            body_int(body, "days"),
            case_id,
        )
    return web.json_response(
        {
            "sanction": {
                "id": given.id,
                "user": user.username,
                "kind": given.kind,
                "reason": given.reason,
                "starts_at": given.starts_at.isoformat(),
                "ends_at": given.ends_at.isoformat() if given.ends_at else None,
                "case": case_id,
            }
        },
        status=201,
    )


@routes.post("/api/moderation/sanctions/{sanction_id}/lift")
@_moderators_only
async def lift_sanction(request: web.Request, moderator: User) -> web.Response:
    sanction_id = _path_id(request, "sanction_id", "sanction")
    body = await read_body(request)
    async with _transaction(request) as s:
        entry = await decisions.lift(s, moderator.id, sanction_id, body.get("reason"))
    return web.json_response({"audit": entry})


@routes.get("/api/moderation/tables/{table_id}/script")
@_moderators_only
async def table_script(request: web.Request, moderator: User) -> web.Response:
    table_id = _path_id(request, "table_id", "table")
    upto = query_int(request, "upto", None, 0, 10_000_000)
    async with _transaction(request) as s:
        text = await queue.script(s, table_id, upto)
    return web.Response(text=text, content_type="application/x-ndjson", charset="utf-8")


@routes.get("/api/moderation/ratings")
@_moderators_only
async def rating_calibration(request: web.Request, moderator: User) -> web.Response:
    """How well the rating model predicts the stored ranked games (issue 20)."""
    async with _transaction(request) as s:
        report = await calibration_report(s)
    return web.json_response(report)


@routes.get("/api/moderation/audit")
@_moderators_only
async def audit_log(request: web.Request, moderator: User) -> web.Response:
    page, per_page = _page(request)
    async with _transaction(request) as s:
        entries, total = await audit.page(s, page, per_page)
    return web.json_response(
        {"page": page, "per_page": per_page, "total": total, "entries": _json(entries)}
    )
