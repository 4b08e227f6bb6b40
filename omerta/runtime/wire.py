"""The server's messages on the table WebSocket (docs/api.md, "Table
WebSocket"), as JSON text. Built once and sent as is to every connection
that gets them, so a message is encoded once however many receive it."""
from __future__ import annotations

from typing import Any

import orjson


def _dumps(message: dict[str, Any]) -> str:
    # orjson: a view is encoded for every seat after every step, and the
    # standard library's encoder was a sixth of a busy server's time.
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


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


def event_json(event: dict[str, Any]) -> str:
    return _dumps(event)


def ack(client_id: str) -> str:
    return _dumps({"type": "ack", "id": client_id})


def error(message: str, client_id: Any = None, rule: str | None = None) -> str:
    out: dict[str, Any] = {"type": "error", "id": client_id, "error": message}
    if rule:
        out["rule"] = rule
    return _dumps(out)


def media(message: dict[str, Any]) -> str:
    return _dumps({**message, "type": "media"})
