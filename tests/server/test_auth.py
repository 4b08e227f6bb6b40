"""Accounts: register, log in, log out; hashes, cookies, rate limits."""

from __future__ import annotations

import dataclasses

import pytest

from omerta.server import Limit
from omerta.server.auth import site_from_env
from omerta.server.limits import UNLIMITED
from omerta.store import users

from .conftest import PASSWORD


async def test_a_newcomer_registers_and_is_signed_in_at_once(harness):
    alice = harness.client()
    reply = await alice.register("alice")
    assert reply.body["user"]["username"] == "alice"
    me = await alice.get("/api/me")
    assert me.status == 200 and me.body["user"]["username"] == "alice"


async def test_passwords_are_stored_as_argon2id_hashes_only(harness):
    await (harness.client()).register("alice")
    async with harness.db.begin() as s:
        user = await users.user_by_name(s, "alice")
    assert user.password_hash.startswith("$argon2id$")
    assert PASSWORD not in user.password_hash


async def test_a_taken_username_is_refused_whatever_its_case(harness):
    await harness.client().register("alice")
    reply = await harness.client().post(
        "/api/register", {"username": "ALICE", "password": PASSWORD}
    )
    assert reply.status == 409
    assert "taken" in reply.body["error"]


@pytest.mark.parametrize(
    "username, password, complaint",
    [
        ("al", PASSWORD, "username"),
        ("alice smith", PASSWORD, "username"),
        ("alice", "short", "at least 8"),
        ("alice", "x" * 300, "at most 256"),
        (None, PASSWORD, "'username'"),
        ("alice", 12345678, "'password'"),
    ],
)
async def test_registration_says_what_is_wrong_with_bad_credentials(
    harness, username, password, complaint
):
    reply = await harness.client().post(
        "/api/register", {"username": username, "password": password}
    )
    assert reply.status == 400
    assert complaint in reply.body["error"]


async def test_logging_in_issues_a_new_session_and_ends_the_old_one(harness):
    alice = await harness.player("alice")
    old_token = alice.cookie("omerta_session")
    reply = await alice.post("/api/login", {"username": "Alice", "password": PASSWORD})
    assert reply.status == 200 and reply.body["user"]["username"] == "alice"
    new_token = alice.cookie("omerta_session")
    assert new_token and new_token != old_token
    async with harness.db.begin() as s:
        assert await users.session_user(s, old_token) is None
        assert (await users.session_user(s, new_token)).username == "alice"


async def test_a_wrong_password_and_an_unknown_user_get_the_same_refusal(harness):
    await harness.player("alice")
    wrong = await harness.client().post("/api/login", {"username": "alice", "password": "nope!"})
    unknown = await harness.client().post("/api/login", {"username": "bob", "password": "nope!"})
    assert wrong.status == unknown.status == 401
    assert wrong.body == unknown.body == {"error": "wrong username or password"}


async def test_logging_out_ends_the_session(harness):
    alice = await harness.player("alice")
    reply = await alice.post("/api/logout")
    assert reply.status == 200
    assert (await alice.get("/api/me")).status == 401


async def test_the_session_cookie_is_httponly_and_samesite_lax_and_the_csrf_cookie_is_readable(
    harness,
):
    reply = await harness.client().register("alice")
    session = reply.response.cookies["omerta_session"]
    assert session["httponly"] and session["samesite"] == "Lax" and session["path"] == "/"
    assert int(session["max-age"]) > 0
    csrf = (await harness.client().get("/api/tables")).response.cookies["omerta_csrf"]
    assert not csrf["httponly"] and csrf["samesite"] == "Lax"


@pytest.fixture
def config_overrides():
    return {
        "limits": dataclasses.replace(
            UNLIMITED, login_per_pair=Limit(3, 60), login_per_address=Limit(5, 60)
        )
    }


async def test_login_attempts_per_username_are_limited_with_a_clear_429(harness):
    await harness.player("alice")
    for _ in range(3):
        reply = await harness.client().post("/api/login", {"username": "alice", "password": "no"})
        assert reply.status == 401
    reply = await harness.client().post("/api/login", {"username": "ALICE", "password": PASSWORD})
    assert reply.status == 429
    assert "too many login attempts for this username" in reply.body["error"]
    assert int(reply.response.headers["Retry-After"]) >= 1


async def test_login_attempts_per_address_are_limited_across_usernames(harness):
    for name in ("a1", "a2", "a3", "a4", "a5"):
        reply = await harness.client().post("/api/login", {"username": name, "password": "no"})
        assert reply.status == 401
    reply = await harness.client().post("/api/login", {"username": "a6", "password": "no"})
    assert reply.status == 429
    assert "from your address" in reply.body["error"]


async def test_a_successful_login_clears_the_count_for_its_username(harness):
    await harness.player("alice")
    for attempt in range(2):  # without the reset, the 4th attempt would exceed the limit of 3
        wrong = await harness.client().post("/api/login", {"username": "alice", "password": "no"})
        assert wrong.status == 401
        right = await harness.client().post(
            "/api/login", {"username": "alice", "password": PASSWORD}
        )
        assert right.status == 200, attempt


@pytest.mark.parametrize("password", ["12345678", "iloveyou", "Password1", "QWERTYUIOP"])
async def test_a_common_password_is_refused_at_registration(harness, password):
    reply = await harness.client().post(
        "/api/register", {"username": "alice", "password": password}
    )
    assert reply.status == 400 and "most common" in reply.body["error"]


async def test_a_password_containing_the_username_is_refused(harness):
    reply = await harness.client().post(
        "/api/register", {"username": "alice", "password": "Alice-the-great"}
    )
    assert reply.status == 400 and "username" in reply.body["error"]


@pytest.mark.parametrize(
    "config_overrides, secure",
    [
        ({"site_url": "https://mafia.example"}, True),
        ({"site_url": "http://localhost:8080"}, False),
        ({"site_url": "https://mafia.example", "secure_cookies": False}, False),
        ({"secure_cookies": True}, True),
        ({}, False),  # plain http and no site URL: as the request came
    ],
)
async def test_cookies_are_secure_behind_an_https_site_url_or_when_configured(harness, secure):
    client = harness.client()
    reply = await client.post(
        "/api/register",
        {"username": "alice", "password": PASSWORD},
        csrf=False,
        headers={"X-CSRF-Token": "x", "Cookie": "omerta_csrf=x"},
    )
    assert reply.status == 201, reply.body
    assert bool(reply.response.cookies["omerta_session"]["secure"]) is secure
    fresh = await harness.client().get("/api/csrf")
    assert bool(fresh.response.cookies["omerta_csrf"]["secure"]) is secure


def test_the_site_url_and_cookie_settings_come_from_the_environment():
    assert site_from_env({}) == (None, None)
    assert site_from_env({"OMERTA_SITE_URL": "https://mafia.example"}) == (
        "https://mafia.example",
        None,
    )
    assert site_from_env({"OMERTA_SECURE_COOKIES": "0"}) == (None, False)
    with pytest.raises(ValueError, match="OMERTA_SITE_URL"):
        site_from_env({"OMERTA_SITE_URL": "mafia.example"})
    with pytest.raises(ValueError, match="OMERTA_SECURE_COOKIES"):
        site_from_env({"OMERTA_SECURE_COOKIES": "maybe"})
