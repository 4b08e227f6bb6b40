"""What a server instance is started with."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta

from argon2 import PasswordHasher

from ..runtime import RuntimeFactory
from .limits import Limits


@dataclass(frozen=True)
class Config:
    database_url: str
    #: builds the live-table runtime once the database is open
    runtime: RuntimeFactory
    #: >1 runs every game timer faster (development and tests only)
    time_scale: float = 1.0
    #: where the seeds of created tables (the deal) and the seat numbering of
    #: started ones come from. `omerta serve --seed N` makes them reproducible
    #: (development and tests only: whoever knows N knows every deal)
    rng: random.Random = field(default_factory=random.SystemRandom)
    #: keep one open table with bots in every seat but one (`omerta serve --demo`)
    demo: bool = False
    session_lifetime: timedelta = timedelta(days=30)
    #: argon2id with argon2-cffi's defaults (RFC 9106 low-memory profile)
    password_hasher: PasswordHasher = field(default_factory=PasswordHasher)
    #: what one account or address may do, and how fast (omerta/server/limits.py)
    limits: Limits = field(default_factory=Limits)
    #: the public URL players open (`OMERTA_SITE_URL`), e.g. behind a TLS proxy
    site_url: str | None = None
    #: mark cookies `Secure` (`OMERTA_SECURE_COOKIES`); None: when `site_url`
    #: is https, or the request itself came over TLS
    secure_cookies: bool | None = None
    #: requests are small JSON objects; anything larger is refused with 413
    max_body_bytes: int = 64 * 1024
    #: origins besides this server's own whose pages may open a table socket
    #: (e.g. the public https origin when a proxy rewrites the Host header)
    allowed_origins: tuple[str, ...] = ()
    #: serve GET /api/debug/stats (runtime measurements; `--debug-stats`)
    debug_stats: bool = False
    #: the secret the nodes of a cluster share (`OMERTA_CLUSTER_SECRET`): a
    #: table socket that reaches a node other than the table's is forwarded
    #: to it with this secret (omerta/server/forward.py); None: one node
    cluster_secret: str | None = None
