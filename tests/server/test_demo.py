"""`omerta serve --demo`: a table that one visitor can start."""

from __future__ import annotations

import pytest


@pytest.fixture
def config_overrides():
    return {"demo": True}


async def test_the_demo_keeps_one_table_open_with_a_single_free_seat(harness):
    lobby = (await harness.client().get("/api/tables")).body["tables"]
    assert len(lobby) == 1 and lobby[0]["seats_taken"] == 9
    visitor = await harness.player("visitor")
    reply = await visitor.post(f"/api/tables/{lobby[0]['id']}/sit")
    assert reply.body["table"]["status"] == "playing"
    assert harness.runtime.started == [lobby[0]["id"]]
    fresh = (await visitor.get("/api/tables")).body["tables"]
    assert len(fresh) == 1 and fresh[0]["id"] != lobby[0]["id"] and fresh[0]["seats_taken"] == 9
