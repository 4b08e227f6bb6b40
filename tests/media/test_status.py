"""Each seat's media health as the table sees it: connected, reconnecting or
offline, and whether its camera and mic reach the server (docs/media.md,
"Media health")."""

from __future__ import annotations

import asyncio

from omerta.media import Sfu
from omerta.media.status import REPEAT, SILENT, Health
from tests.media.peers import LOOPBACK, Client


def test_a_silent_camera_shows_as_off_and_a_lost_connection_as_reconnecting():
    told: list[dict] = []
    health = Health([1, 2, 3])
    health.tell = told.append
    packets = {(1, "video"): 10.0, (1, "audio"): 10.0, (2, "audio"): 10.0}
    health.update(10.5, {1: "connected", 2: "connected"}, packets)
    assert told[-1] == {
        "op": "status",
        "seats": [
            {"seat": 1, "link": "connected", "camera": True, "mic": True},
            {"seat": 2, "link": "connected", "camera": False, "mic": True},  # no camera
            {"seat": 3, "link": "offline", "camera": False, "mic": False},
        ],
    }
    health.update(11.0, {1: "connected", 2: "connected"}, packets)
    assert len(told) == 1  # unchanged: not sent again yet
    health.update(10.0 + SILENT + 0.5, {1: "disconnected", 2: "connected"}, packets)
    assert [(s["link"], s["camera"]) for s in told[-1]["seats"]][:2] == [
        ("reconnecting", False),
        ("connected", False),
    ]
    health.update(20.0 + REPEAT, {1: "disconnected", 2: "connected"}, packets)
    assert len(told) == 3  # repeated for newcomers


async def test_the_sfu_tells_the_table_who_is_connected_with_camera_and_mic():
    sfu = Sfu(range(1, 4), LOOPBACK)
    told: list[dict] = []
    sfu.watch(told.append)
    client = Client(1, {})
    try:
        await client.join(sfu)
        await asyncio.wait_for(client.connected(), 10)
        for _ in range(100):
            if told and told[-1]["seats"][0]["camera"] and told[-1]["seats"][0]["mic"]:
                break
            await asyncio.sleep(0.1)
        assert told[-1]["seats"] == [
            {"seat": 1, "link": "connected", "camera": True, "mic": True},
            {"seat": 2, "link": "offline", "camera": False, "mic": False},
            {"seat": 3, "link": "offline", "camera": False, "mic": False},
        ]
        await sfu.signal(1, {"op": "detach"})
        for _ in range(100):
            if told[-1]["seats"][0]["link"] == "offline":
                break
            await asyncio.sleep(0.1)
        assert told[-1]["seats"][0]["link"] == "offline"
    finally:
        await client.close()
        await sfu.close()
