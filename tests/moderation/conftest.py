"""The server fixtures (SQLite and real Postgres, a running server, signed-in
clients), shared with tests/server."""
from tests.server.conftest import (config_overrides, database_url, empty_database,  # noqa: F401
                                   harness, postgres_schema, sqlite_template)
