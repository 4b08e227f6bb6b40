"""Fixtures for the live table runtime: the databases of tests/server
(SQLite and real Postgres), and a server running real table actors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from omerta.runtime.live import LiveTables
from omerta.server.limits import UNLIMITED, Limits
from tests.server.conftest import FAST_HASHER, database_url, postgres_schema, sqlite_template  # noqa: F401

from .players import Live, live_server


@pytest.fixture
def time_scale() -> float:
    """Game seconds per wall second; override per module."""
    return 50.0


@pytest.fixture
def grace() -> float:
    """Wall seconds a table started from an existing record stands still."""
    return 0.0


@pytest.fixture
def limits() -> Limits:
    """The server's limits (docs/security.md); override per module."""
    return UNLIMITED


@pytest.fixture
async def live(
    database_url: str, time_scale: float, grace: float, limits: Limits
) -> AsyncIterator[Live]:
    def runtime(db: Any, scale: float) -> LiveTables:
        return LiveTables(db, scale, grace=grace)

    async with live_server(database_url, runtime, time_scale, limits) as live:
        yield live
