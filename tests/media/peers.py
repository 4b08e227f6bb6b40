"""Real aiortc client peers for the media tests (and the benchmark).

A client publishes synthetic media through aiortc's own Opus and VP8
encoders and never stops, whatever the gate. Taps (omerta.media.aiortc_glue)
record every RTP packet it sends and receives in plaintext, so a test can say
who got which packet, when, and from whom. Received media stops at the tap:
decoding every stream live would load the one test process more than the
SFU does, so pictures are decoded afterwards, from the recorded packets."""
from __future__ import annotations

import asyncio
import fractions
import random
import re
import time
from dataclasses import dataclass, field

from aiortc import (MediaStreamTrack, RTCBundlePolicy, RTCConfiguration, RTCPeerConnection,
                    RTCSessionDescription)
import av
from av import AudioFrame, VideoFrame

from omerta.media import aiortc_glue as glue

AUDIO_PTIME = 0.020                 # Opus frames of 20 ms
SAMPLE_RATE = 48000


class _Paced(MediaStreamTrack):
    """Yields on a fixed wall-clock period (catching up after a stall)."""

    period = 0.0

    def __init__(self) -> None:
        super().__init__()
        self._start: float | None = None
        self._n = 0

    async def _tick(self) -> int:
        if self._start is None:
            self._start = time.monotonic()
        else:
            self._n += 1
            wait = self._start + self._n * self.period - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        return self._n


class NoiseAudio(_Paced):
    """Stereo noise in 20 ms frames: every Opus packet is different."""

    kind = "audio"
    period = AUDIO_PTIME

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._rng = random.Random(seed)     # fresh noise: repeated input could repeat a packet

    async def recv(self) -> AudioFrame:
        n = await self._tick()
        samples = int(SAMPLE_RATE * self.period)
        frame = AudioFrame(format="s16", layout="stereo", samples=samples)
        frame.planes[0].update(self._rng.randbytes(frame.planes[0].buffer_size))
        frame.pts, frame.sample_rate = n * samples, SAMPLE_RATE
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return frame


class MovingVideo(_Paced):
    """A gradient sliding across the picture, different for every seat (and
    cheap to encode, so the test process stays light)."""

    kind = "video"

    def __init__(self, seed: int, width: int, height: int, fps: int) -> None:
        super().__init__()
        self.period, self._size = 1 / fps, (width, height)
        self._texture = bytes((x + 2 * y + 37 * seed) & 0xFF
                              for y in range(height * 3) for x in range(width))

    async def recv(self) -> VideoFrame:
        n = await self._tick()
        frame = VideoFrame(*self._size, "yuv420p")
        pos = n * 7 * self._size[0] % (len(self._texture) // 2)
        for plane in frame.planes:
            plane.update(self._texture[pos:pos + plane.buffer_size])
        frame.pts, frame.time_base = round(n * self.period * 90000), fractions.Fraction(1, 90000)
        return frame


def header_length(data: bytes) -> int:
    """Bytes before the payload of an RTP packet (fixed header, CSRCs, extension)."""
    pos = 12 + 4 * (data[0] & 0x0F)
    if data[0] & 0x10:
        pos += 4 + 4 * int.from_bytes(data[pos + 2:pos + 4], "big")
    return pos


def mid_of(data: bytes, mid_id: int = 1) -> str | None:
    """The `mid` one-byte header extension of an RTP packet, if any."""
    pos = 12 + 4 * (data[0] & 0x0F)
    if not data[0] & 0x10 or data[pos:pos + 2] != b"\xbe\xde":
        return None
    end = pos + 4 + 4 * int.from_bytes(data[pos + 2:pos + 4], "big")
    i = pos + 4
    while i < end:
        if data[i] == 0:
            i += 1
            continue
        ident, size = data[i] >> 4, (data[i] & 0x0F) + 1
        if ident == mid_id:
            return data[i + 1:i + 1 + size].decode()
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
    sent: dict[tuple[int, bytes], float]      # shared: (seat, payload) -> when it was sent
    size: tuple[int, int] = (160, 120)
    fps: int = 15
    arrivals: list[Arrival] = field(default_factory=list)
    sends: dict[str, list[tuple[float, bytes]]] = field(
        default_factory=lambda: {"audio": [], "video": []})

    async def join(self, plane) -> None:
        offer = await plane.signal(self.seat, {"op": "attach"})
        self.pc = pc = RTCPeerConnection(RTCConfiguration(
            iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
        pc.addTrack(NoiseAudio(self.seat))
        pc.addTrack(MovingVideo(self.seat, *self.size, self.fps))
        await pc.setRemoteDescription(RTCSessionDescription(**offer["description"]))
        await pc.setLocalDescription(await pc.createAnswer())
        slot_of = {s["mid"]: s for s in offer["slots"]}
        sdp = offer["description"]["sdp"]
        self._slots = {ssrc: slot_of[mid] for mid, ssrc in ssrcs_by_mid(sdp).items()
                       if slot_of[mid]["dir"] == "recv"}
        mine = {s["kind"]: s["mid"] for s in offer["slots"] if s["dir"] == "send"}
        self._pt_kind: dict[int, str] = {}
        for t in pc.getTransceivers():
            if t.mid in mine.values():
                codecs, _ = glue.negotiated(t)
                self._pt_kind.update({pt: t.kind for pt in codecs.values()})
        glue.tap(pc, on_rtp=self._received, on_send=self._sent, decode=False)
        reply = await plane.signal(self.seat, {
            "op": "description", "pc": offer["pc"],
            "description": {"type": "answer", "sdp": pc.localDescription.sdp}})
        assert reply is None, reply

    async def connected(self) -> None:
        while self.pc.connectionState != "connected":
            await asyncio.sleep(0.01)

    def _sent(self, data: bytes) -> None:
        kind = self._pt_kind.get(data[1] & 0x7F)
        if kind is not None:
            now, payload = time.monotonic(), data[header_length(data):]
            self.sent.setdefault((self.seat, payload), now)
            self.sends[kind].append((now, payload))

    def _received(self, data: bytes) -> None:
        slot = self._slots.get(int.from_bytes(data[8:12], "big"))
        if slot is None:
            return
        self.arrivals.append(Arrival(time.monotonic(), slot["seat"], slot["kind"],
                                     int.from_bytes(data[2:4], "big"),
                                     int.from_bytes(data[4:8], "big"), bool(data[1] & 0x80),
                                     data[header_length(data):], mid_of(data) == slot["mid"]))

    async def close(self) -> None:
        await self.pc.close()
