"""The server fixtures (SQLite and real Postgres, a running server, signed-in
clients), shared with tests/server."""

from tests.server.conftest import (  # noqa: F401
    config_overrides,
    database_url,
    empty_database,
    harness,
    postgres_schema,
    sqlite_template,
)
