"""The SFU as the table actor sees it, through `signal`: the offer's fixed
layout, bad signals, trickled candidates, and seats that reconnect in the
middle of a phase or leave."""

from __future__ import annotations

import asyncio
import re

import pytest
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

from omerta.media import MediaPlane, Sfu
from omerta.media.rtp import vp8_keyframe_start
from omerta.table.views import Gate
from tests.media.peers import LOOPBACK, Client

SEATS = range(1, 11)


@pytest.fixture
async def sfu():
    plane = Sfu(SEATS, LOOPBACK)
    yield plane
    await plane.close()


async def test_the_offer_has_a_fixed_bundled_layout(sfu):
    assert isinstance(sfu, MediaPlane)
    offer = await sfu.signal(3, {"type": "media", "op": "attach"})
    assert offer["op"] == "description" and offer["pc"] == "main"
    assert offer["description"]["type"] == "offer"
    slots = offer["slots"]
    assert slots[:2] == [
        {"mid": slots[0]["mid"], "seat": 3, "kind": "audio", "dir": "send"},
        {"mid": slots[1]["mid"], "seat": 3, "kind": "video", "dir": "send"},
    ]
    assert {(s["seat"], s["kind"]) for s in slots[2:]} == {
        (seat, kind) for seat in SEATS if seat != 3 for kind in ("audio", "video")
    }
    assert all(s["dir"] == "recv" for s in slots[2:])
    sdp = offer["description"]["sdp"]
    assert len({s["mid"] for s in slots}) == len(slots) == sdp.count("\r\nm=")
    assert re.search(r"a=group:BUNDLE " + " ".join(s["mid"] for s in slots), sdp)
    codecs = set(re.findall(r"a=rtpmap:\d+ ([\w-]+)/", sdp))
    assert codecs == {"opus", "VP8"}  # forwarded as sent, no RTX
    assert "a=msid:seat-7 seat-7-video" in sdp


@pytest.mark.parametrize(
    "seat, message",
    [
        (None, {"op": "attach"}),  # a spectator
        (11, {"op": "attach"}),  # not a seat of this table
        (1, {"op": "dance"}),
        (
            2,
            {
                "op": "description",
                "pc": "main",  # before attaching
                "description": {"type": "answer", "sdp": "v=0"},
            },
        ),
        (
            1,
            {"op": "description", "pc": "publish", "description": {"type": "answer", "sdp": "v=0"}},
        ),
        (1, {"op": "description", "pc": "main", "description": {"type": "offer", "sdp": "v=0"}}),
        (1, {"op": "description", "pc": "main", "description": "v=0"}),
        (
            1,
            {
                "op": "description",
                "pc": "main",
                "description": {"type": "answer", "sdp": "v=0\r\n"},
            },
        ),
        (1, {"op": "candidate", "pc": "main", "candidate": {"candidate": "candidate:nonsense"}}),
        (1, {"op": "candidate", "pc": "main", "candidate": "candidate:1 1 udp"}),
        (1, {"op": "candidate", "pc": "main", "candidate": {"candidate": 7, "sdpMid": "0"}}),
        (1, {"op": "candidate", "pc": "main", "candidate": {"candidate": "", "sdpMid": ["0"]}}),
    ],
)
async def test_bad_signals_are_answered_with_an_error(sfu, seat, message):
    await sfu.signal(1, {"op": "attach"})
    reply = await sfu.signal(seat, message)
    assert reply["op"] == "error" and reply["error"]


async def test_candidates_may_be_trickled(sfu):
    offer = await sfu.signal(1, {"op": "attach"})
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    try:
        await pc.setRemoteDescription(RTCSessionDescription(**offer["description"]))
        await pc.setLocalDescription(await pc.createAnswer())
        lines = pc.localDescription.sdp.split("\r\n")
        bare = "\r\n".join(x for x in lines if not x.startswith("a=candidate"))
        assert (
            await sfu.signal(
                1,
                {"op": "description", "pc": "main", "description": {"type": "answer", "sdp": bare}},
            )
            is None
        )
        for line in lines + ["a="]:  # "a=": end of candidates
            if line.startswith("a=candidate") or line == "a=":
                assert (
                    await sfu.signal(
                        1,
                        {
                            "op": "candidate",
                            "pc": "main",
                            "candidate": {"candidate": line[2:], "sdpMid": "0", "sdpMLineIndex": 0},
                        },
                    )
                    is None
                )
        for _ in range(500):
            if pc.connectionState == "connected":
                break
            await asyncio.sleep(0.01)
        assert pc.connectionState == "connected"
    finally:
        await pc.close()


async def test_a_seat_that_reconnects_is_heard_and_hears_again(sfu):
    sent: dict = {}
    one, two = Client(1, sent), Client(2, sent)
    clients = [one, two]
    try:
        for c in clients:
            await c.join(sfu)
        await asyncio.wait_for(asyncio.gather(one.connected(), two.connected()), 10)
        everyone = frozenset(SEATS)
        sfu.set_gate(
            Gate({1: everyone - {1}, 2: everyone - {2}}, {1: everyone - {1}, 2: everyone - {2}})
        )
        await asyncio.sleep(0.5)
        await one.close()
        reconnected = len(two.arrivals)
        again = Client(1, sent)  # a new connection for seat 1, gate unchanged
        clients.append(again)
        await again.join(sfu)
        await asyncio.wait_for(again.connected(), 10)
        await asyncio.sleep(0.8)
        after = [a for a in two.arrivals[reconnected:] if a.source == 1]
        video = [a for a in after if a.kind == "video"]
        assert {a.kind for a in after} == {"audio", "video"}
        assert vp8_keyframe_start(video[0].payload)
        for kind in ("audio", "video"):
            seqs = [a.seq for a in two.arrivals if (a.source, a.kind) == (1, kind)]
            assert all((b - a) & 0xFFFF == 1 for a, b in zip(seqs, seqs[1:]))
        assert {a.kind for a in again.arrivals if a.source == 2} == {"audio", "video"}
        assert await sfu.signal(1, {"op": "detach"}) is None
        await asyncio.sleep(0.1)  # what was already on its way
        gone = len(two.arrivals)
        await asyncio.sleep(0.3)
        assert not [a for a in two.arrivals[gone:] if a.source == 1]
    finally:
        for c in clients:
            await c.close()
