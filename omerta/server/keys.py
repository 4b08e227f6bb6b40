"""Typed keys of the aiohttp application state."""

from __future__ import annotations

from aiohttp import web

from ..runtime import TableRuntime
from ..store import Database
from .config import Config
from .keepalive import Keepalive
from .passwords import Passwords
from .ratelimit import Occupancy, RateLimiter

CONFIG = web.AppKey("config", Config)
DB = web.AppKey("db", Database)
#: the live-table runtime (omerta.runtime.TableRuntime)
TABLES = web.AppKey("tables", TableRuntime)
PASSWORDS = web.AppKey("passwords", Passwords)
# The limits of omerta/server/limits.py, as counters (docs/security.md).
LOGIN_PER_PAIR = web.AppKey("login_per_pair", RateLimiter)
LOGIN_PER_ACCOUNT = web.AppKey("login_per_account", RateLimiter)
LOGIN_PER_ADDRESS = web.AppKey("login_per_address", RateLimiter)
REGISTRATIONS = web.AppKey("registrations", RateLimiter)
TABLES_CREATED = web.AppKey("tables_created", RateLimiter)
BOT_GAMES = web.AppKey("bot_games", RateLimiter)
SOCKETS_PER_ACCOUNT = web.AppKey("sockets_per_account", Occupancy)
SOCKETS_PER_ADDRESS = web.AppKey("sockets_per_address", Occupancy)
#: the node's socket keep-alive sweep (keepalive.py)
KEEPALIVE = web.AppKey("keepalive", Keepalive)
