"""Spectators' media (issue 19, G3–G5): a spectator's connection only
receives, and only what the gate opens to spectators (`Gate.public`): the
day's cameras and the speaker's mic, nothing at night; it is offered no
send slot; a table forwards to a bounded number of them; the table
socket's spectators get it, with real aiortc peers on loopback."""

from __future__ import annotations

import asyncio

import pytest
from aiortc import RTCSessionDescription

from omerta.media import Sfu
from omerta.media import sfu as sfu_module
from omerta.media.forward import Router, Slot
from omerta.table.views import Gate
from tests.media.peers import LOOPBACK, Client

SEATS = range(1, 11)
EVERYONE = frozenset(SEATS)
DAY = Gate({1: EVERYONE - {1}}, {1: EVERYONE - {1}, 2: EVERYONE - {2}}, frozenset({1, 2}))
NIGHT = Gate({}, {1: frozenset({2}), 2: frozenset({1})})  # G2: a black room, no spectator


class Watcher(Client):
    """A spectator's browser stand-in: it answers the offer with nothing to send."""

    viewer = 1

    async def join(self, plane) -> None:
        self.plane = plane
        self.connections, self._slots, self._pt_kind, self.pushed = {}, {}, {}, []
        offer = await plane.signal(None, {"op": "attach"}, self.viewer)
        assert offer["op"] == "description", offer
        self.offer = offer
        self.pc = pc = self._connection(offer["pc"])
        await pc.setRemoteDescription(RTCSessionDescription(**offer["description"]))
        await pc.setLocalDescription(await pc.createAnswer())
        self._learn(offer, pc)
        self._tap(pc)
        answer = {"type": "answer", "sdp": pc.localDescription.sdp}
        reply = await plane.signal(
            None, {"op": "description", "pc": offer["pc"], "description": answer}, self.viewer
        )
        assert reply is None, reply


def test_G3_the_router_opens_a_spectator_only_what_the_gate_makes_public():
    router = Router(SEATS)
    slots = {
        r: Slot(r, "video", ssrc=100 + r, pt=96, mid_id=1, mid="2", send=lambda _: None)
        for r in (2, -1)
    }
    for receiver, slot in slots.items():
        router.add_receiver(receiver, {(1, "video"): slot})
        router.set_ready(receiver, True)
    stream = router.streams[(1, "video")]
    router.set_gate(DAY)
    assert {s.receiver for s in stream.open} == {2, -1}
    router.set_gate(NIGHT)
    assert {s.receiver for s in stream.open} == {2}  # the black room; no spectator
    router.set_gate(Gate({}, {1: frozenset({3})}, frozenset()))  # open to a seat, not public
    assert stream.open == []


async def test_G3_a_spectator_receives_the_days_public_media_and_nothing_at_night(monkeypatch):
    monkeypatch.setattr(sfu_module, "MAX_SPECTATORS", 1)
    plane = Sfu(SEATS, LOOPBACK)
    sent: dict = {}
    one, watcher = Client(1, sent), Watcher(0, sent)
    try:
        assert (await plane.signal(None, {"op": "attach"}))["op"] == "error"  # no viewer number
        await one.join(plane)
        await watcher.join(plane)
        slots = watcher.offer["slots"]
        assert all(s["dir"] == "recv" for s in slots) and len(slots) == 2 * len(SEATS)
        second = await plane.signal(None, {"op": "attach"}, 2)
        assert second["op"] == "error" and "spectators" in second["error"]
        await asyncio.wait_for(asyncio.gather(one.connected(), watcher.connected()), 10)
        plane.set_gate(DAY)
        await asyncio.sleep(0.6)
        day = {(a.source, a.kind) for a in watcher.arrivals}
        assert day == {(1, "audio"), (1, "video")}
        plane.set_gate(NIGHT)
        await asyncio.sleep(0.15)  # what was already on its way
        night = len(watcher.arrivals)
        await asyncio.sleep(0.4)
        assert watcher.arrivals[night:] == []
        assert await plane.signal(None, {"op": "detach"}, 1) is None
        assert -1 not in plane.peers
    finally:
        await one.close()
        await watcher.close()
        await plane.close()


@pytest.mark.parametrize("viewer", [0, -3])
async def test_a_spectator_connection_needs_a_number_from_one(viewer):
    plane = Sfu(SEATS, LOOPBACK)
    try:
        reply = await plane.signal(None, {"op": "attach"}, viewer)
        assert reply is not None and reply["op"] == "error"
    finally:
        await plane.close()
