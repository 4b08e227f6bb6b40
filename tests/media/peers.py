"""Real aiortc client peers for the media tests (and the benchmark).

A client publishes synthetic media through aiortc's own Opus and VP8
encoders and never stops, whatever the gate. Taps (omerta.media.aiortc_glue)
record every RTP packet it sends and receives in plaintext, so a test can say
who got which packet, when, and from whom. Received media stops at the tap:
decoding every stream live would load the one test process more than the
SFU does, so pictures are decoded afterwards, from the recorded packets."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field

import av
from aiortc import (
    RTCBundlePolicy,
    RTCConfiguration,
    RTCPeerConnection,
    RTCSessionDescription,
)
from av import VideoFrame

from omerta.media import aiortc_glue as glue
from omerta.media.ice import IceSettings
from omerta.media.rtp import Feedback, parse_rtcp
from omerta.media.synthetic import AUDIO_PTIME, MovingVideo, NoiseAudio, header_length

__all__ = [
    "AUDIO_PTIME",
    "LOOPBACK",
    "Arrival",
    "Client",
    "MovingVideo",
    "NoiseAudio",
    "header_length",
    "mid_of",
    "ssrcs_by_mid",
    "vp8_picture",
]

#: The test clients and the server share this machine's private addresses.
LOOPBACK = IceSettings(allow_private=True)


def mid_of(data: bytes, mid_id: int = 1) -> str | None:
    """The `mid` one-byte header extension of an RTP packet, if any."""
    pos = 12 + 4 * (data[0] & 0x0F)
    if not data[0] & 0x10 or data[pos : pos + 2] != b"\xbe\xde":
        return None
    end = pos + 4 + 4 * int.from_bytes(data[pos + 2 : pos + 4], "big")
    i = pos + 4
    while i < end:
        if data[i] == 0:
            i += 1
            continue
        ident, size = data[i] >> 4, (data[i] & 0x0F) + 1
        if ident == mid_id:
            return data[i + 1 : i + 1 + size].decode()
        i += 1 + size
    return None


def ssrcs_by_mid(sdp: str) -> dict[str, int]:
    out = {}
    for section in sdp.split("\r\nm=")[1:]:
        mid = re.search(r"a=mid:(\S+)", section)
        ssrc = re.search(r"a=ssrc:(\d+) ", section)
        if mid and ssrc:
            out[mid.group(1)] = int(ssrc.group(1))
    return out


def vp8_picture(payloads: list[bytes]) -> VideoFrame | None:
    """Decode one VP8 frame from its RTP payloads (RFC 7741), None if it does not decode."""
    data = b""
    for payload in payloads:
        pos = 1
        if payload[0] & 0x80:
            ext, pos = payload[1], 2
            if ext & 0x80:
                pos += 2 if payload[pos] & 0x80 else 1
            pos += bool(ext & 0x40) + bool(ext & 0x30)
        data += payload[pos:]
    try:
        frames = av.CodecContext.create("libvpx", "r").decode(av.Packet(data))
    except av.FFmpegError:
        return None
    return frames[0] if frames else None


@dataclass
class Arrival:
    at: float
    source: int
    kind: str
    seq: int
    ts: int
    marker: bool
    payload: bytes
    mid_ok: bool


@dataclass
class Client:
    """One seat's browser stand-in: joins a media plane, sends forever, records."""

    seat: int
    sent: dict[tuple[int, bytes], float]  # shared: (seat, payload) -> when it was sent
    size: tuple[int, int] = (160, 120)
    fps: int = 15
    arrivals: list[Arrival] = field(default_factory=list)
    feedback: list[Feedback] = field(default_factory=list)  # RTCP from the server
    sends: dict[str, list[tuple[float, bytes]]] = field(
        default_factory=lambda: {"audio": [], "video": []}
    )

    async def join(self, plane) -> None:
        """Attach to `plane`: answer the SFU's offer, or (Janus) offer to
        publish; the plane's pushed messages go to `push`."""
        self.plane = plane
        self.connections: dict[str, RTCPeerConnection] = {}
        self._slots: dict[int, dict] = {}
        self._pt_kind: dict[int, str] = {}
        self.pushed: list[asyncio.Task] = []
        first = await plane.signal(self.seat, {"op": "attach"})
        if first["op"] == "offer-request":
            await self._publish(first)
            return
        offer = first
        self.pc = pc = self._connection(offer["pc"])
        pc.addTrack(NoiseAudio(self.seat))
        pc.addTrack(MovingVideo(self.seat, *self.size, self.fps))
        await pc.setRemoteDescription(RTCSessionDescription(**offer["description"]))
        await pc.setLocalDescription(await pc.createAnswer())
        self._learn(offer, pc)
        self._tap(pc)
        reply = await plane.signal(
            self.seat,
            {
                "op": "description",
                "pc": offer["pc"],
                "description": {"type": "answer", "sdp": pc.localDescription.sdp},
            },
        )
        assert reply is None, reply

    def push(self, message: dict) -> None:
        """A message the plane sends this client unasked (Janus)."""
        self.pushed.append(asyncio.ensure_future(self._pushed(message)))

    async def _pushed(self, message: dict) -> None:
        op, name = message["op"], message["pc"]
        if op == "close":
            pc = self.connections.pop(name, None)
            if pc is not None:
                await pc.close()
        elif op == "offer-request":
            await self._publish(message)
        elif op == "description":  # a subscription offer, new or renegotiated
            pc = self._connection(name)
            fresh = pc.remoteDescription is None
            await pc.setRemoteDescription(RTCSessionDescription(**message["description"]))
            await pc.setLocalDescription(await pc.createAnswer())
            self._learn(message, pc)
            if fresh:
                self._tap(pc)
            reply = await self.plane.signal(
                self.seat,
                {
                    "op": "description",
                    "pc": name,
                    "description": {"type": "answer", "sdp": pc.localDescription.sdp},
                },
            )
            assert reply is None, reply

    async def _publish(self, request: dict) -> None:
        """Offer our mic and camera on a new connection (Janus publishers offer)."""
        self.pc = pc = self._connection(request["pc"])
        pc.addTransceiver(NoiseAudio(self.seat), direction="sendonly")
        pc.addTransceiver(MovingVideo(self.seat, *self.size, self.fps), direction="sendonly")
        await pc.setLocalDescription(await pc.createOffer())
        reply = await self.plane.signal(
            self.seat,
            {
                "op": "description",
                "pc": request["pc"],
                "description": {"type": "offer", "sdp": pc.localDescription.sdp},
            },
        )
        assert reply is not None and reply["op"] == "description", reply
        await pc.setRemoteDescription(RTCSessionDescription(**reply["description"]))
        for t in pc.getTransceivers():
            codecs, _ = glue.negotiated(t)
            self._pt_kind.update({pt: t.kind for pt in codecs.values()})
        self._tap(pc)

    def _connection(self, name: str) -> RTCPeerConnection:
        if name not in self.connections:
            self.connections[name] = RTCPeerConnection(
                RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE)
            )
        return self.connections[name]

    def _learn(self, offer: dict, pc: RTCPeerConnection) -> None:
        """Which SSRC carries which seat (recv slots), which payload types are ours (send)."""
        sdp = offer["description"]["sdp"]
        ext = re.search(r"a=extmap:(\d+) urn:ietf:params:rtp-hdrext:sdes:mid", sdp)
        mid_id = int(ext.group(1)) if ext else 1
        slot_of = {s["mid"]: {**s, "mid_id": mid_id} for s in offer["slots"]}
        self._slots.update(
            {
                ssrc: slot_of[mid]
                for mid, ssrc in ssrcs_by_mid(sdp).items()
                if mid in slot_of and slot_of[mid]["dir"] == "recv"
            }
        )
        mine = {s["mid"] for s in offer["slots"] if s["dir"] == "send"}
        for t in pc.getTransceivers():
            if t.mid in mine:
                codecs, _ = glue.negotiated(t)
                self._pt_kind.update({pt: t.kind for pt in codecs.values()})

    def _tap(self, pc: RTCPeerConnection) -> None:
        glue.tap(
            pc,
            on_rtp=self._received,
            on_send=self._sent,
            decode=False,
            on_rtcp=lambda data: self.feedback.extend(parse_rtcp(data)),
        )

    async def connected(self) -> None:
        while not self.connections or any(
            pc.connectionState != "connected" for pc in self.connections.values()
        ):
            await asyncio.sleep(0.01)

    async def ready(self, seats: set[int]) -> None:
        """Until connected, with a way in from each of `seats`' mics and cameras."""
        wanted = {(s, kind) for s in seats - {self.seat} for kind in ("audio", "video")}
        while not wanted <= {(s["seat"], s["kind"]) for s in self._slots.values()}:
            await asyncio.sleep(0.01)
        await self.connected()

    def _sent(self, data: bytes) -> None:
        kind = self._pt_kind.get(data[1] & 0x7F)
        if kind is not None:
            now, payload = time.monotonic(), data[header_length(data) :]
            self.sent.setdefault((self.seat, payload), now)
            self.sends[kind].append((now, payload))

    def _received(self, data: bytes) -> None:
        slot = self._slots.get(int.from_bytes(data[8:12], "big"))
        if slot is None:
            return
        self.arrivals.append(
            Arrival(
                time.monotonic(),
                slot["seat"],
                slot["kind"],
                int.from_bytes(data[2:4], "big"),
                int.from_bytes(data[4:8], "big"),
                bool(data[1] & 0x80),
                data[header_length(data) :],
                mid_of(data, slot["mid_id"]) == slot["mid"],
            )
        )

    async def close(self) -> None:
        for task in self.pushed:
            task.cancel()
        for pc in list(self.connections.values()):  # a pushed message may still add one
            await pc.close()
