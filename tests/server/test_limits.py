"""Per-account and per-address limits (issue 12, findings 7, 9, 10; docs/security.md).

Requests name their address in X-Forwarded-For, which the server trusts
here (one proxy hop), so one test can be several players in several places."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace

import aiohttp
import pytest
from argon2 import PasswordHasher

from omerta.runtime.live import LiveTables
from omerta.server import Limit
from omerta.server.limits import UNLIMITED, Limits
from omerta.server.passwords import Busy, Passwords

from .conftest import PASSWORD
from .test_lobby import new_table

LIMITS = replace(
    UNLIMITED,
    forwarded_hops=1,
    login_per_pair=Limit(10, 300),
    login_per_account=Limit(15, 900),
    login_per_address=Limit(100, 300),
    register_per_address=Limit(3, 3600),
    tables_per_account=Limit(3, 3600),
    open_tables_per_account=2,
    bot_games_per_account=Limit(2, 3600),
)


@pytest.fixture
def config_overrides():
    return {"limits": LIMITS}


def at(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


async def login(harness, username: str, password: str, address: str):
    return await harness.client().post(
        "/api/login", {"username": username, "password": password}, headers=at(address)
    )


async def sign_up(harness, username: str, address: str):
    client = harness.client()
    reply = await client.post(
        "/api/register", {"username": username, "password": PASSWORD}, headers=at(address)
    )
    return client, reply


async def test_ten_wrong_guesses_from_one_address_do_not_lock_the_owner_out_elsewhere(harness):
    _, made = await sign_up(harness, "alice", "198.51.100.1")
    assert made.status == 201
    for _ in range(10):
        assert (await login(harness, "alice", "guess", "203.0.113.66")).status == 401
    locked = await login(harness, "alice", PASSWORD, "203.0.113.66")
    assert locked.status == 429 and "from your address" in locked.body["error"]
    assert int(locked.response.headers["Retry-After"]) >= 1
    owner = await login(harness, "alice", PASSWORD, "198.51.100.1")
    assert owner.status == 200


async def test_guesses_spread_over_many_addresses_are_slowed_per_account(harness):
    await sign_up(harness, "alice", "198.51.100.1")
    for n in range(15):
        assert (await login(harness, "alice", "guess", f"203.0.113.{n}")).status == 401
    slowed = await login(harness, "alice", "guess", "203.0.113.99")
    assert slowed.status == 429 and "from new addresses" in slowed.body["error"]
    # the owner, at an address the account signed in from before, still gets in
    assert (await login(harness, "alice", PASSWORD, "198.51.100.1")).status == 200


async def test_registrations_from_one_address_are_limited(harness):
    for n in range(3):
        assert (await sign_up(harness, f"newbie{n}", "203.0.113.7"))[1].status == 201
    _, refused = await sign_up(harness, "newbie3", "203.0.113.7")
    assert (
        refused.status == 429 and "accounts registered from your address" in refused.body["error"]
    )
    assert int(refused.response.headers["Retry-After"]) > 0
    assert (await sign_up(harness, "newbie4", "198.51.100.2"))[1].status == 201


async def test_an_account_holds_a_few_open_tables_and_creates_a_few_an_hour(harness):
    alice = await harness.player("alice")
    first, _ = await new_table(alice), await new_table(alice)
    third = await alice.post("/api/tables", {})
    assert third.status == 429 and "open tables" in third.body["error"]
    assert (await alice.post(f"/api/tables/{first['id']}/bots")).status == 200  # started
    third = await new_table(alice)
    assert (await alice.post(f"/api/tables/{third['id']}/bots")).status == 200
    too_many = await alice.post("/api/tables", {})
    assert too_many.status == 429 and "tables created by you" in too_many.body["error"]


async def test_an_account_starts_a_few_bot_games_an_hour(harness):
    alice = await harness.player("alice")
    for _ in range(2):
        table = await new_table(alice)
        assert (await alice.post(f"/api/tables/{table['id']}/bots")).status == 200
    table = await new_table(alice)
    refused = await alice.post(f"/api/tables/{table['id']}/bots")
    assert refused.status == 429 and "games with bots" in refused.body["error"]


class GatedHasher(PasswordHasher):
    """Hashes only when the test opens the gate: a slow machine on demand."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.gate = threading.Event()

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self.gate.wait(30)
        return super().hash(password, salt=salt)


async def test_password_hashes_run_a_few_at_a_time_and_a_flood_past_the_queue_is_refused():
    hasher = GatedHasher()
    passwords = Passwords(hasher, at_once=1, queue=2)
    running = [asyncio.create_task(passwords.hash(f"password{n}")) for n in range(3)]
    await asyncio.sleep(0.1)  # the first runs, two wait
    with pytest.raises(Busy):
        await passwords.hash("one too many")
    hasher.gate.set()
    assert all(h.startswith("$argon2id$") for h in await asyncio.gather(*running))
    assert (await passwords.hash("room again")).startswith("$argon2id$")


GATED = GatedHasher()


@pytest.mark.parametrize(
    "config_overrides",
    [{"limits": replace(UNLIMITED, hashing_at_once=1, hashing_queue=0), "password_hasher": GATED}],
)
async def test_a_registration_flood_gets_503_with_retry_after_while_hashing_is_full(harness):
    GATED.gate.clear()
    first = asyncio.create_task(sign_up(harness, "first", "127.0.0.1"))
    await asyncio.sleep(0.2)
    _, busy = await sign_up(harness, "second", "127.0.0.1")
    assert busy.status == 503 and "busy" in busy.body["error"]
    assert int(busy.response.headers["Retry-After"]) > 0
    GATED.gate.set()
    assert (await first)[1].status == 201
    assert (await harness.client().get("/api/tables")).status == 200


def test_limits_are_tuned_by_environment_and_a_bad_value_is_named():
    tuned = Limits.from_env(
        {
            "OMERTA_LIMIT_LOGIN_PER_PAIR": "5/60",
            "OMERTA_LIMIT_SOCKETS_PER_ACCOUNT": "3",
            "OMERTA_LIMIT_REQUEST_HEAD_SECONDS": "7.5",
        }
    )
    assert tuned.login_per_pair == Limit(5, 60)
    assert tuned.sockets_per_account == 3 and tuned.request_head_seconds == 7.5
    assert tuned.login_per_address == Limits().login_per_address
    for name, value in (
        ("LOGIN_PER_PAIR", "ten"),
        ("SOCKETS_PER_ACCOUNT", "-1"),
        ("REQUEST_HEAD_SECONDS", "0"),
        ("LOGIN_PER_PAIR", "0/60"),
    ):
        with pytest.raises(ValueError, match=f"OMERTA_LIMIT_{name}"):
            Limits.from_env({f"OMERTA_LIMIT_{name}": value})


def live_tables(db, time_scale):
    return LiveTables(db, 50.0, grace=0.0)


@pytest.mark.parametrize(
    "config_overrides",
    [
        {
            "runtime": live_tables,
            "limits": replace(
                UNLIMITED, forwarded_hops=1, sockets_per_account=2, sockets_per_address=3
            ),
        }
    ],
)
async def test_table_sockets_are_limited_per_account_and_per_address(harness):
    alice, bob = await harness.player("alice"), await harness.player("bob")
    table = await new_table(alice)
    for player in (alice, bob):
        assert (await player.post(f"/api/tables/{table['id']}/sit")).status == 200
    assert (await alice.post(f"/api/tables/{table['id']}/bots")).status == 200
    url = harness.server.make_url(f"/api/tables/{table['id']}/ws")

    async def connect(player, address: str):
        return await player.session.ws_connect(url, headers=at(address))

    first, second = await connect(alice, "198.51.100.1"), await connect(alice, "198.51.100.1")
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await connect(alice, "198.51.100.2")
    assert refused.value.status == 429
    third = await connect(bob, "198.51.100.1")
    with pytest.raises(aiohttp.WSServerHandshakeError) as crowded:
        await connect(bob, "198.51.100.1")
    assert crowded.value.status == 429
    await first.close()
    for _ in range(100):  # the server notices the close on its own time
        try:
            again = await connect(alice, "198.51.100.3")
            break
        except aiohttp.WSServerHandshakeError:
            await asyncio.sleep(0.05)
    else:
        pytest.fail("a closed socket never gave its place back")
    for ws in (second, third, again):
        await ws.close()


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bytes | None:
    """What the server sent before closing, or None if it kept the
    connection open for `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            return await reader.read()
    except TimeoutError:
        return None


SLOW = {"limits": replace(UNLIMITED, request_head_seconds=1.0, request_body_seconds=1.0)}


@pytest.mark.parametrize("config_overrides", [SLOW])
async def test_a_client_that_never_finishes_its_request_head_is_disconnected(harness):
    reader, writer = await asyncio.open_connection(harness.server.host, harness.server.port)
    writer.write(b"GET /api/tables HTTP/1.1\r\nHost: omerta\r\nX-Slow: ")
    await writer.drain()
    loop = asyncio.get_running_loop()
    started = loop.time()
    received = await _closed_within(reader, 20.0)  # generous: a loaded machine
    writer.close()
    assert received is not None, "the server still held the slow connection after 20 s"
    assert loop.time() - started < 20.0


@pytest.mark.parametrize("config_overrides", [SLOW])
async def test_a_client_trickling_its_body_gets_408_and_the_handler_is_freed(harness):
    reader, writer = await asyncio.open_connection(harness.server.host, harness.server.port)
    writer.write(
        b"GET /api/tables HTTP/1.1\r\nHost: omerta\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"user'
    )
    await writer.drain()
    # The answer, not the close: aiohttp then lingers up to 10 s reading the
    # rest of the body, which says nothing about the handler.
    async with asyncio.timeout(20.0):  # generous: a loaded machine
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        body = await reader.readexactly(length)
    writer.close()
    assert head.startswith(b"HTTP/1.1 408"), head
    assert b"did not arrive within 1 s" in body


@pytest.mark.parametrize(
    "config_overrides", [{"limits": replace(UNLIMITED, register_per_address=Limit(2, 3600))}]
)
async def test_without_trusted_proxies_a_forwarded_for_header_cannot_dodge_a_limit(harness):
    for n in range(2):
        assert (await sign_up(harness, f"newbie{n}", f"203.0.113.{n}"))[1].status == 201
    _, refused = await sign_up(harness, "newbie2", "198.51.100.9")
    assert refused.status == 429  # all three came from 127.0.0.1, whatever they claimed
