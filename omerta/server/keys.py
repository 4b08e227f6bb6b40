"""Typed keys of the aiohttp application state."""
from __future__ import annotations

from aiohttp import web

from ..runtime import TableRuntime
from ..store import Database
from .config import Config
from .passwords import Passwords
from .ratelimit import RateLimiter

CONFIG = web.AppKey("config", Config)
DB = web.AppKey("db", Database)
#: the live-table runtime (omerta.runtime.TableRuntime)
TABLES = web.AppKey("tables", TableRuntime)
PASSWORDS = web.AppKey("passwords", Passwords)
LOGIN_LIMIT_PER_USER = web.AppKey("login_limit_per_user", RateLimiter)
LOGIN_LIMIT_PER_IP = web.AppKey("login_limit_per_ip", RateLimiter)
