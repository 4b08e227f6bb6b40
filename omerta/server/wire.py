"""The JSON edge: request bodies in, errors and views out.

Every error a client sees is `{"error": "...", "rule"?: "..."}`; `rule`
names the docs/rules.md rule or section when one is the reason."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from .. import rulesets
from ..runtime.spectators import WatchSettings
from ..store import tables
from ..store.games import HistoryEntry
from ..store.models import GameTable, User


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        rule: str | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.rule = rule
        self.headers = headers


def error_response(
    status: int, message: str, rule: str | None = None, headers: dict[str, str] | None = None
) -> web.Response:
    body = {"error": message}
    if rule:
        body["rule"] = rule
    return web.json_response(body, status=status, headers=headers)


async def read_body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object; an empty body reads as {}."""
    raw = await request.read()
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw, parse_constant=_not_json)
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not valid JSON: it is not UTF-8") from None
    except json.JSONDecodeError as e:
        raise ApiError(400, f"the request body is not valid JSON: {e}") from None
    except RecursionError:
        raise ApiError(400, "the request body is not valid JSON: it is nested too deeply") from None
    except ValueError as e:  # e.g. an integer of more than 4300 digits
        raise ApiError(400, f"the request body is not valid JSON: {e}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return body


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def text_field(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise ApiError(400, f"field {name!r} is required and must be a string")
    if not storable(value):
        raise ApiError(
            400, f"field {name!r} must be text without NUL characters or lone surrogates"
        )
    return value


def storable(text: str) -> bool:
    """Whether `text` can be stored and encoded: UTF-8 has no lone
    surrogates (JSON's "\\ud800" makes one) and Postgres text no NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def user_json(user: User) -> dict[str, Any]:
    return {
        "id": user.id,
        "username": user.username,
        "is_moderator": user.is_moderator,
        "created_at": user.created_at.isoformat(),
    }


def table_json(table: GameTable) -> dict[str, Any]:
    """What anyone may know about a table: never its seed, which decides the deal."""
    rules = rulesets.get(table.ruleset)
    settings = rules.parse_settings(tables.game_settings(table))
    return {
        "id": table.id,
        "ruleset": table.ruleset,
        "settings": tables.game_settings(table),
        "watch": WatchSettings.parse(tables.watch_settings(table)).to_dict(),
        "ranked": tables.ranked(table),
        "status": table.status,
        "creator": table.creator.username,
        "seats_total": rules.seat_count(settings),
        "seats_taken": len(table.seats),
        "seats": [
            {
                "seat": seat.seat,
                "user": seat.user.username if seat.user else None,
                "bot": seat.is_bot,
            }
            for seat in table.seats
        ],
        "created_at": table.created_at.isoformat(),
        "started_at": table.started_at.isoformat() if table.started_at else None,
        "finished_at": table.finished_at.isoformat() if table.finished_at else None,
    }


def history_json(entry: HistoryEntry) -> dict[str, Any]:
    return {
        "game": entry.game_id,
        "table": entry.table_id,
        "ended_at": entry.ended_at.isoformat(),
        "winner": entry.winner,
        "reason": entry.reason,
        "ranked": entry.ranked,
        "seat": entry.seat,
        "role": entry.role,
        "result": entry.result,
    }
