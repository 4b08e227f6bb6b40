"""The gate at the packet level: real aiortc clients through the SFU while a
scripted classic game moves from the draw to the second day.

Four clients sit at a ten-seat table (the other seats are empty, which the
gate does not care about). Every client sends Opus and VP8 all the time,
whatever the gate says: each is "a client that keeps sending after being told
it is muted". Each packet a client receives is traced back to the packet its
source sent (the payload is forwarded byte for byte), so a closed pair is
checked exactly: a packet may arrive only if the gate for (source, receiver,
kind) was open at some moment between its sending and its arrival."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import pytest

from omerta.media import Sfu
from omerta.media.rtp import vp8_keyframe_start
from omerta.table.views import KINDS, Gate, gate
from tests.media.peers import AUDIO_PTIME, Client, vp8_picture
from tests.table.game import Table

SEATS = range(1, 11)
CLIENTS = (1, 2, 3, 4)
SEED = 9              # the draw makes 1 and 2 mafia, 3 sheriff, 4 civilian; 10 is the third black
DWELL = 0.6           # s spent in each phase that involves a client
PASSING = 0.05        # s spent in a phase of absent seats only
MIN_PACKETS = 5       # an open pair is judged on at least this many packets
STALL = 0.15          # s a shared, loaded 2-core machine may stall the one test process
KEYFRAME_BUDGET = 0.5 # s from a video opening to a whole, decodable keyframe


@dataclass
class Phase:
    name: str
    gate: Gate
    start: float          # just before set_gate
    applied: float        # just after set_gate returned
    dwell: bool
    end: float = float("inf")


@pytest.fixture
async def table():
    sfu = Sfu(SEATS)
    sent: dict[tuple[int, bytes], float] = {}
    clients = {seat: Client(seat, sent) for seat in CLIENTS}
    try:
        for client in clients.values():
            await client.join(sfu)
        await asyncio.wait_for(asyncio.gather(*(c.connected() for c in clients.values())), 10)
        yield sfu, clients, sent
    finally:
        for client in clients.values():
            if hasattr(client, "pc"):
                await client.close()
        await sfu.close()


async def play(sfu: Sfu) -> list[Phase]:
    """Draw, meeting, day 1 with an interjection, the vote, the leader's
    speech, the shot, the checks, last words and day 2 (RULES.md K3, N1-N2, D1,
    D4, V3, V7, S1, S3, S6)."""
    t = Table(deal=None, seed=SEED)
    phases: list[Phase] = []

    async def phase(name: str, dwell: bool = True) -> None:
        start = time.monotonic()
        sfu.set_gate(gate(t.state))
        applied = time.monotonic()
        if phases:
            phases[-1].end = applied
        phases.append(Phase(name, gate(t.state), start, applied, dwell))
        await asyncio.sleep(DWELL if dwell else PASSING)

    await phase("draw")
    t.wait()
    assert t.phase == "meeting" and {1, 2} <= set(t.state.black_seats())   # clients meet
    await phase("meeting")
    t.wait()
    await phase("speech 1")
    t.nominate(1, 4).end_speech(1)
    await phase("speech 2")
    t.interject(3)
    await phase("speech 2, interjection 3")
    t.nominate(2, 3).end_speech(2)
    for seat in range(3, 11):
        await phase(f"speech {seat}", dwell=seat in CLIENTS)
        t.end_speech(seat)
    assert t.phase == "vote"
    await phase("vote")
    t.wait()
    assert t.phase == "leader_speech"
    await phase("leader speech 3")
    t.to_phase("shot")
    await phase("shot")
    for seat in t.state.black_seats():
        t.shoot(seat, 4)
    t.wait()
    assert t.phase == "checks"
    await phase("checks")
    t.wait()
    assert t.phase == "last_word_speech" and t.state.speaker == 4
    await phase("last words 4")
    t.end_speech(4)
    assert not t.state.alive[4]
    await phase("day 2, speech 2")
    phases[-1].end = time.monotonic()
    return phases


def _open_during(phases: list[Phase], source: int, receiver: int, kind: str,
                 since: float, until: float) -> bool:
    for i, p in enumerate(phases):
        start = p.start
        end = phases[i + 1].applied if i + 1 < len(phases) else float("inf")
        if start <= until and since <= end and p.gate.allows(source, receiver, kind):
            return True
    return False


async def test_gate_holds_packet_by_packet_through_a_game(table):
    sfu, clients, sent = table
    phases = await play(sfu)
    await asyncio.sleep(0.2)          # let the last packets land
    problems: list[str] = []

    # 1. Exact: every packet that arrived went through an open gate, unchanged.
    received = 0
    for r, client in clients.items():
        for a in client.arrivals:
            received += 1
            when = sent.get((a.source, a.payload))
            if when is None:
                problems.append(f"{r} got a {a.kind} packet that {a.source} never sent")
            elif not _open_during(phases, a.source, r, a.kind, when, a.at):
                name = next(p.name for p in reversed(phases) if p.start <= a.at)
                problems.append(f"closed {a.source}->{r} {a.kind} leaked during {name!r}")
            if not a.mid_ok:
                problems.append(f"{a.source}->{r} {a.kind} carried the wrong mid")
    assert received > 1000
    assert not problems, "\n".join(problems[:20])

    # 2. Sequence numbers run on without a hole across every gated gap.
    for r, client in clients.items():
        for source in CLIENTS:
            for kind in KINDS:
                seqs = [a.seq for a in client.arrivals if (a.source, a.kind) == (source, kind)]
                holes = [(x, y) for x, y in zip(seqs, seqs[1:]) if (y - x) & 0xFFFF != 1]
                assert not holes, f"{source}->{r} {kind}: sequence jumps {holes[:5]}"

    # 3. Per phase, on every open pair: everything the source sent arrived (from
    # the opening keyframe on, for video); openings are fast; and the senders
    # never went quiet, so a silent closed pair proves the gate, not the client.
    audio_delays, picture_delays = [], []
    for i, p in enumerate(phases):
        if not p.dwell:
            continue
        before = phases[i - 1].gate if i else None
        for s in CLIENTS:
            for kind in KINDS:
                sends = clients[s].sends[kind]
                assert any(p.applied <= t < p.end for t, _ in sends), f"{s} stopped sending {kind}"
                for r in CLIENTS:
                    if r == s or not p.gate.allows(s, r, kind):
                        continue
                    got = [a for a in clients[r].arrivals if (a.source, a.kind) == (s, kind)
                           and p.start <= a.at < p.end]
                    if not got:
                        problems.append(f"{p.name}: nothing from {s} reached {r} ({kind})")
                        continue
                    # The server handles a source's packets in the order they were
                    # sent, so each one sent between the first forwarded in this
                    # phase and the last must have met this phase's open gate.
                    opened = before is None or not before.allows(s, r, kind)
                    since = sent[(s, got[0].payload)] if opened else p.applied
                    until = max(sent[(s, a.payload)] for a in got)
                    expected = {x for t, x in sends if since <= t <= until}
                    missing = expected - {a.payload for a in clients[r].arrivals}
                    if missing or len(expected) < MIN_PACKETS:
                        problems.append(f"{p.name}: {s}->{r} {kind}: {len(missing)} of"
                                        f" {len(expected)} packets sent did not arrive")
                    if not opened:
                        continue
                    if kind == "audio":
                        next_sent = min(t for t, _ in sends if t > p.applied)
                        if sent[(s, got[0].payload)] > next_sent:
                            problems.append(f"{p.name}: {s}->{r} audio held back at opening")
                        audio_delays.append(got[0].at - p.start)
                    else:
                        picture_delays.append(_first_picture(problems, p, s, r, got))
    print(f"\n{received} packets received; audio openings {_ms(audio_delays)};"
          f" first picture after a video opening {_ms(picture_delays)}")
    assert not problems, "\n".join(problems[:20])
    assert len(audio_delays) >= 20 and len(picture_delays) >= 20
    # Wall-clock bounds, loose enough for a shared machine that deschedules
    # the process now and then; the packet checks above are the exact ones.
    audio_delays.sort()
    assert audio_delays[len(audio_delays) // 2] <= AUDIO_PTIME + STALL / 3, audio_delays
    assert audio_delays[-1] <= AUDIO_PTIME + STALL, audio_delays
    assert max(picture_delays) <= KEYFRAME_BUDGET, picture_delays


def _first_picture(problems: list[str], p: Phase, s: int, r: int, got: list) -> float:
    """How long after the opening the receiver held a whole keyframe; checks
    that the video restarted on one and that it decodes."""
    if not vp8_keyframe_start(got[0].payload):
        problems.append(f"{p.name}: {s}->{r} video opened on a delta frame")
        return float("inf")
    frame = [a for a in got if a.ts == got[0].ts]
    picture = vp8_picture([a.payload for a in frame])
    if not frame[-1].marker or picture is None:
        problems.append(f"{p.name}: {s}->{r} the opening keyframe does not decode")
    return frame[-1].at - p.start


def _ms(delays: list[float]) -> str:
    delays = sorted(delays)
    return (f"{len(delays)} in {1000 * delays[0]:.0f}-{1000 * delays[-1]:.0f} ms"
            f" (median {1000 * delays[len(delays) // 2]:.0f})")
