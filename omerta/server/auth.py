"""Accounts: register, log in, log out, who am I.

A session is an opaque random token in an HttpOnly, SameSite=Lax cookie;
the database keeps only its hash. Logging in always issues a new token
(and ends the one the browser had), so a token planted before login is
worthless after it."""
from __future__ import annotations

import math
import re

from aiohttp import web

from ..store import users
from ..store.models import User
from .keys import CONFIG, DB, LOGIN_LIMIT_PER_IP, LOGIN_LIMIT_PER_USER, PASSWORDS
from .wire import ApiError, read_body, text_field, user_json

SESSION_COOKIE = "omerta_session"
USERNAME = re.compile(r"[A-Za-z0-9_]{3,24}")
PASSWORD_MIN, PASSWORD_MAX = 8, 256
_USER = web.RequestKey("user", User | None)   # the signed-in user, looked up once a request

routes = web.RouteTableDef()


async def current_user(request: web.Request) -> User | None:
    if _USER not in request:
        token = request.cookies.get(SESSION_COOKIE)
        user = None
        if token:
            async with request.app[DB].begin() as s:
                user = await users.session_user(s, token)
        request[_USER] = user
    return request[_USER]


async def require_user(request: web.Request) -> User:
    user = await current_user(request)
    if user is None:
        raise ApiError(401, "sign in first (POST /api/login)")
    return user


def _credentials(body: dict) -> tuple[str, str]:
    username, password = text_field(body, "username"), text_field(body, "password")
    if len(password) > PASSWORD_MAX:
        raise ApiError(400, f"a password has at most {PASSWORD_MAX} characters")
    return username, password


async def _signed_in(request: web.Request, user: User, status: int) -> web.Response:
    """The reply that signs `user` in with a fresh session."""
    config = request.app[CONFIG]
    async with request.app[DB].begin() as s:
        old = request.cookies.get(SESSION_COOKIE)
        if old:
            await users.close_session(s, old)
        token = await users.open_session(s, user.id, config.session_lifetime)
    response = web.json_response({"user": user_json(user)}, status=status)
    response.set_cookie(SESSION_COOKIE, token, path="/", httponly=True, samesite="Lax",
                        secure=request.secure,
                        max_age=int(config.session_lifetime.total_seconds()))
    return response


@routes.post("/api/register")
async def register(request: web.Request) -> web.Response:
    username, password = _credentials(await read_body(request))
    if not USERNAME.fullmatch(username):
        raise ApiError(400, "a username is 3 to 24 letters, digits or underscores")
    if len(password) < PASSWORD_MIN:
        raise ApiError(400, f"a password has at least {PASSWORD_MIN} characters")
    password_hash = await request.app[PASSWORDS].hash(password)
    try:
        async with request.app[DB].begin() as s:
            user = await users.add_user(s, username, password_hash)
    except users.UsernameTaken:
        raise ApiError(409, f"the username {username!r} is taken") from None
    return await _signed_in(request, user, 201)


def _check_limits(request: web.Request, username: str) -> None:
    for limiter, key, whose in (
            (request.app[LOGIN_LIMIT_PER_IP], request.remote or "unknown", "from your address"),
            (request.app[LOGIN_LIMIT_PER_USER], username.lower(), "for this username")):
        wait = limiter.hit(key)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            raise ApiError(429, f"too many login attempts {whose}; try again in {seconds} s",
                           headers={"Retry-After": str(seconds)})


@routes.post("/api/login")
async def login(request: web.Request) -> web.Response:
    username, password = _credentials(await read_body(request))
    _check_limits(request, username)
    passwords = request.app[PASSWORDS]
    async with request.app[DB].begin() as s:
        user = await users.user_by_name(s, username)
    matches = await passwords.verify(user.password_hash if user else None, password)
    if user is None or not matches:
        raise ApiError(401, "wrong username or password")
    request.app[LOGIN_LIMIT_PER_USER].reset(username.lower())
    if passwords.needs_rehash(user.password_hash):   # the hashing parameters were raised
        new_hash = await passwords.hash(password)
        async with request.app[DB].begin() as s:
            await users.set_password_hash(s, user.id, new_hash)
    return await _signed_in(request, user, 200)


@routes.post("/api/logout")
async def logout(request: web.Request) -> web.Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        async with request.app[DB].begin() as s:
            await users.close_session(s, token)
    response = web.json_response({"ok": True})
    response.del_cookie(SESSION_COOKIE, path="/")
    return response


@routes.get("/api/me")
async def me(request: web.Request) -> web.Response:
    return web.json_response({"user": user_json(await require_user(request))})
