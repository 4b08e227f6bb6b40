"""RTP and RTCP at the byte level: just what a forwarding SFU reads and writes.

The forwarder never decodes media. It reads the fixed RTP header, swaps the
`mid` header extension for the receiver's own (RFC 8843: each receiver has
its own m-line for every source), and reads the first bytes of a VP8 payload
to find keyframes (RFC 7741). RTCP is parsed only for what an SFU acts on:
sender and receiver reports, NACK, PLI, FIR and REMB (RFC 3550, RFC 4585,
RFC 5104, draft-alvestrand-rmcat-remb)."""

from __future__ import annotations

from struct import Struct
from typing import NamedTuple

_HEADER = Struct("!BBHII")  # V/P/X/CC, M/PT, sequence, timestamp, SSRC
_EXT = Struct("!HH")  # extension profile, length in 32-bit words
_RTCP = Struct("!BBH")  # V/P/count-or-format, type, length in words - 1
_FEEDBACK = Struct("!BBHII")  # RTCP header + sender SSRC + media SSRC
_SR = Struct("!BBHIIIIII")  # RTCP header + SSRC + NTP(2) + RTP ts + counts(2)

ONE_BYTE = 0xBEDE  # RFC 8285 one-byte header extensions
TWO_BYTE = 0x1000  # RFC 8285 two-byte header extensions (low 4 bits: appbits)

_BLOCK = Struct("!IIIIII")  # RR report block: SSRC, lost, highest, jitter, LSR, DLSR

SR, RR, RTPFB, PSFB = 200, 201, 205, 206
NACK, PLI, FIR, AFB = 1, 1, 4, 15  # RTPFB format 1; PSFB formats 1, 4 and 15 (REMB)
REMB_ID = b"REMB"


class Rtp(NamedTuple):
    """One incoming RTP packet, taken apart once and reused for every receiver."""

    first: int  # V/P/CC bits of the first byte, the X bit cleared
    marker: int  # 0x80 or 0
    seq: int
    ts: int
    ssrc: int
    csrc: bytes
    profile: int  # header-extension profile the packet used
    ext: bytes  # its extension elements other than `mid`, unpadded
    payload: bytes  # payload and any RTP padding, untouched


def parse_rtp(data: bytes, mid_id: int) -> Rtp | None:
    """Split a plaintext RTP packet; None when it is malformed or carries
    padding only (a bandwidth probe: nothing worth forwarding)."""
    if len(data) < 12:
        return None
    b0, b1, seq, ts, ssrc = _HEADER.unpack_from(data)
    pos = 12 + 4 * (b0 & 0x0F)
    profile, ext = ONE_BYTE, b""
    if b0 & 0x10:
        if len(data) < pos + 4:
            return None
        profile, words = _EXT.unpack_from(data, pos)
        end = pos + 4 + 4 * words
        if len(data) < end:
            return None
        if profile == ONE_BYTE or profile & 0xFFF0 == TWO_BYTE:
            kept = _drop_element(data[pos + 4 : end], profile, mid_id)
            if kept is None:
                return None
            ext = kept
        else:
            profile = ONE_BYTE  # a profile we do not know: drop its data
        pos = end
    payload = data[pos:]
    padding = payload[-1] if b0 & 0x20 and payload else 0
    if len(payload) <= padding:
        return None
    return Rtp(
        b0 & 0xEF, b1 & 0x80, seq, ts, ssrc, data[12 : 12 + 4 * (b0 & 0x0F)], profile, ext, payload
    )


def _drop_element(block: bytes, profile: int, drop_id: int) -> bytes | None:
    """The extension elements of `block` except `drop_id`, padding removed."""
    out = bytearray()
    i, n = 0, len(block)
    if profile == ONE_BYTE:
        while i < n:
            head = block[i]
            if head == 0:  # padding between elements
                i += 1
                continue
            ident, size = head >> 4, (head & 0x0F) + 1
            if ident == 15:  # "stop": the rest is padding
                break
            if i + 1 + size > n:
                return None
            if ident != drop_id:
                out += block[i : i + 1 + size]
            i += 1 + size
    else:
        while i < n:
            ident = block[i]
            if ident == 0:
                i += 1
                continue
            if i + 2 > n or i + 2 + block[i + 1] > n:
                return None
            size = block[i + 1]
            if ident != drop_id:
                out += block[i : i + 2 + size]
            i += 2 + size
    return bytes(out)


def mid_element(profile: int, mid_id: int, mid: str) -> bytes:
    """The `mid` extension element naming a receiver's m-line, in `profile`'s form."""
    value = mid.encode()
    if profile == ONE_BYTE:
        return bytes([(mid_id << 4) | (len(value) - 1)]) + value
    return bytes([mid_id, len(value)]) + value


def build_rtp(p: Rtp, pt: int, seq: int, ts: int, ssrc: int, mid_elem: bytes) -> bytes:
    """`p` re-addressed to one receiver: its SSRC, payload type, sequence,
    timestamp and m-line; the payload is the sender's, byte for byte."""
    ext = p.ext + mid_elem
    ext += b"\0" * (-len(ext) % 4)
    return b"".join(
        (
            _HEADER.pack(p.first | 0x10, p.marker | pt, seq, ts, ssrc),
            p.csrc,
            _EXT.pack(p.profile, len(ext) // 4),
            ext,
            p.payload,
        )
    )


def vp8_keyframe_start(payload: bytes) -> bool:
    """True when `payload` is the first packet of a VP8 keyframe (RFC 7741:
    S=1 and PID=0 in the descriptor, then P=0 in the VP8 payload header)."""
    if not payload or payload[0] & 0x1F != 0x10:
        return False
    pos = 1
    if payload[0] & 0x80:  # X: extended control bits follow
        if len(payload) < 2:
            return False
        ext = payload[1]
        pos = 2
        if ext & 0x80:  # I: picture ID, 7 or 15 bits
            if len(payload) <= pos:
                return False
            pos += 2 if payload[pos] & 0x80 else 1
        if ext & 0x40:  # L: TL0PICIDX
            pos += 1
        if ext & 0x30:  # T or K: TID/KEYIDX byte
            pos += 1
    return len(payload) > pos and payload[pos] & 0x01 == 0


# --- RTCP -------------------------------------------------------------------


class Feedback(NamedTuple):
    """An RTCP message an SFU acts on."""

    kind: str  # "sr", "rr", "nack", "pli", "fir" or "remb"
    ssrc: int  # the media SSRC it is about (the reporter's own for "sr")
    ntp: int = 0  # "sr": NTP time of the report
    rtp_ts: int = 0  # "sr": RTP time matching `ntp`
    lost: tuple[int, ...] = ()  # "nack": the sequence numbers asked for
    loss: float = 0.0  # "rr": the fraction of the stream lost since the last report
    bitrate: int = 0  # "remb": bits/s the receiver can take for `ssrcs` together
    ssrcs: tuple[int, ...] = ()  # "remb": the media SSRCs the estimate covers


def parse_rtcp(data: bytes) -> list[Feedback]:
    """The SRs, report blocks, NACKs, PLIs, FIRs and REMBs in a compound RTCP
    packet; the rest is skipped."""
    out: list[Feedback] = []
    pos = 0
    while pos + 4 <= len(data):
        b0, ptype, words = _RTCP.unpack_from(data, pos)
        end = pos + 4 * (words + 1)
        if end > len(data):
            break
        fmt = b0 & 0x1F
        if ptype == SR and end - pos >= 28:
            _, _, _, ssrc, hi, lo, rtp_ts, _, _ = _SR.unpack_from(data, pos)
            out.append(Feedback("sr", ssrc, (hi << 32) | lo, rtp_ts))
            out += _report_blocks(data, pos + 28, end, fmt)
        elif ptype == RR:
            out += _report_blocks(data, pos + 8, end, fmt)
        elif (
            ptype == PSFB
            and fmt == AFB
            and end - pos >= 20
            and data[pos + 12 : pos + 16] == REMB_ID
        ):
            count, exp_mantissa = data[pos + 16], int.from_bytes(data[pos + 17 : pos + 20], "big")
            bitrate = (exp_mantissa & 0x3FFFF) << (exp_mantissa >> 18)
            ssrcs = tuple(
                int.from_bytes(data[i : i + 4], "big")
                for i in range(pos + 20, min(end, pos + 20 + 4 * count) - 3, 4)
            )
            out.append(Feedback("remb", ssrcs[0] if ssrcs else 0, bitrate=bitrate, ssrcs=ssrcs))
        elif ptype in (RTPFB, PSFB) and end - pos >= 12:
            _, _, _, _, media = _FEEDBACK.unpack_from(data, pos)
            if ptype == RTPFB and fmt == NACK:
                out.append(Feedback("nack", media, lost=_nack_items(data[pos + 12 : end])))
            elif ptype == PSFB and fmt == PLI:
                out.append(Feedback("pli", media))
            elif ptype == PSFB and fmt == FIR:
                for i in range(pos + 12, end - 7, 8):  # FIR names its SSRCs in the FCI
                    out.append(Feedback("fir", int.from_bytes(data[i : i + 4], "big")))
        pos = end
    return out


def _report_blocks(data: bytes, pos: int, end: int, count: int) -> list[Feedback]:
    """The report blocks of an SR or RR: how much of each stream was lost."""
    out = []
    for i in range(count):
        at = pos + 24 * i
        if at + 24 > end:
            break
        ssrc, lost, *_ = _BLOCK.unpack_from(data, at)
        out.append(Feedback("rr", ssrc, loss=(lost >> 24) / 256))
    return out


def _nack_items(fci: bytes) -> tuple[int, ...]:
    lost = []
    for i in range(0, len(fci) - 3, 4):
        pid, blp = int.from_bytes(fci[i : i + 2], "big"), int.from_bytes(fci[i + 2 : i + 4], "big")
        lost.append(pid)
        lost.extend((pid + bit + 1) & 0xFFFF for bit in range(16) if blp >> bit & 1)
    return tuple(lost)


def pli(sender_ssrc: int, media_ssrc: int) -> bytes:
    return _FEEDBACK.pack(0x80 | PLI, PSFB, 2, sender_ssrc, media_ssrc)


def nack(sender_ssrc: int, media_ssrc: int, lost: list[int]) -> bytes:
    """A generic NACK for `lost` (one FCI entry per 17 consecutive numbers)."""
    items = bytearray()
    todo = sorted(set(lost))
    while todo:
        pid, blp = todo.pop(0), 0
        for seq in list(todo):
            bit = (seq - pid - 1) & 0xFFFF
            if bit < 16:
                blp |= 1 << bit
                todo.remove(seq)
        items += pid.to_bytes(2, "big") + blp.to_bytes(2, "big")
    return _FEEDBACK.pack(0x80 | NACK, RTPFB, 2 + len(items) // 4, sender_ssrc, media_ssrc) + bytes(
        items
    )


def sender_report(ssrc: int, ntp: int, rtp_ts: int, packets: int, octets: int) -> bytes:
    return _SR.pack(
        0x80,
        SR,
        6,
        ssrc,
        ntp >> 32,
        ntp & 0xFFFFFFFF,
        rtp_ts,
        packets & 0xFFFFFFFF,
        octets & 0xFFFFFFFF,
    )


def receiver_report(
    sender_ssrc: int,
    ssrc: int,
    fraction_lost: int,
    cumulative_lost: int,
    highest: int,
    jitter: int,
    lsr: int,
    dlsr: int,
) -> bytes:
    """An RR with one report block (RFC 3550 6.4.2)."""
    lost = (fraction_lost & 0xFF) << 24 | max(-0x800000, min(0x7FFFFF, cumulative_lost)) & 0xFFFFFF
    return (
        _RTCP.pack(0x81, RR, 7)
        + sender_ssrc.to_bytes(4, "big")
        + _BLOCK.pack(
            ssrc,
            lost,
            highest & 0xFFFFFFFF,
            jitter & 0xFFFFFFFF,
            lsr & 0xFFFFFFFF,
            dlsr & 0xFFFFFFFF,
        )
    )


def remb(sender_ssrc: int, bitrate: int, ssrcs: list[int]) -> bytes:
    """Receiver-estimated maximum bitrate for `ssrcs` together
    (draft-alvestrand-rmcat-remb): what the sender should not exceed."""
    exp, mantissa = 0, max(0, int(bitrate))
    while mantissa >= 1 << 18:
        mantissa >>= 1
        exp += 1
    fci = (
        REMB_ID
        + bytes([len(ssrcs)])
        + ((exp << 18) | mantissa).to_bytes(3, "big")
        + b"".join(s.to_bytes(4, "big") for s in ssrcs)
    )
    return _FEEDBACK.pack(0x80 | AFB, PSFB, 2 + len(fci) // 4, sender_ssrc, 0) + fci
