"""The router on synthetic packets: re-addressing, continuity across gated
gaps, keyframes at openings, NACK and PLI handling. No network."""

from __future__ import annotations

from struct import pack

import pytest

from omerta.media.forward import HISTORY, Router, Slot, Stream
from omerta.media.rtp import (
    ONE_BYTE,
    build_rtp,
    mid_element,
    nack,
    parse_rtcp,
    parse_rtp,
    pli,
    sender_report,
    vp8_keyframe_start,
)
from omerta.table.views import CLOSED, Gate
from tests.media.peers import header_length, mid_of

MID = 1  # the mid extension id, as aiortc offers it
LEVEL = 2  # ssrc-audio-level


def rtp(
    seq: int,
    ts: int = 0,
    ssrc: int = 0x1111,
    payload: bytes = b"\x90\x80\x00\x01\x00",
    pt: int = 97,
    marker: bool = False,
    mid: str = "0",
    padding: int = 0,
) -> bytes:
    ext = bytes([(MID << 4) | (len(mid) - 1)]) + mid.encode() + bytes([(LEVEL << 4), 0x85])
    ext += b"\0" * (-len(ext) % 4)
    first = 0x90 | (0x20 if padding else 0)
    body = payload + (b"\0" * (padding - 1) + bytes([padding]) if padding else b"")
    return (
        pack("!BBHII", first, (0x80 if marker else 0) | pt, seq, ts, ssrc)
        + pack("!HH", ONE_BYTE, len(ext) // 4)
        + ext
        + body
    )


KEY = b"\x90\x80\x80\x01\x10\x02\x9d\x01\x2a"  # S=1, PID=0, 15-bit picture id; P=0
DELTA = b"\x90\x80\x80\x02\x11\x02\x00"  # the same, P=1
REST = b"\x80\x80\x80\x01rest"  # S=0: a later packet of the frame


def make_slot(receiver: int = 2, kind: str = "video") -> tuple[Slot, list[bytes]]:
    out: list[bytes] = []
    return Slot(receiver, kind, ssrc=0xAAAA, pt=100, mid_id=MID, mid="7", send=out.append), out


def seq(data: bytes) -> int:
    return int.from_bytes(data[2:4], "big")


def ts(data: bytes) -> int:
    return int.from_bytes(data[4:8], "big")


def test_a_packet_is_readdressed_and_its_payload_kept():
    p = parse_rtp(rtp(5, ts=1234, payload=b"hello", marker=True), MID)
    out = build_rtp(p, pt=100, seq=9, ts=77, ssrc=0xAAAA, mid_elem=mid_element(ONE_BYTE, MID, "12"))
    assert out[1] == 0x80 | 100 and seq(out) == 9 and ts(out) == 77
    assert int.from_bytes(out[8:12], "big") == 0xAAAA
    assert mid_of(out) == "12"
    assert bytes([LEVEL << 4, 0x85]) in out[12 : header_length(out)]  # the others go through
    assert out[header_length(out) :] == b"hello"


def test_padding_only_packets_and_garbage_are_not_forwarded():
    assert parse_rtp(rtp(1, payload=b"", padding=4), MID) is None
    assert parse_rtp(b"\x90\x61\x00", MID) is None
    assert parse_rtp(rtp(1, payload=b"x", padding=4), MID).payload == b"x\0\0\0\x04"


def test_vp8_keyframes_are_recognised():
    assert vp8_keyframe_start(KEY)
    assert not vp8_keyframe_start(DELTA)
    assert not vp8_keyframe_start(REST)
    assert vp8_keyframe_start(b"\x10\x10")  # no extension bits


def test_sequence_numbers_stay_continuous_across_a_gate_gap():
    slot, out = make_slot(kind="audio")
    for n in range(100, 105):
        slot.forward(parse_rtp(rtp(n, ts=n * 960, pt=96), MID), now=1.0)
    slot.synced = False  # the gate closed, then reopened
    for n in range(500, 503):
        slot.forward(parse_rtp(rtp(n, ts=n * 960, pt=96), MID), now=9.0)
    seqs = [seq(d) for d in out]
    assert all((b - a) & 0xFFFF == 1 for a, b in zip(seqs, seqs[1:]))
    # timestamps keep the source's clock: the gap shows in time, not in numbering
    assert (ts(out[5]) - ts(out[4])) & 0xFFFFFFFF == (500 - 104) * 960


def test_a_source_that_restarts_continues_the_receivers_timeline():
    slot, out = make_slot(kind="audio")
    slot.forward(parse_rtp(rtp(1, ts=1000, ssrc=1, pt=96), MID), now=1.0)
    slot.synced = False
    slot.forward(parse_rtp(rtp(40000, ts=7, ssrc=2, pt=96), MID), now=1.5)
    assert (seq(out[1]) - seq(out[0])) & 0xFFFF == 1
    assert (ts(out[1]) - ts(out[0])) & 0xFFFFFFFF == 24000  # 0.5 s at 48 kHz


def test_a_late_packet_from_before_a_gap_is_dropped():
    slot, out = make_slot(kind="audio")
    slot.forward(parse_rtp(rtp(10, pt=96), MID), now=1.0)
    slot.synced = False
    slot.forward(parse_rtp(rtp(20, pt=96), MID), now=2.0)
    slot.forward(parse_rtp(rtp(15, pt=96), MID), now=2.0)  # its number went to 20
    slot.forward(parse_rtp(rtp(22, pt=96), MID), now=2.0)
    slot.forward(parse_rtp(rtp(21, pt=96), MID), now=2.0)  # merely reordered: goes out
    assert [(seq(d) - seq(out[0])) & 0xFFFF for d in out] == [0, 1, 3, 2]


def test_nacks_are_answered_from_history_and_misses_asked_upstream():
    slot, out = make_slot()
    for n in range(10, 20):
        if n != 14:  # 14 never reached the server
            slot.forward(parse_rtp(rtp(n, payload=DELTA), MID), now=1.0)
    first = seq(out[0])
    out.clear()
    upstream = slot.resend([(first + 2) & 0xFFFF, (first + 4) & 0xFFFF])
    assert [seq(d) for d in out] == [(first + 2) & 0xFFFF]
    assert upstream == [14]
    assert slot.resend([(first + HISTORY + 3) & 0xFFFF]) == []  # never sent, not ours


def test_a_video_opening_waits_for_a_keyframe_and_asks_for_one():
    stream = Stream(1, "video")
    feedback: list[bytes] = []
    stream.connect(MID, feedback.append, feedback_ssrc=0x5555)
    slot, out = make_slot()
    stream.slots[2] = slot
    stream.receive(rtp(1, payload=DELTA))  # learns the camera's SSRC
    stream.set_open({2})
    assert parse_rtcp(feedback[-1])[0][:2] == ("pli", 0x1111)
    stream.receive(rtp(2, ts=3000, payload=DELTA))
    stream.receive(rtp(3, ts=6000, payload=KEY))
    stream.receive(rtp(4, ts=6000, payload=REST, marker=True))
    assert [o[header_length(o) :] for o in out] == [KEY, REST]
    assert len(feedback) == 1  # no second PLI while one is due


def test_closing_stops_everything_even_repairs():
    stream = Stream(1, "audio")
    stream.connect(MID, lambda data: None, 0)
    slot, out = make_slot(kind="audio")
    stream.slots[2] = slot
    stream.set_open({2})
    stream.receive(rtp(1, pt=96))
    stream.set_open(set())
    stream.receive(rtp(2, pt=96))
    stream.on_nack(slot, [seq(out[0])])
    stream.on_report(ntp=1 << 32, rtp_ts=0, ssrc=0x1111)
    assert len(out) == 1


def test_receiver_feedback_reaches_the_camera_and_reports_are_relayed():
    stream = Stream(1, "video")
    feedback: list[bytes] = []
    stream.connect(MID, feedback.append, feedback_ssrc=0x5555)
    slot, out = make_slot()
    stream.slots[2] = slot
    stream.set_open({2})
    stream.receive(rtp(1, ts=90000, payload=KEY))
    stream.keyframe_asked = None
    stream.on_keyframe_request(slot)
    assert parse_rtcp(feedback[-1])[0][:2] == ("pli", 0x1111)
    stream.on_report(ntp=(5 << 32) | 7, rtp_ts=90000, ssrc=0x1111)
    report = parse_rtcp(out[-1])[0]
    assert report.kind == "sr" and report.ssrc == 0xAAAA and report.ntp == (5 << 32) | 7
    assert report.rtp_ts == ts(out[0])  # the same instant, our timeline


def test_rtcp_parsing_and_building_round_trip():
    compound = (
        sender_report(9, ntp=(1 << 32) + 2, rtp_ts=3, packets=4, octets=5)
        + pli(9, 10)
        + nack(9, 11, [100, 101, 116, 117])
        + pack("!BBHIIII", 0x84, 206, 4, 9, 0, 12, 0x01000000)
    )  # FIR for SSRC 12
    got = parse_rtcp(compound)
    assert [(f.kind, f.ssrc) for f in got] == [("sr", 9), ("pli", 10), ("nack", 11), ("fir", 12)]
    assert got[0].ntp == (1 << 32) + 2 and got[0].rtp_ts == 3
    assert sorted(got[2].lost) == [100, 101, 116, 117]


@pytest.mark.parametrize("ready", [True, False])
def test_the_router_opens_only_what_the_gate_allows_to_connected_receivers(ready):
    router = Router(range(1, 4))
    slots = {(src, kind): make_slot(2, kind)[0] for src in (1, 3) for kind in ("audio", "video")}
    router.add_receiver(2, slots)
    if ready:
        router.set_ready(2, True)
    router.set_gate(Gate(audio={1: frozenset({2, 3})}, video={3: frozenset({2})}))
    opened = [k for k, s in slots.items() if s.open]
    assert opened == ([(1, "audio"), (3, "video")] if ready else [])
    router.set_gate(CLOSED)
    assert not any(s.open for s in slots.values())
