"""Accounts: register, log in, log out, who am I.

A session is an opaque random token in an HttpOnly, SameSite=Lax cookie;
the database keeps only its hash. Logging in always issues a new token
(and ends the one the browser had), so a token planted before login is
worthless after it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from datetime import timedelta
from urllib.parse import urlsplit

from aiohttp import web

from ..moderation.sanctions import banned_at_address
from ..store import users
from ..store.models import User
from .clients import address_of
from .config import Config
from .keys import (
    CONFIG,
    DB,
    LOGIN_PER_ACCOUNT,
    LOGIN_PER_ADDRESS,
    LOGIN_PER_PAIR,
    PASSWORDS,
    REGISTRATIONS,
)
from .passwords import PASSWORD_MAX, weakness
from .ratelimit import check
from .wire import ApiError, read_body, text_field, user_json

SESSION_COOKIE = "omerta_session"
USERNAME = re.compile(r"[A-Za-z0-9_]{3,24}")
# the signed-in user, looked up once a request
_USER: web.RequestKey[User | None] = web.RequestKey("user")

routes = web.RouteTableDef()


def site_from_env(env: Mapping[str, str] = os.environ) -> tuple[str | None, bool | None]:
    """`OMERTA_SITE_URL` (the public URL, e.g. https://mafia.example behind a
    TLS proxy) and `OMERTA_SECURE_COOKIES` (1/0, yes/no, true/false; unset:
    decided by the site URL). ValueError names the variable and the fix."""
    site = env.get("OMERTA_SITE_URL", "").strip() or None
    if site is not None:
        parts = urlsplit(site)
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            raise ValueError(
                f"OMERTA_SITE_URL={site!r} is not a site URL: give the address"
                " players open, e.g. https://mafia.example"
            )
    raw = env.get("OMERTA_SECURE_COOKIES", "").strip().lower()
    if not raw:
        return site, None
    if raw not in ("1", "0", "yes", "no", "true", "false"):
        raise ValueError(f"OMERTA_SECURE_COOKIES={raw!r}: set it to 1 or 0 (or leave it unset)")
    return site, raw in ("1", "yes", "true")


def secure_cookies(config: Config, request: web.Request) -> bool:
    """Whether cookies get the Secure flag: as configured; by default when
    the site's public URL is https (a TLS proxy in front), or when this
    request itself came over TLS."""
    if config.secure_cookies is not None:
        return config.secure_cookies
    if config.site_url:
        return urlsplit(config.site_url).scheme.lower() == "https"
    return request.secure


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
    if len(username) > 64:
        raise ApiError(400, "a username is 3 to 24 letters, digits or underscores")
    return username, password


async def _signed_in(request: web.Request, user: User, status: int) -> web.Response:
    """The reply that signs `user` in with a fresh session."""
    config = request.app[CONFIG]
    async with request.app[DB].begin() as s:
        old = request.cookies.get(SESSION_COOKIE)
        if old:
            await users.close_session(s, old)
        token = await users.open_session(s, user.id, config.session_lifetime)
        await users.note_address(s, user.id, address_of(request))
    response = web.json_response({"user": user_json(user)}, status=status)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=secure_cookies(config, request),
        max_age=int(config.session_lifetime.total_seconds()),
    )
    return response


@routes.post("/api/register")
async def register(request: web.Request) -> web.Response:
    username, password = _credentials(await read_body(request))
    if not USERNAME.fullmatch(username):
        raise ApiError(400, "a username is 3 to 24 letters, digits or underscores")
    if why := weakness(password, username):
        raise ApiError(400, why)
    address = address_of(request)
    limits = request.app[CONFIG].limits
    check(request.app[REGISTRATIONS], address, "accounts registered from your address")
    async with request.app[DB].begin() as s:
        if await banned_at_address(s, address, timedelta(days=limits.banned_address_days)):
            raise ApiError(
                403,
                "new accounts cannot be registered from this address: an account"
                " used from it is banned",
            )
    password_hash = await request.app[PASSWORDS].hash(password)
    try:
        async with request.app[DB].begin() as s:
            user = await users.add_user(s, username, password_hash)
    except users.UsernameTaken:
        raise ApiError(409, f"the username {username!r} is taken") from None
    return await _signed_in(request, user, 201)


@routes.post("/api/login")
async def login(request: web.Request) -> web.Response:
    """Attempts are counted before the password is checked, so a burst of
    parallel guesses is held too: per address; per account from this
    address (ten wrong guesses lock out that address, not the owner
    elsewhere); and per account from addresses it never signed in from, a
    softer limit that slows a guess spread over many addresses."""
    username, password = _credentials(await read_body(request))
    address = address_of(request)
    account = username.lower()
    passwords = request.app[PASSWORDS]
    check(request.app[LOGIN_PER_ADDRESS], address, "login attempts from your address")
    check(
        request.app[LOGIN_PER_PAIR],
        f"{account}\n{address}",
        "login attempts for this username from your address",
    )
    async with request.app[DB].begin() as s:
        user = await users.user_by_name(s, username)
        known = user is not None and await users.known_address(s, user.id, address)
    if not known:
        check(
            request.app[LOGIN_PER_ACCOUNT],
            account,
            "login attempts for this username from new addresses",
        )
    matches = await passwords.verify(user.password_hash if user else None, password)
    if user is None or not matches:
        raise ApiError(401, "wrong username or password")
    request.app[LOGIN_PER_PAIR].reset(f"{account}\n{address}")
    if passwords.needs_rehash(user.password_hash):  # the hashing parameters were raised
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
