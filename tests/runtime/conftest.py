"""Fixtures for the live table runtime: the databases of tests/server
(SQLite and real Postgres), and a server running real table actors."""
from __future__ import annotations

from typing import Any, AsyncIterator

import pytest
from aiohttp.test_utils import TestServer

from omerta.runtime.live import LiveTables
from omerta.server import Config, Limit, create_app
from tests.server.conftest import (FAST_HASHER, database_url, postgres_schema,  # noqa: F401
                                   sqlite_template)

from .players import Live


@pytest.fixture
def time_scale() -> float:
    """Game seconds per wall second; override per module."""
    return 50.0


@pytest.fixture
def grace() -> float:
    """Wall seconds a table started from an existing record stands still."""
    return 0.0


@pytest.fixture
async def live(database_url: str, time_scale: float, grace: float) -> AsyncIterator[Live]:
    def runtime(db: Any, scale: float) -> LiveTables:
        return LiveTables(db, scale, grace=grace)

    config = Config(database_url=database_url, runtime=runtime, time_scale=time_scale,
                    password_hasher=FAST_HASHER, login_limit_per_user=Limit(1000, 60),
                    login_limit_per_ip=Limit(1000, 60))
    server = TestServer(create_app(config))
    await server.start_server()
    h = Live(server)
    try:
        yield h
    finally:
        await h.close()
        await server.close()
