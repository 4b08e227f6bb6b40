"""Congestion feedback to publishers (docs/media.md, "Bitrate").

The server terminates each player's uplink, so it tells each browser what
its mic and camera get through: a receiver report per stream (RFC 3550: loss,
jitter, round-trip time), which drives the browser's own loss-based estimate
of its uplink, and for each camera a REMB, the most that every receiver the
camera reaches can take, which caps it. A receiver's allowance grows while it
loses almost nothing and shrinks when it loses much, as Google congestion
control does for its loss-based part. Without these a browser stays at its
start bitrate (some 300 kbit/s) and never learns its uplink is poor."""

from __future__ import annotations

import math

#: bits/s asked of a camera at most: 640x480 faces need no more, and a
#: receiver gets nine of them by day
MAX_VIDEO = 1_200_000
#: bits/s never asked below: one poor receiver must not blank every camera
MIN_VIDEO = 150_000
HIGH_LOSS, LOW_LOSS = 0.10, 0.02
GROWTH = 1.08  # per second while a receiver loses under LOW_LOSS
INTERVAL = 0.5  # s between reports to each publisher


class Reception:
    """What the server received of one source stream, for its receiver
    reports (RFC 3550 appendix A.3 and A.8), and when it last got a packet."""

    __slots__ = (
        "base",
        "clock_rate",
        "cycles",
        "expected_prior",
        "jitter",
        "last_at",
        "lsr",
        "lsr_at",
        "max_seq",
        "received",
        "received_prior",
        "transit",
    )

    def __init__(self, clock_rate: int):
        self.clock_rate = clock_rate
        self.reset()
        self.last_at = -math.inf

    def reset(self) -> None:
        """A new source SSRC: its numbers start over."""
        self.base: int | None = None
        self.max_seq = self.cycles = self.received = 0
        self.expected_prior = self.received_prior = 0
        self.jitter = 0.0
        self.transit: float | None = None
        self.lsr, self.lsr_at = 0, 0.0

    def packet(self, seq: int, ts: int, now: float) -> None:
        self.last_at = now
        self.received += 1
        if self.base is None:
            self.base = self.max_seq = seq
        elif 0 < (seq - self.max_seq) & 0xFFFF < 0x8000:
            if seq < self.max_seq:
                self.cycles += 1 << 16
            self.max_seq = seq
        transit = now * self.clock_rate - ts
        if self.transit is not None:
            self.jitter += (abs(transit - self.transit) - self.jitter) / 16
        self.transit = transit

    def sender_report(self, ntp: int, now: float) -> None:
        self.lsr, self.lsr_at = (ntp >> 16) & 0xFFFFFFFF, now

    def block(self, now: float) -> tuple[int, int, int, int, int, int] | None:
        """(fraction lost, cumulative lost, extended highest sequence, jitter,
        LSR, DLSR) since the last block; None before the first packet."""
        if self.base is None:
            return None
        highest = self.cycles + self.max_seq
        expected = highest - self.base + 1
        lost = expected - self.received
        interval = expected - self.expected_prior
        lost_interval = interval - (self.received - self.received_prior)
        self.expected_prior, self.received_prior = expected, self.received
        fraction = (lost_interval << 8) // interval if interval > 0 and lost_interval > 0 else 0
        dlsr = int((now - self.lsr_at) * 65536) if self.lsr else 0
        return min(fraction, 255), lost, highest, int(self.jitter), self.lsr, dlsr


class Downlink:
    """How much of each camera one receiver can take, from the losses it reports."""

    __slots__ = ("at", "ceiling", "limit", "loss")

    def __init__(self, now: float, ceiling: int = MAX_VIDEO):
        self.ceiling = ceiling
        self.limit = float(ceiling)
        self.loss = 0.0
        self.at = now

    def report(self, loss: float) -> None:
        self.loss = loss
        if loss > HIGH_LOSS:
            self.limit = max(min(MIN_VIDEO, self.ceiling), self.limit * (1 - loss / 2))

    def tick(self, now: float) -> float:
        """Grow while the receiver loses almost nothing; the allowance now."""
        if self.loss < LOW_LOSS:
            self.limit = min(self.ceiling, self.limit * GROWTH ** (now - self.at))
        self.at = now
        return self.limit
