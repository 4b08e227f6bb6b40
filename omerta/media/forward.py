"""The router: every packet from a (seat, kind) goes to the receivers the gate
opens right now, re-addressed for each of them, and to nobody else.

No media is decoded or re-encoded. Each receiver has a fixed outgoing stream
(a `Slot`) for every other seat and kind, so what the gate changes is only
which slots a packet is copied to. This module knows RTP, not aiortc: a slot
sends through a plain `send(bytes)` callable."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable

from omerta.table.views import CLOSED, KINDS, Gate

from .congestion import MAX_VIDEO, Downlink, Reception
from .rtp import (
    ONE_BYTE,
    TWO_BYTE,
    Rtp,
    build_rtp,
    mid_element,
    nack,
    parse_rtp,
    pli,
    receiver_report,
    remb,
    sender_report,
    vp8_keyframe_start,
)

CLOCK_RATE = {"audio": 48000, "video": 90000}  # Opus and VP8, the only codecs offered
HISTORY = 512  # forwarded packets kept per video slot to answer NACKs
REORDER = 512  # how far behind the newest packet a late one may still go out
KEYFRAME_RETRY = 0.25  # s: ask the camera again if its keyframe has not come by then

Send = Callable[[bytes], None]


class Slot:
    """What one receiver gets of one source: an SSRC of the receiver's own
    connection that carries only that source. Its sequence numbers stay
    continuous however often the gate closes, so the receiver never asks for
    what the gate withheld; its timestamps keep the source's pace."""

    __slots__ = (
        "clock_rate",
        "floor",
        "history",
        "last_in",
        "last_seq",
        "last_time",
        "last_ts",
        "mids",
        "octets",
        "open",
        "packets",
        "pt",
        "receiver",
        "send",
        "seq_base",
        "src_ssrc",
        "ssrc",
        "synced",
        "ts_base",
        "waiting",
    )

    def __init__(
        self, receiver: int, kind: str, ssrc: int, pt: int, mid_id: int, mid: str, send: Send
    ):
        self.receiver, self.ssrc, self.pt, self.send = receiver, ssrc, pt, send
        self.mids = {
            True: mid_element(ONE_BYTE, mid_id, mid),
            False: mid_element(TWO_BYTE, mid_id, mid),
        }
        self.history: list[bytes | None] | None = [None] * HISTORY if kind == "video" else None
        self.clock_rate = CLOCK_RATE[kind]
        self.open = self.waiting = self.synced = False
        self.seq_base = self.last_in = self.floor = self.ts_base = 0
        self.last_seq = random.getrandbits(15)  # low half: no early wrap for SRTP
        self.src_ssrc: int | None = None
        self.last_ts = random.getrandbits(32)
        self.last_time = 0.0
        self.packets = self.octets = 0

    def forward(self, p: Rtp, now: float) -> None:
        if not self.synced:
            # first packet after a gap: continue right after the last one sent
            self.seq_base = (self.last_seq + 1 - p.seq) & 0xFFFF
            self.last_in = self.floor = p.seq
            self.synced = True
        elif (p.seq - self.last_in) & 0xFFFF < 0x8000:
            self.last_in = p.seq
            if (p.seq - self.floor) & 0xFFFF > REORDER:
                self.floor = (p.seq - REORDER) & 0xFFFF
        elif (p.seq - self.floor) & 0xFFFF >= 0x8000:
            return  # older than the gap: its number went to a later packet
        if p.ssrc != self.src_ssrc:
            # the sender (re)started: carry on from our last timestamp at wall-clock pace
            elapsed = 0 if self.src_ssrc is None else int((now - self.last_time) * self.clock_rate)
            self.ts_base = (self.last_ts + elapsed - p.ts) & 0xFFFFFFFF
            self.src_ssrc = p.ssrc
        seq = (p.seq + self.seq_base) & 0xFFFF
        ts = (p.ts + self.ts_base) & 0xFFFFFFFF
        data = build_rtp(p, self.pt, seq, ts, self.ssrc, self.mids[p.profile == ONE_BYTE])
        if self.history is not None:
            self.history[seq % HISTORY] = data
        if (seq - self.last_seq) & 0xFFFF < 0x8000:
            self.last_seq, self.last_ts, self.last_time = seq, ts, now
        self.packets += 1
        self.octets += len(p.payload)
        self.send(data)

    def resend(self, lost: Iterable[int]) -> list[int]:
        """Answer a NACK from history; return the source's numbers of what
        never reached us, to be asked for upstream."""
        upstream = []
        for seq in lost:
            data = self.history[seq % HISTORY] if self.history is not None else None
            if data is not None and int.from_bytes(data[2:4], "big") == seq:
                self.send(data)
            elif self.synced:
                source_seq = (seq - self.seq_base) & 0xFFFF
                if (self.last_in - source_seq) & 0xFFFF <= (self.last_in - self.floor) & 0xFFFF:
                    upstream.append(source_seq)
        return upstream

    def report(self, ntp: int, rtp_ts: int, ssrc: int) -> None:
        """Relay the source's sender report in this slot's timeline (lip sync)."""
        if self.synced and ssrc == self.src_ssrc:
            self.send(
                sender_report(
                    self.ssrc, ntp, (rtp_ts + self.ts_base) & 0xFFFFFFFF, self.packets, self.octets
                )
            )


class Stream:
    """One seat's mic or camera as it reaches the server."""

    def __init__(self, seat: int, kind: str):
        self.seat, self.kind, self.video = seat, kind, kind == "video"
        self.slots: dict[int, Slot] = {}
        self.open: list[Slot] = []
        self.mid_id = 0  # the source connection's `mid` extension id
        self.feedback: Send | None = None  # RTCP back to the source
        self.feedback_ssrc = 0
        self.ssrc: int | None = None  # the source's SSRC, as last seen
        self.keyframe_asked: float | None = None
        self.reception = Reception(CLOCK_RATE[kind])

    def connect(self, mid_id: int, feedback: Send, feedback_ssrc: int) -> None:
        self.mid_id, self.feedback, self.feedback_ssrc = mid_id, feedback, feedback_ssrc
        self.disconnect()
        self.feedback = feedback

    def disconnect(self) -> None:
        """The source is gone (or back with new numbering): every open slot
        starts again after a gap, at a keyframe."""
        self.feedback = self.ssrc = self.keyframe_asked = None
        for slot in self.open:
            slot.synced, slot.waiting = False, self.video

    def receive(self, data: bytes) -> None:
        now = time.monotonic()
        if len(data) >= 12:  # padding-only probes count as received too
            ssrc = int.from_bytes(data[8:12], "big")
            if ssrc != self.ssrc:
                self.reception.reset()
            self.ssrc = ssrc
            self.reception.packet(
                int.from_bytes(data[2:4], "big"), int.from_bytes(data[4:8], "big"), now
            )
        p = parse_rtp(data, self.mid_id)
        if p is None:
            for slot in self.open:  # a dropped packet: the next one closes the gap
                slot.synced = False
            return
        key = self.video and vp8_keyframe_start(p.payload)
        if key:
            self.keyframe_asked = None
        for slot in self.open:
            if slot.waiting:
                if not key:  # a receiver joins a picture at a keyframe only
                    self.ask_keyframe(now)
                    continue
                slot.waiting = False
            slot.forward(p, now)

    def set_open(self, receivers: frozenset[int] | set[int]) -> None:
        now_open = [slot for r, slot in self.slots.items() if r in receivers]
        for slot in self.open:
            if slot.receiver not in receivers:
                slot.open = slot.synced = False
        opened = False
        for slot in now_open:
            if not slot.open:
                slot.open, slot.synced, slot.waiting = True, False, self.video
                opened = True
        self.open = now_open
        if opened and self.video:
            self.ask_keyframe(time.monotonic())

    def ask_keyframe(self, now: float) -> None:
        """PLI to the camera, unless one is already on its way."""
        if self.feedback is None or self.ssrc is None:
            return  # retried when its first packet arrives
        if self.keyframe_asked is not None and now - self.keyframe_asked < KEYFRAME_RETRY:
            return
        self.keyframe_asked = now
        self.feedback(pli(self.feedback_ssrc, self.ssrc))

    def on_nack(self, slot: Slot, lost: Iterable[int]) -> None:
        if not slot.open:
            return  # nothing goes through a closed gate, not even repairs
        upstream = slot.resend(lost)
        if upstream and self.feedback is not None and self.ssrc is not None:
            self.feedback(nack(self.feedback_ssrc, self.ssrc, upstream))

    def on_keyframe_request(self, slot: Slot) -> None:
        if slot.open:
            self.ask_keyframe(time.monotonic())

    def on_report(self, ntp: int, rtp_ts: int, ssrc: int) -> None:
        if ssrc == self.ssrc:
            self.reception.sender_report(ntp, time.monotonic())
        for slot in self.open:
            slot.report(ntp, rtp_ts, ssrc)

    def congestion_feedback(self, now: float, allowance: float | None) -> None:
        """A receiver report on what reached the server, and for a camera a
        REMB of `allowance` bits/s (docs/media.md, "Bitrate")."""
        block = self.reception.block(now)
        if self.feedback is None or self.ssrc is None or block is None:
            return
        packet = receiver_report(self.feedback_ssrc, self.ssrc, *block)
        if allowance is not None:
            packet += remb(self.feedback_ssrc, int(allowance), [self.ssrc])
        self.feedback(packet)


class Router:
    """All streams of one table and the gate over them. A receiver's slots
    open only while the gate allows it and its connection is up. Receivers
    are seats, or spectators as negative numbers (the gate's receiver None)."""

    def __init__(self, seats: Iterable[int]):
        self.streams = {(seat, kind): Stream(seat, kind) for seat in seats for kind in KINDS}
        self.gate: Gate = CLOSED
        self.ready: set[int] = set()
        self.downlinks: dict[int, Downlink] = {}
        #: bits/s a camera is asked for at most (congestion.MAX_VIDEO)
        self.max_video = MAX_VIDEO

    def set_gate(self, gate: Gate) -> None:
        if gate == self.gate:  # most steps keep the phase's gate
            return
        self.gate = gate
        self._apply()

    def add_receiver(self, receiver: int, slots: dict[tuple[int, str], Slot]) -> None:
        for key, slot in slots.items():
            self.streams[key].slots[receiver] = slot

    def remove_receiver(self, receiver: int) -> None:
        self.ready.discard(receiver)
        self.downlinks.pop(receiver, None)
        for stream in self.streams.values():
            slot = stream.slots.pop(receiver, None)
            if slot is not None and slot.open:
                slot.open = False
                stream.open.remove(slot)

    def receiver_loss(self, receiver: int, loss: float) -> None:
        """The worst loss `receiver` reported on the cameras it gets."""
        downlink = self.downlinks.setdefault(receiver, Downlink(time.monotonic(), self.max_video))
        downlink.report(loss)

    def congestion_feedback(self, now: float) -> None:
        """Reports to every publisher; each camera is asked for no more than
        the poorest receiver it reaches can take."""
        allowances = {r: d.tick(now) for r, d in self.downlinks.items()}
        for stream in self.streams.values():
            allowance = None
            if stream.video:
                allowance = min(
                    (
                        allowances[slot.receiver]
                        for slot in stream.open
                        if slot.receiver in allowances
                    ),
                    default=self.max_video,
                )
            stream.congestion_feedback(now, allowance)

    def set_ready(self, receiver: int, ready: bool) -> None:
        (self.ready.add if ready else self.ready.discard)(receiver)
        self._apply()

    def _apply(self) -> None:
        gate = self.gate
        for (seat, kind), stream in self.streams.items():
            stream.set_open(
                {
                    r
                    for r in stream.slots
                    if r in self.ready and gate.allows(seat, r if r > 0 else None, kind)
                }
            )
