"""The HTTP edge: CSRF on every state-changing route, JSON errors, the home page."""

from __future__ import annotations

from aiohttp import hdrs

from omerta.server.csrf import SAFE_METHODS
from omerta.store import tables


def state_changing_routes(harness):
    for route in harness.server.app.router.routes():
        if route.method not in SAFE_METHODS and route.method != hdrs.METH_ANY:
            path = route.resource.canonical.replace("{table_id}", "1")
            yield route.method, path


async def test_every_state_changing_route_refuses_a_request_without_the_csrf_token(harness):
    alice = await harness.player("alice")
    assert (await alice.post("/api/tables")).status == 201  # table 1 exists
    routes = set(state_changing_routes(harness))
    assert {
        ("POST", "/api/login"),
        ("POST", "/api/logout"),
        ("POST", "/api/tables/1/bots"),
    } <= routes
    for method, path in routes:
        for headers in ({}, {"X-CSRF-Token": "not-the-cookie"}):
            reply = await alice.request(method, path, json={}, csrf=False, headers=headers)
            assert reply.status == 403, (method, path, reply.body)
            assert "CSRF" in reply.body["error"]
    async with harness.db.begin() as s:  # none of the refused requests did anything
        assert [t.id for t in await tables.tables_with_status(s, "open")] == [1]
        assert (await tables.get_table(s, 1)).seats == []
    assert (await alice.get("/api/me")).status == 200  # not even log out


async def test_a_client_gets_its_csrf_token_with_its_first_response_and_from_api_csrf(harness):
    client = harness.client()
    await client.get("/")
    cookie = client.cookie("omerta_csrf")
    assert cookie
    reply = await client.get("/api/csrf")
    assert reply.body == {"csrf": cookie, "header": "X-CSRF-Token"}


async def test_malformed_json_gets_a_clear_400(harness):
    reply = await harness.client().post(
        "/api/register", data=b'{"username": "alice",', headers={"Content-Type": "application/json"}
    )
    assert reply.status == 400
    assert reply.body["error"].startswith("the request body is not valid JSON")


async def test_a_json_body_that_is_not_an_object_is_refused(harness):
    reply = await harness.client().post("/api/register", ["alice", "secret"])
    assert reply.status == 400
    assert reply.body == {"error": "the request body must be a JSON object"}


async def test_an_oversized_body_is_refused_in_json(harness):
    reply = await harness.client().post("/api/register", data=b"x" * 100_000)
    assert reply.status == 413
    assert "exceeded" in reply.body["error"]


async def test_unknown_routes_and_methods_answer_in_json(harness):
    client = harness.client()
    missing = await client.get("/api/nothing-here")
    assert missing.status == 404 and missing.body == {"error": "Not Found"}
    wrong_method = await client.request("DELETE", "/api/me")
    assert wrong_method.status == 405 and "error" in wrong_method.body


async def test_an_unexpected_failure_answers_a_json_500_without_a_traceback(harness):
    harness.runtime.fail_start = True
    alice = await harness.player("alice")
    await alice.post("/api/tables")
    reply = await alice.post("/api/tables/1/bots")
    assert reply.status == 500
    assert reply.body == {"error": "internal server error"}


async def test_the_home_page_says_what_the_server_is_and_links_the_api_docs(harness):
    client = harness.client()
    home = await client.get("/")
    assert home.status == 200 and home.response.content_type == "text/html"
    assert "Mafia" in home.body and 'href="/docs/api"' in home.body
    docs = await client.get("/docs/api")
    assert docs.status == 200 and "# Omerta HTTP API" in docs.body
