"""The default media plane: a selective forwarding unit inside the server
process, on aiortc.

Every seated player has one peer connection with the server, offered by the
server with a layout fixed for the whole game (never renegotiated, so a gate
change is never a signalling round trip): the player's own mic and camera in,
then one audio and one video slot out for every other seat, all on one
bundled transport. aiortc does SDP, ICE and DTLS-SRTP; packets are routed by
`forward.Router` under the gate (see aiortc_glue for how they are taken from
and handed back to aiortc)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable

from aiortc import (
    InvalidAccessError,
    InvalidStateError,
    RTCBundlePolicy,
    RTCConfiguration,
    RTCIceServer,
    RTCPeerConnection,
    RTCRtpSender,
    RTCRtpTransceiver,
    RTCSessionDescription,
)
from aiortc.exceptions import OperationError

from omerta.table.views import KINDS, Gate

from . import aiortc_glue as glue
from .congestion import INTERVAL
from .forward import Router, Slot, Stream
from .ice import IceSettings
from .plane import MediaError, MediaPlane, Signal, trickled
from .rtp import parse_rtcp
from .status import Health

log = logging.getLogger(__name__)

CODEC = {"audio": "opus", "video": "VP8"}  # forwarded as sent: every receiver must take it
MID_URI = "urn:ietf:params:rtp-hdrext:sdes:mid"
PC = "main"
#: Spectator connections one table forwards to at once (each takes every
#: public camera): past it a spectator watches without video.
MAX_SPECTATORS = 20


def _config(ice: IceSettings) -> RTCConfiguration:
    # The server asks STUN for its own address only when it was not told it;
    # it needs no TURN (it is the reachable side). Max-bundle: one transport
    # per player.
    stun = [RTCIceServer(ice.stun[0])] if ice.stun and ice.public_ip is None else []
    return RTCConfiguration(iceServers=stun, bundlePolicy=RTCBundlePolicy.MAX_BUNDLE)


class _Peer:
    """One seat's connection: its mic and camera in, a slot per other seat out."""

    def __init__(
        self,
        seat: int,
        pc: RTCPeerConnection,
        inputs: dict[str, RTCRtpTransceiver],
        outputs: dict[tuple[int, str], RTCRtpTransceiver],
    ):
        self.seat, self.pc, self.inputs, self.outputs = seat, pc, inputs, outputs
        self.wire: glue.Wire | None = None
        self.ingress: dict[int, Stream] = {}  # payload type -> this seat's stream
        self.slots: dict[int, tuple[Stream, Slot]] = {}  # slot SSRC -> its stream, for feedback

    def layout(self) -> list[dict]:
        mine = [
            {"mid": t.mid, "seat": self.seat, "kind": k, "dir": "send"}
            for k, t in self.inputs.items()
        ]
        return mine + [
            {"mid": t.mid, "seat": src, "kind": k, "dir": "recv"}
            for (src, k), t in self.outputs.items()
        ]


class Sfu(MediaPlane):
    def __init__(self, seats: Iterable[int], ice: IceSettings | None = None):
        """`ice`: the deployment's ICE settings, read from the environment
        when not given (omerta/media/ice.py)."""
        self.ice = IceSettings.from_env() if ice is None else ice
        self.seats = tuple(seats)
        self.router = Router(self.seats)
        self.router.max_video = self.ice.max_video_kbps * 1000
        self.peers: dict[int, _Peer] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._reports: asyncio.Task[None] | None = None
        self.health = Health(self.seats)

    # --- MediaPlane -------------------------------------------------------
    # Signalling may run alongside the actor's steps: one seat's signals are
    # taken one at a time, so a reconnect cannot interleave with an answer.

    async def attach(self, seat: int) -> Signal:
        if seat not in self.seats:
            raise MediaError(f"seat {seat} is not at this table")
        async with self._lock(seat):
            await self._detach(seat)
            return await self._attach(seat)

    async def answer(self, seat: int, message: Signal) -> None:
        description = message.get("description")
        if (
            not isinstance(description, dict)
            or description.get("type") != "answer"
            or not isinstance(description.get("sdp"), str)
        ):
            raise MediaError(
                "expected the answer to the server's offer:"
                " {'description': {'type': 'answer', 'sdp': ...}}"
            )
        async with self._lock(seat):
            peer = self._peer(seat, message)
            try:
                await peer.pc.setRemoteDescription(
                    RTCSessionDescription(self.ice.usable_answer(description["sdp"]), "answer")
                )
                self._wire_up(peer)
            except (
                ValueError,
                KeyError,
                InvalidAccessError,
                InvalidStateError,
                OperationError,
            ) as e:
                raise MediaError(f"unusable answer from seat {seat}: {e}") from e

    async def add_candidate(self, seat: int, message: Signal) -> None:
        candidate = trickled(message)
        line = candidate.get("candidate")
        if line is not None and self.ice.refuses(line):
            return  # an address the server may not check: left out, as browsers do
        async with self._lock(seat):
            peer = self._peer(seat, message)
            try:
                await peer.pc.addIceCandidate(glue.candidate(candidate))
            except (ValueError, AssertionError, IndexError) as e:
                raise MediaError(f"bad ICE candidate from seat {seat}: {e}") from e

    async def detach(self, seat: int) -> None:
        async with self._lock(seat):
            await self._detach(seat)

    async def spectate(self, viewer: int, message: Signal) -> Signal | None:
        """A spectator's connection is a receiver like a seat's, under the
        negative number -viewer, with no mic or camera of its own: the same
        answer, candidates and detach; the router opens it what the gate
        opens to spectators."""
        if viewer < 1:
            raise MediaError(f"spectator connections are numbered from 1, not {viewer}")
        key = -viewer
        op = message.get("op")
        if op == "attach":
            async with self._lock(key):
                await self._detach(key)
                if sum(1 for k in self.peers if k < 0) >= MAX_SPECTATORS:
                    raise MediaError(
                        f"this table forwards media to {MAX_SPECTATORS} spectators at"
                        " most: you watch without video"
                    )
                return await self._attach(key)
        if op == "description":
            await self.answer(key, message)
        elif op == "candidate":
            await self.add_candidate(key, message)
        elif op == "detach":
            if key in self.peers:
                await self.detach(key)
            self._locks.pop(key, None)  # spectators come and go: keep no lock of theirs
        else:
            raise MediaError(f"unknown media op {op!r}: attach, description, candidate or detach")
        return None

    def set_gate(self, gate: Gate) -> None:
        self.router.set_gate(gate)

    async def close(self) -> None:
        if self._reports is not None:
            self._reports.cancel()
        for seat in list(self.peers):
            await self.detach(seat)

    def watch(self, tell: Callable[[Signal], None]) -> None:
        """`tell(status)` sends every client of the table each seat's media
        health as it changes (and again now and then, for newcomers)."""
        self.health.tell = tell

    async def _report(self) -> None:
        """Congestion feedback to every publisher and the seats' media
        health to the table, twice a second."""
        while True:
            await asyncio.sleep(INTERVAL)
            now = time.monotonic()
            try:
                self.router.congestion_feedback(now)
                self.health.update(
                    now,
                    {
                        seat: peer.pc.connectionState
                        for seat, peer in self.peers.items()
                        if seat in self.seats  # not the spectators': health is the players'
                    },
                    {key: stream.reception.last_at for key, stream in self.router.streams.items()},
                )
            except Exception:  # a bug here must not end the reports for good
                log.exception("media reports")

    async def _attach(self, seat: int) -> Signal:
        if self._reports is None:  # from the first attach (it needs the running loop)
            self._reports = asyncio.create_task(self._report(), name="media-reports")
        pc = RTCPeerConnection(_config(self.ice))
        inputs = (  # a spectator (a negative key) sends nothing
            {kind: pc.addTransceiver(kind, direction="recvonly") for kind in KINDS}
            if seat in self.seats
            else {}
        )
        outputs = {
            (src, kind): glue.add_slot(pc, kind, f"seat-{src}", f"seat-{src}-{kind}")
            for src in self.seats
            if src != seat
            for kind in KINDS
        }
        for t in pc.getTransceivers():
            t.setCodecPreferences(
                [c for c in RTCRtpSender.getCapabilities(t.kind).codecs if c.name == CODEC[t.kind]]
            )  # no RTX: NACKs resend as is
        peer = self.peers[seat] = _Peer(seat, pc, inputs, outputs)
        peer.wire = glue.Wire(
            pc, lambda data: self._on_rtp(peer, data), lambda data: self._on_rtcp(peer, data)
        )
        if self.ice.ports is not None:
            glue.bind_ports(pc, *self.ice.ports)

        @pc.on("connectionstatechange")
        def _state() -> None:
            if self.peers.get(seat) is peer:
                log.info("seat %s media: %s", seat, pc.connectionState)
                self.router.set_ready(seat, pc.connectionState == "connected")

        await pc.setLocalDescription(await pc.createOffer())
        return {
            "op": "description",
            "pc": PC,
            "description": {"type": "offer", "sdp": self.ice.public_offer(pc.localDescription.sdp)},
            "slots": peer.layout(),
            "iceServers": self.ice.ice_servers(f"seat{seat}", time.time()),
        }

    async def _detach(self, seat: int) -> None:
        peer = self.peers.pop(seat, None)
        if peer is None:
            return
        self.router.remove_receiver(seat)
        for kind in KINDS:
            if seat in self.seats:
                self.router.streams[(seat, kind)].disconnect()
        await peer.pc.close()

    def _lock(self, seat: int) -> asyncio.Lock:
        return self._locks.setdefault(seat, asyncio.Lock())

    # --- wiring -------------------------------------------------------------
    def _peer(self, seat: int, signal: Signal) -> _Peer:
        peer = self.peers.get(seat)
        if peer is None:
            raise MediaError(f"seat {seat} has no media connection: attach first")
        if signal.get("pc", PC) != PC:
            raise MediaError(f"unknown connection {signal.get('pc')!r}; this plane uses {PC!r}")
        return peer

    def _wire_up(self, peer: _Peer) -> None:
        """After the answer: what the client sends feeds its seat's streams;
        the slots of its connection join every other seat's stream."""
        assert peer.wire is not None
        send = peer.wire.send
        for kind, t in peer.inputs.items():
            codecs, exts = glue.negotiated(t)
            stream = self.router.streams[(peer.seat, kind)]
            stream.connect(exts[MID_URI], send, glue.ssrc(t))
            peer.ingress[codecs[CODEC[kind]]] = stream
        slots = {}
        for (src, kind), t in peer.outputs.items():
            codecs, exts = glue.negotiated(t)
            slot = Slot(
                peer.seat, kind, glue.ssrc(t), codecs[CODEC[kind]], exts[MID_URI], str(t.mid), send
            )
            slots[(src, kind)] = slot
            peer.slots[slot.ssrc] = (self.router.streams[(src, kind)], slot)
        self.router.add_receiver(peer.seat, slots)

    def _on_rtp(self, peer: _Peer, data: bytes) -> None:
        stream = peer.ingress.get(data[1] & 0x7F)
        if stream is not None:
            stream.receive(data)

    def _on_rtcp(self, peer: _Peer, data: bytes) -> None:
        worst: float | None = None
        for fb in parse_rtcp(data):
            if fb.kind == "rr":
                found = peer.slots.get(fb.ssrc)
                if found is not None and found[0].video:
                    worst = max(worst or 0.0, fb.loss)
                continue
            if fb.kind == "remb":
                continue  # a receiver's estimate covers all it gets; its losses decide
            if fb.kind == "sr":
                if peer.seat not in self.seats:
                    continue  # a spectator publishes nothing
                for kind in KINDS:
                    stream = self.router.streams[(peer.seat, kind)]
                    if stream.ssrc == fb.ssrc:
                        stream.on_report(fb.ntp, fb.rtp_ts, fb.ssrc)
                continue
            found = peer.slots.get(fb.ssrc)
            if found is None:
                continue
            stream, slot = found
            if fb.kind == "nack":
                stream.on_nack(slot, fb.lost)
            else:
                stream.on_keyframe_request(slot)
        if worst is not None:
            self.router.receiver_loss(peer.seat, worst)
