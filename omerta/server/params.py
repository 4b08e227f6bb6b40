"""Numbers from a request, checked once: ids in paths, numbers in the query
string (pages, cursors) and in JSON bodies. Each answers a clear 4xx naming
the parameter, never lets a value through that the database cannot hold
(ids are 32-bit there), and accepts only ASCII digits (`str.isdigit` also
takes "²", which `int()` refuses)."""

from __future__ import annotations

from typing import Any, Literal, TypeGuard, overload

from aiohttp import web

from .wire import ApiError

#: the largest id a table, game, case or sanction can have (SQL INTEGER)
MAX_ID = 2**31 - 1
MAX_PAGE = 10_000
MAX_PER_PAGE = 100


def _digits(raw: str, top: int) -> int | None:
    """`raw` as a whole number from 0 to `top`, or None."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > len(str(top)):
        return None
    value = int(raw)
    return value if value <= top else None


def strict_int(value: object) -> TypeGuard[int]:
    """A JSON whole number: `true` is not 1, and 1.0 is not an id."""
    return isinstance(value, int) and not isinstance(value, bool)


def path_id(request: web.Request, name: str, what: str) -> int:
    """Path parameter `name`, the id of a `what`; 404 when it cannot be one."""
    raw = request.match_info[name]
    value = _digits(raw, MAX_ID)
    if value is None:
        raise ApiError(404, f"no {what} {raw[:40]!r}")
    return value


def query_int(
    request: web.Request, name: str, default: int | None, low: int, top: int
) -> int | None:
    """Query parameter `name` from `low` to `top`; `default` when absent."""
    raw = request.query.get(name)
    if raw is None:
        return default
    value = _digits(raw, top)
    if value is None or value < low:
        raise ApiError(400, f"query parameter {name!r} must be a whole number from {low} to {top}")
    return value


def page(request: web.Request, per_page: int = 20) -> tuple[int, int]:
    """(page, per_page) from the query string, page 1 first."""
    found = (
        query_int(request, "page", 1, 1, MAX_PAGE),
        query_int(request, "per_page", per_page, 1, MAX_PER_PAGE),
    )
    assert found[0] is not None and found[1] is not None
    return found[0], found[1]


def body_int(body: dict[str, Any], name: str) -> int | None:
    """Optional field `name` of a JSON body, a whole number (None when absent);
    the range it must lie in is the caller's rule."""
    value = body.get(name)
    if value is None:
        return None
    if not strict_int(value):
        raise ApiError(400, f"field {name!r}, when given, must be a whole number")
    return value


@overload
def body_id(
    body: dict[str, Any], name: str, what: str, *, required: Literal[True] = True
) -> int: ...
@overload
def body_id(body: dict[str, Any], name: str, what: str, *, required: bool) -> int | None: ...


def body_id(body: dict[str, Any], name: str, what: str, *, required: bool = True) -> int | None:
    """Field `name` of a JSON body, the id of a `what` (None when optional and absent)."""
    value = body.get(name)
    if value is None and not required:
        return None
    if not strict_int(value) or not 0 <= value <= MAX_ID:
        field = f"field {name!r} is required and" if required else f"field {name!r}, when given,"
        raise ApiError(400, f"{field} must be a {what} id (a whole number)")
    return value


def table_id_of(request: web.Request) -> int:
    return path_id(request, "table_id", "table")
