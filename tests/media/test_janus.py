"""The Janus VideoRoom plane against a real Janus on loopback: the gate
holds at Janus's ingress whatever a client sends, signals it cannot use are
refused, and Janus lets nobody but the plane in or make rooms."""

from __future__ import annotations

import asyncio
import time

import pytest

from omerta.cli import main
from omerta.media.janus import JanusPlane, JanusPool, JanusSettings
from omerta.media.janus_api import Janus, JanusError
from omerta.table.views import CLOSED, Gate
from tests.media.janus_server import ADMIN_KEY, API_SECRET, janus
from tests.media.peers import LOOPBACK, Client
from tests.media.planes import janus_plane, seat

SEATS = range(1, 11)


@pytest.fixture
async def server(tmp_path):
    with janus(tmp_path / "janus") as running:
        yield running


@pytest.fixture
async def plane(tmp_path):
    async with janus_plane(SEATS, tmp_path / "janus") as table:
        yield table


async def seated(plane: JanusPlane, seats: tuple[int, ...]) -> dict[int, Client]:
    sent: dict[tuple[int, bytes], float] = {}
    clients = {seat: Client(seat, sent) for seat in seats}
    await seat(plane, clients)
    return clients


def got(client: Client, source: int, kind: str, since: float) -> int:
    return sum(1 for a in client.arrivals if (a.source, a.kind) == (source, kind) and a.at > since)


async def test_G1_a_closed_source_is_dropped_at_janus_ingress_even_if_a_subscription_sends(plane):
    clients = await seated(plane, (1, 2))
    try:
        plane.set_gate(Gate({}, {1: frozenset({2})}))  # 1's camera to 2
        await plane.settled()
        opened = time.monotonic()
        await asyncio.sleep(0.5)
        assert got(clients[2], 1, "video", opened) > 0
        assert got(clients[2], 1, "audio", opened) == 0  # its mic reaches nobody
        plane.set_gate(CLOSED)
        await plane.settled()
        # As if the per-subscriber gate failed open: 2's subscription is told
        # to send 1's camera and mic, but Janus holds them at ingress.
        sub = plane.subs[2]
        await sub.handle.message(
            {"request": "configure", "streams": [{"mid": m, "send": True} for m in sub.streams]},
            answered_later=True,
        )
        closed = time.monotonic()
        await asyncio.sleep(1.0)
        assert got(clients[2], 1, "video", closed + 0.1) == 0
        assert got(clients[2], 1, "audio", closed + 0.1) == 0
        assert any(t > closed + 0.5 for t, _ in clients[1].sends["video"])  # 1 kept sending
    finally:
        for client in clients.values():
            await client.close()


async def test_a_publisher_offering_a_second_camera_is_refused(plane):
    first = await plane.signal(1, {"op": "attach"})
    assert first["op"] == "offer-request" and first["pc"] == "publish-1"
    assert [s["kind"] for s in first["slots"]] == ["audio", "video"]
    sdp = "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\n"
    reply = await plane.signal(
        1, {"op": "description", "pc": "publish-1", "description": {"type": "offer", "sdp": sdp}}
    )
    assert reply is not None and "at most one audio and one video" in reply["error"]


async def test_signals_janus_cannot_use_are_refused(plane):
    offer = {"op": "description", "pc": "publish-1", "description": {"type": "offer", "sdp": ""}}
    reply = await plane.signal(3, offer)
    assert reply is not None and "attach first" in reply["error"]
    assert "not at this table" in (await plane.signal(11, {"op": "attach"}) or {})["error"]
    await plane.signal(3, {"op": "attach"})
    answer = {**offer, "description": {"type": "answer", "sdp": ""}}
    reply = await plane.signal(3, answer)
    assert reply is not None and "expected an offer on 'publish-1'" in reply["error"]
    reply = await plane.signal(3, {"op": "candidate", "pc": "subscribe-1", "candidate": {}})
    assert reply is not None and "no connection 'subscribe-1'" in reply["error"]


async def test_janus_lets_in_only_the_api_secret_and_makes_rooms_only_for_the_admin_key(server):
    stranger = Janus(server.url, api_secret=None)
    await stranger.connect()
    try:
        with pytest.raises(JanusError, match="Unauthorized"):
            await stranger.session()
    finally:
        await stranger.close()
    insider = Janus(server.url, API_SECRET)
    await insider.connect()
    try:
        handle = await (await insider.session()).attach()
        with pytest.raises(JanusError, match="admin_key"):
            await handle.message({"request": "create", "room": 77, "publishers": 10})
        await handle.message(
            {"request": "create", "room": 78, "admin_key": ADMIN_KEY, "secret": "s"}
        )
        with pytest.raises(JanusError, match="secret"):
            await handle.message(
                {"request": "moderate", "room": 78, "id": 1, "mid": "0", "mute": True}
            )
    finally:
        await insider.close()


async def test_each_seats_media_health_comes_from_janus(plane):
    told: list[dict] = []
    plane.watch(told.append)
    clients = await seated(plane, (1, 2))
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            seats = {s["seat"]: s for s in told[-1]["seats"]} if told else {}
            if seats and all(seats[s]["camera"] and seats[s]["mic"] for s in (1, 2)):
                break
            await asyncio.sleep(0.1)
        assert seats[1] == {"seat": 1, "link": "connected", "camera": True, "mic": True}
        assert seats[2]["link"] == "connected"
        assert seats[3] == {"seat": 3, "link": "offline", "camera": False, "mic": False}
        await plane.signal(2, {"op": "detach"})
        await asyncio.sleep(0.8)
        assert {s["seat"]: s for s in told[-1]["seats"]}[2]["link"] == "offline"
    finally:
        for client in clients.values():
            await client.close()


async def test_a_seat_that_reconnects_is_seen_again_under_the_gate(plane):
    clients = await seated(plane, (1, 2))
    again = Client(2, clients[2].sent)
    try:
        plane.set_gate(Gate({}, {2: frozenset({1})}))  # 2's camera to 1
        await plane.settled()
        await clients[2].close()
        plane.deliver(lambda seat, message: (again if seat == 2 else clients[seat]).push(message))
        await again.join(plane)
        await asyncio.wait_for(asyncio.gather(again.ready({1, 2}), clients[1].ready({1, 2})), 15)
        back = time.monotonic()
        await asyncio.sleep(1.0)
        assert got(clients[1], 2, "video", back) and not got(clients[1], 2, "audio", back)
        assert not got(again, 1, "video", back)
    finally:
        for client in (clients[1], again):
            await client.close()


def test_omerta_serve_with_janus_needs_its_urls(capsys, monkeypatch):
    monkeypatch.delenv("OMERTA_JANUS_URLS", raising=False)
    assert main(["serve", "--media", "janus"]) == 2
    assert "--media janus needs at least one --janus-url" in capsys.readouterr().err
    assert main(["serve", "--media", "janus", "--janus-url", "http://10.0.0.5:8088"]) == 2
    assert "not a Janus WebSocket URL" in capsys.readouterr().err


def test_janus_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("OMERTA_JANUS_URLS", "ws://10.0.0.5:8188, ws://10.0.0.6:8188")
    monkeypatch.setenv("OMERTA_JANUS_API_SECRET", "s")
    monkeypatch.setenv("OMERTA_JANUS_ADMIN_KEY", "k")
    assert JanusSettings.from_env() == JanusSettings(
        ("ws://10.0.0.5:8188", "ws://10.0.0.6:8188"), "s", "k"
    )
    assert JanusSettings.from_env(["ws://127.0.0.1:8188"]).urls == ("ws://127.0.0.1:8188",)


async def test_tables_starting_together_are_spread_over_the_janus_servers(tmp_path):
    with janus(tmp_path / "a") as a, janus(tmp_path / "b") as b:
        pool = JanusPool(JanusSettings((a.url, b.url), API_SECRET, ADMIN_KEY))
        tables = [JanusPlane(SEATS, pool, LOOPBACK) for _ in range(4)]
        try:
            await asyncio.gather(*(table.attach(1) for table in tables))
            assert sorted(str(table.url) for table in tables) == sorted([a.url, b.url] * 2)
        finally:
            for table in tables:
                await table.close()
            await pool.close()


async def test_a_room_left_by_the_tables_last_server_is_replaced(server):
    settings = JanusSettings((server.url,), API_SECRET, ADMIN_KEY)
    gone = JanusPool(settings)
    await JanusPlane(SEATS, gone, LOOPBACK, table=7).attach(1)
    await gone.close()  # that server died without closing the table's media
    pool = JanusPool(settings)
    table = JanusPlane(SEATS, pool, LOOPBACK, table=7)
    try:
        assert (await table.attach(1))["op"] == "offer-request"
        assert await pool.load(server.url) == 1
    finally:
        await table.close()
        await pool.close()
