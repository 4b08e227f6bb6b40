"""What one account or one address may do, and how fast (docs/security.md).

Every limit has a default sized for people playing, far above what a
person clicks, and an `OMERTA_LIMIT_*` environment variable to tune it:
`OMERTA_LIMIT_LOGIN_PER_PAIR=10/300` (attempts/seconds) for a rate,
`OMERTA_LIMIT_SOCKETS_PER_ACCOUNT=8` for a count or a number of seconds."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from .ratelimit import Limit

PREFIX = "OMERTA_LIMIT_"


@dataclass(frozen=True)
class Limits:
    #: wrong passwords for one account from one address: the owner, elsewhere, is not locked out
    login_per_pair: Limit = Limit(10, 300)
    #: attempts on one account from addresses it never signed in from (a
    #: distributed guess); its known addresses are only held to the pair limit
    login_per_account: Limit = Limit(60, 900)
    #: login attempts from one address, whatever the account
    login_per_address: Limit = Limit(30, 300)
    #: new accounts from one address
    register_per_address: Limit = Limit(20, 3600)
    #: password hashes computed at once (each takes a core and 64 MiB) ...
    hashing_at_once: int = 2
    #: ... and waiting for one; past that a register or login answers 503
    hashing_queue: int = 16
    #: tables one account may create
    tables_per_account: Limit = Limit(20, 3600)
    #: open (not started) tables one account may hold at once
    open_tables_per_account: int = 3
    #: games with bots one account may start (filling a table with bots)
    bot_games_per_account: Limit = Limit(20, 3600)
    #: table sockets open at once, per account and per address
    sockets_per_account: int = 8
    sockets_per_address: int = 64
    #: spectators and stream viewers of one table at once (watch.py)
    spectators_per_table: int = 200
    #: seconds a connection may take to send a complete request head, and
    #: may stay idle between requests (aiohttp's keep-alive timeout)
    request_head_seconds: float = 15.0
    #: seconds a request may take to send its body
    request_body_seconds: float = 10.0
    #: days an address used by a banned account stays closed to new accounts
    banned_address_days: int = 30
    #: proxies in front of the server that append to X-Forwarded-For; 0
    #: trusts no header and takes the connection's own address
    forwarded_hops: int = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Limits:
        """The defaults, with every `OMERTA_LIMIT_<NAME>` set in `env` applied.
        ValueError names the variable and the form it takes."""
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            name = PREFIX + f.name.upper()
            raw = env.get(name)
            if raw is None or not raw.strip():
                continue
            default = getattr(cls, f.name)
            try:
                changes[f.name] = _parse(raw.strip(), default)
            except ValueError:
                form = (
                    "ATTEMPTS/SECONDS, e.g. 10/300"
                    if isinstance(default, Limit)
                    else "a positive number"
                    if isinstance(default, float)
                    else "a whole number, 0 or more"
                )
                raise ValueError(f"{name}={raw!r}: expected {form}") from None
        return dataclasses.replace(cls(), **changes)


def _parse(raw: str, default: object) -> object:
    if isinstance(default, Limit):
        attempts, _, seconds = raw.partition("/")
        parsed = Limit(int(attempts), float(seconds))
        if parsed.attempts < 1 or not parsed.seconds > 0:
            raise ValueError(raw)
        return parsed
    if isinstance(default, float):
        value = float(raw)
        if not 0 < value < float("inf"):
            raise ValueError(raw)
        return value
    number = int(raw)
    if number < 0:
        raise ValueError(raw)
    return number


#: Generous limits, for tests and benchmarks that play many games from one address.
UNLIMITED = Limits(
    login_per_pair=Limit(10**6, 1),
    login_per_account=Limit(10**6, 1),
    login_per_address=Limit(10**6, 1),
    register_per_address=Limit(10**6, 1),
    hashing_queue=10**6,
    tables_per_account=Limit(10**6, 1),
    open_tables_per_account=10**6,
    bot_games_per_account=Limit(10**6, 1),
    sockets_per_account=10**6,
    sockets_per_address=10**6,
    spectators_per_table=10**6,
)


def client_address(request: web.Request, hops: int) -> str:
    """The address a request came from. Behind `hops` trusted proxies it is
    the entry that many places from the right of X-Forwarded-For (what the
    outermost trusted proxy saw); a client can prepend anything, but cannot
    change what the proxies append."""
    if hops > 0:
        forwarded = [
            part.strip()
            for part in ",".join(request.headers.getall("X-Forwarded-For", [])).split(",")
        ]
        forwarded = [part for part in forwarded if part]
        if len(forwarded) >= hops:
            return forwarded[-hops][:64]
    return request.remote or "unknown"
