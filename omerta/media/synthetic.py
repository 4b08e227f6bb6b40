"""Synthetic media for the media tests and benchmarks: a microphone of noise
and a camera of a sliding gradient as aiortc tracks, paced in real time, and
the one RTP header measure both need to find a payload.

Both sources are cheap to encode and different for every seat and every
packet, so a test can trace each forwarded payload back to its sender."""

from __future__ import annotations

import asyncio
import fractions
import random
import time

from aiortc import MediaStreamTrack
from av import AudioFrame, VideoFrame

AUDIO_PTIME = 0.020  # Opus frames of 20 ms
SAMPLE_RATE = 48000


class Paced(MediaStreamTrack):
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


class NoiseAudio(Paced):
    """Stereo noise in 20 ms frames: every Opus packet is different."""

    kind = "audio"
    period = AUDIO_PTIME

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._rng = random.Random(seed)  # fresh noise: repeated input could repeat a packet

    async def recv(self) -> AudioFrame:
        n = await self._tick()
        samples = int(SAMPLE_RATE * self.period)
        frame = AudioFrame(format="s16", layout="stereo", samples=samples)
        frame.planes[0].update(self._rng.randbytes(frame.planes[0].buffer_size))
        frame.pts, frame.sample_rate = n * samples, SAMPLE_RATE
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return frame


class MovingVideo(Paced):
    """A gradient sliding across the picture, different for every seat (and
    cheap to encode, so the test process stays light)."""

    kind = "video"

    def __init__(self, seed: int, width: int, height: int, fps: int) -> None:
        super().__init__()
        self.period, self._size = 1 / fps, (width, height)
        self._texture = bytes(
            (x + 2 * y + 37 * seed) & 0xFF for y in range(height * 3) for x in range(width)
        )

    async def recv(self) -> VideoFrame:
        n = await self._tick()
        frame = VideoFrame(*self._size, "yuv420p")
        pos = n * 7 * self._size[0] % (len(self._texture) // 2)
        for plane in frame.planes:
            plane.update(self._texture[pos : pos + plane.buffer_size])
        frame.pts, frame.time_base = round(n * self.period * 90000), fractions.Fraction(1, 90000)
        return frame


def header_length(data: bytes) -> int:
    """Bytes before the payload of an RTP packet (fixed header, CSRCs, extension)."""
    pos = 12 + 4 * (data[0] & 0x0F)
    if data[0] & 0x10:
        pos += 4 + 4 * int.from_bytes(data[pos + 2 : pos + 4], "big")
    return pos
