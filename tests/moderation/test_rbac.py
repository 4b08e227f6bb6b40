"""Only moderators use the moderation API: every route under
/api/moderation, found by walking the router so a new route is covered
the day it is added, refuses visitors (401) and players (403)."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from omerta.moderation.admin import revoke_moderator
from omerta.store.models import AuditEntry

from .world import moderator


def _moderation_routes(harness) -> list[tuple[str, str]]:
    found = {
        (route.method, re.sub(r"\{[^}]+\}", "1", route.resource.canonical))
        for route in harness.server.app.router.routes()
        if route.resource is not None
        and route.resource.canonical.startswith("/api/moderation")
        and route.method != "HEAD"
    }
    return sorted(found)


async def test_every_moderation_route_refuses_visitors_and_players_but_not_moderators(harness):
    routes = _moderation_routes(harness)
    assert len(routes) >= 8, routes  # the walk found the API
    visitor, player = harness.client(), await harness.player("bob")
    mod = await moderator(harness)
    for method, path in routes:
        anonymous = await visitor.request(method, path, {"reason": "r"})
        assert anonymous.status == 401, (method, path, anonymous.body)
        refused = await player.request(method, path, {"reason": "r"})
        assert refused.status == 403, (method, path, refused.body)
        assert refused.body["error"] == "only moderators may use the moderation API"
        allowed = await mod.request(method, path, {"reason": "r"})
        assert allowed.status not in (401, 403), (method, path, allowed.body)


async def test_a_moderators_unsafe_request_without_the_csrf_token_is_refused(harness):
    mod = await moderator(harness)
    await harness.player("bob")
    reply = await mod.post(
        "/api/moderation/sanctions", {"user": "bob", "kind": "ban", "reason": "r"}, csrf=False
    )
    assert reply.status == 403 and "CSRF" in reply.body["error"]
    async with harness.db.begin() as s:
        assert await s.scalar(select(func.count()).select_from(AuditEntry)) == 1  # the grant


async def test_a_revoked_moderator_is_refused_at_once(harness):
    mod = await moderator(harness)
    assert (await mod.get("/api/moderation/cases")).status == 200
    await revoke_moderator(harness.db, "moddy")
    assert (await mod.get("/api/moderation/cases")).status == 403
