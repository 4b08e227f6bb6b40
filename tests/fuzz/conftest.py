"""The fuzz suites run against live servers on each database: the fixtures
of tests/runtime (a server with real table actors) and tests/server."""

from tests.runtime.conftest import grace, limits, live, time_scale  # noqa: F401
from tests.server.conftest import (  # noqa: F401
    config_overrides,
    database_url,
    harness,
    postgres_schema,
    sqlite_template,
)
