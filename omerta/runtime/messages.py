"""The server's messages on the table WebSocket (docs/api.md, "Table
WebSocket"), as JSON text; the HTTP API's JSON is `omerta.server.wire`.
Built once and sent as is to every connection that gets them, so a message
is encoded once however many receive it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import orjson

from ..table import IllegalAction, State
from ..table.views import common, known_roles, own

#: What a client is told when handling its message failed on our side (the
#: details go to the server's log, never to a player).
INTERNAL = "the server could not handle this message (an error on our side); nothing was applied"


def _dumps(message: Any) -> str:
    # orjson: a view is encoded for every seat after every step, and the
    # standard library's encoder was a sixth of a busy server's time.
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        # Text orjson refuses (a lone surrogate): the edge lets none through,
        # but an encoder that raises would take the table's actor down.
        return json.dumps(message, ensure_ascii=True)


def hello(table_id: int, seat: int | None) -> str:
    return _dumps({"type": "hello", "table": table_id, "seat": seat})


def event(seq: int, event_json: str) -> str:
    # The event is already JSON (streams keep it so): splice it in.
    return f'{{"type":"event","seq":{seq},"event":{event_json}}}'


def view(seq: int, now: float, deadline_in: float | None, view_json: str) -> str:
    # Sent for every changed view of every seat: spliced, not re-encoded.
    left = "null" if deadline_in is None else repr(deadline_in)
    return f'{{"type":"view","seq":{seq},"now":{now!r},"deadline_in":{left},"view":{view_json}}}'


def view_json(seat_view: dict[str, Any]) -> str:
    return _dumps(seat_view)


def views_json(state: State, seats: Iterable[int | None]) -> dict[int | None, str]:
    """`view_json(view(state, seat))` for each of `seats`, the same text,
    with each part the seats share encoded once (a live table encodes ten
    views after each step): the parts of `views.Common`, spliced."""
    shared = common(state)
    head = _dumps(shared.head)[1:-1]
    after = _dumps(shared.after)[1:-1]
    end = _dumps(shared.end)[1:-1]
    rows = [_dumps(row) for row in shared.rows]
    told: dict[int, str] = {}  # seat -> its row with its role (the black seats share three)
    out = {}
    for seat in seats:
        seat_rows = rows
        known = known_roles(state, seat)
        if known:
            seat_rows = list(rows)
            for q, role in known.items():
                row = told.get(q)
                if row is None:
                    # A row ends with its role: `null}` becomes the card.
                    row = told[q] = f"{rows[q - 1][:-5]}{_dumps(role)}}}"
                seat_rows[q - 1] = row
        out[seat] = (
            f'{{"seat":{"null" if seat is None else seat},{head},'
            f'"seats":[{",".join(seat_rows)}],{after},'
            f"{_dumps(own(state, seat, shared))[1:-1]},{end}}}"
        )
    return out


def event_json(event: dict[str, Any]) -> str:
    return _dumps(event)


def ack(client_id: str) -> str:
    return _dumps({"type": "ack", "id": client_id})


def error(
    message: str,
    client_id: str | None = None,
    rule: str | None = None,
    code: str = "refused",
    params: dict[str, Any] | None = None,
) -> str:
    """A refusal: `error` for people, `code` (and `params`) for clients that
    word it themselves, `rule` when a rule of docs/rules.md is the reason."""
    out: dict[str, Any] = {
        "type": "error",
        "id": client_id,
        "error": message,
        "code": code,
        "params": params or {},
    }
    if rule:
        out["rule"] = rule
    return _dumps(out)


def refusal(e: IllegalAction, client_id: str | None) -> str:
    """The engine's refusal of an action, as sent."""
    return error(e.message, client_id, e.rule, e.code, e.params)


def presence(seats: list[int]) -> str:
    """Which seats have a connection open (the others show as disconnected)."""
    return _dumps({"type": "presence", "connected": seats})


def spectators(count: int) -> str:
    """How many watch the table now (its spectators and its stream's viewers)."""
    return _dumps({"type": "spectators", "count": count})


def stream_hello(table_id: int, delay: float) -> str:
    """The first message of a delayed stream: its table and its delay."""
    return _dumps({"type": "stream", "table": table_id, "delay": delay})


def pong() -> str:
    """The answer to a client's `ping`: a client that gets none within a few
    seconds knows its connection is gone."""
    return '{"type":"pong"}'


def media(message: dict[str, Any]) -> str:
    return _dumps({**message, "type": "media"})
