"""CSRF protection by double submit.

Every response to a client without one sets a random `omerta_csrf` cookie
(readable by scripts, SameSite=Lax). Every request other than GET, HEAD and
OPTIONS must carry the same value in the `X-CSRF-Token` header. Another
site can make a browser send our cookies, but it cannot read them, so it
cannot copy the value into a header. The check covers every route, login
and register included, so no state-changing route can be left out."""

from __future__ import annotations

import hmac
import secrets

from aiohttp import web
from aiohttp.typedefs import Handler

from .auth import secure_cookies
from .keys import CONFIG
from .wire import error_response

CSRF_COOKIE = "omerta_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@web.middleware
async def protect(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse an unsafe request without the token; give every client that
    has none a token, on any response (a refused client can then retry).
    Runs outside `json_errors`, so what it gets back is always a response."""
    if request.method in SAFE_METHODS or _token_matches(request):
        response = await handler(request)
    else:
        response = error_response(
            403,
            f"missing or wrong CSRF token: send the value of the"
            f" {CSRF_COOKIE} cookie in the {CSRF_HEADER} header",
        )
    if CSRF_COOKIE not in request.cookies and CSRF_COOKIE not in response.cookies:
        set_cookie(request, response, secrets.token_urlsafe(32))
    return response


def _token_matches(request: web.Request) -> bool:
    cookie = request.cookies.get(CSRF_COOKIE, "").encode()
    header = request.headers.get(CSRF_HEADER, "").encode()
    return bool(cookie) and hmac.compare_digest(cookie, header)


def set_cookie(request: web.Request, response: web.StreamResponse, token: str) -> None:
    response.set_cookie(
        CSRF_COOKIE,
        token,
        path="/",
        samesite="Lax",
        secure=secure_cookies(request.app[CONFIG], request),
    )


routes = web.RouteTableDef()


@routes.get("/api/csrf")
async def token(request: web.Request) -> web.Response:
    """The token, for clients that would rather not parse cookies."""
    value = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
    response = web.json_response({"csrf": value, "header": CSRF_HEADER})
    set_cookie(request, response, value)
    return response
