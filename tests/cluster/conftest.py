"""Fixtures for the cluster tests: the databases of tests/server (SQLite and
real Postgres, each run in a schema of its own)."""

import pytest
from sqlalchemy.engine import make_url

from omerta.store.models import Base
from tests.server.conftest import (  # noqa: F401
    _admin,
    database_url,
    in_thread,
    postgres_schema,
    sqlite_template,
)


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest) -> str:
    """This run's migrated Postgres schema, emptied (nodes share Postgres only)."""
    url: str = request.getfixturevalue("postgres_schema")
    schema = make_url(url).query["search_path"]
    names = ", ".join(f'"{schema}"."{name}"' for name in Base.metadata.tables)
    in_thread(lambda: _admin(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    return url
