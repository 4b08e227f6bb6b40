"""What a load balancer and a monitor ask a node (issue 17): alive, ready
(database answers, not draining), and its metrics, never to the public."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from omerta.runtime.live import LiveTables
from omerta.server import TABLES, Config, create_app
from tests.server.conftest import FAST_HASHER


@pytest.fixture
async def server(database_url: str) -> AsyncIterator[TestServer]:
    config = Config(
        database_url=database_url,
        runtime=lambda db, scale: LiveTables(db, scale),
        password_hasher=FAST_HASHER,
    )
    server = TestServer(create_app(config))
    await server.start_server()
    try:
        yield server
    finally:
        await server.close()


async def _get(server: TestServer, path: str, **headers: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(server.make_url(path), headers=headers) as response,
    ):
        return response.status, await response.text()


async def test_a_node_is_alive_and_ready_until_it_drains(server):
    assert (await _get(server, "/healthz"))[0] == 200
    assert await _get(server, "/readyz") == (200, '{"ok": true}')
    await server.app[TABLES].drain()
    status, body = await _get(server, "/readyz")
    assert status == 503 and "draining" in body
    assert (await _get(server, "/healthz"))[0] == 200


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_metrics_count_tables_sockets_and_steps_for_loopback_only(server):
    status, text = await _get(server, "/metrics")
    assert status == 200
    assert 'omerta_live_tables{node="local"} 0.0' in text
    assert 'omerta_step_seconds_bucket{le="+Inf",node="local"} 0.0' in text
    assert "omerta_record_write_seconds_count" in text and "omerta_refusals_total" in text
    # Through a proxy (X-Forwarded-For), it is not there.
    assert (await _get(server, "/metrics", **{"X-Forwarded-For": "203.0.113.9"}))[0] == 404
