"""Congestion feedback on synthetic packets: what the server reports to each
publisher about its uplink, and the most it asks a camera to send, following
what the receivers it reaches lose (docs/media.md, "Bitrate")."""

from __future__ import annotations

import asyncio

from omerta.media import Sfu
from omerta.media import aiortc_glue as glue
from omerta.media.congestion import GROWTH, MAX_VIDEO, MIN_VIDEO, Downlink, Reception
from omerta.media.forward import Router
from omerta.media.rtp import parse_rtcp, receiver_report, remb
from omerta.table.views import Gate
from tests.media.peers import LOOPBACK, Client
from tests.media.test_forward import KEY, make_slot, rtp


def test_receiver_reports_count_what_was_lost_since_the_last_one():
    reception = Reception(90000)
    for seq in [65530, 65531, 65533, 65534, 65535, 0, 1, 2]:  # 65532 lost, then a wrap
        reception.packet(seq, ts=seq * 3000, now=seq / 30)
    fraction, lost, highest, _, _, _ = reception.block(now=1.0)
    assert (lost, highest) == (1, (1 << 16) + 2)
    assert fraction == (1 << 8) // 9
    for seq in range(3, 13):
        reception.packet(seq, ts=seq * 3000, now=1 + seq / 30)
    assert reception.block(now=2.0)[:2] == (0, 1)  # nothing new lost


def test_a_receivers_loss_lowers_its_allowance_and_a_clean_link_raises_it_again():
    link = Downlink(now=0.0)
    assert link.tick(1.0) == MAX_VIDEO
    link.report(0.30)
    lowered = link.tick(2.0)
    assert lowered == MAX_VIDEO * 0.85
    link.report(0.05)  # some loss: hold
    assert link.tick(5.0) == lowered
    link.report(0.0)
    assert link.tick(6.0) == lowered * GROWTH
    for _ in range(40):
        link.report(0.9)
        link.tick(7.0)
    assert link.tick(8.0) == MIN_VIDEO


def test_rr_and_remb_round_trip():
    packet = receiver_report(1, 2, 64, 3, 70000, 5, 6, 7) + remb(1, 1_234_567, [2, 9])
    rr, estimate = parse_rtcp(packet)
    assert (rr.kind, rr.ssrc, rr.loss) == ("rr", 2, 0.25)
    assert estimate.kind == "remb" and estimate.ssrcs == (2, 9)
    assert 1_234_567 - estimate.bitrate < 1 << 3  # 18-bit mantissa


def test_each_camera_is_asked_for_what_its_poorest_open_receiver_can_take():
    router = Router([1, 2, 3])
    feedback: list[bytes] = []
    camera = router.streams[(1, "video")]
    camera.connect(1, feedback.append, feedback_ssrc=0x5555)
    for receiver in (2, 3):
        router.add_receiver(receiver, {(1, "video"): make_slot(receiver)[0]})
        router.set_ready(receiver, True)
    router.set_gate(Gate({}, {1: frozenset({2, 3})}))
    for seq in (1, 2, 4):  # 3 never arrives
        camera.receive(rtp(seq, payload=KEY))

    def asked(now: float) -> tuple[float, int]:
        feedback.clear()
        router.congestion_feedback(now)
        rr, estimate = parse_rtcp(feedback[-1])
        assert rr.ssrc == estimate.ssrcs[0] == 0x1111 and estimate.kind == "remb"
        return rr.loss, estimate.bitrate

    loss, bitrate = asked(1.0)
    assert loss == 0.25 and abs(bitrate - MAX_VIDEO) < 8
    router.receiver_loss(3, 0.4)
    assert abs(asked(1.5)[1] - MAX_VIDEO * 0.8) < 8
    router.set_gate(Gate({}, {1: frozenset({2})}))  # 3 no longer gets it
    assert abs(asked(2.0)[1] - MAX_VIDEO) < 8


async def test_a_camera_hears_of_a_receivers_losses_through_the_sfu():
    """Real aiortc clients: seat 1's camera reaches seat 2 only; the camera
    gets receiver reports and a REMB at the ceiling, and when seat 2 reports
    losing half of what it gets, the REMB to seat 1 drops."""
    sfu = Sfu(range(1, 4), LOOPBACK)
    sent: dict = {}
    one, two = Client(1, sent), Client(2, sent)
    try:
        await one.join(sfu)
        await two.join(sfu)
        await asyncio.wait_for(asyncio.gather(one.connected(), two.connected()), 10)
        sfu.set_gate(Gate({}, {1: frozenset({2})}))

        async def asked() -> list[int]:
            for _ in range(100):
                rembs = [f.bitrate for f in one.feedback if f.kind == "remb"]
                if rembs and any(f.kind == "rr" for f in one.feedback):
                    return rembs
                await asyncio.sleep(0.05)
            raise AssertionError(f"no REMB and RR reached the camera: {one.feedback}")

        assert abs((await asked())[-1] - MAX_VIDEO) < 8
        slot = next(
            ssrc for ssrc, s in two._slots.items() if (s["seat"], s["kind"]) == (1, "video")
        )
        one.feedback.clear()
        for _ in range(3):
            await glue.send_rtcp(two.pc, receiver_report(0x2222, slot, 128, 100, 5000, 0, 0, 0))
            await asyncio.sleep(0.05)
        one.feedback.clear()
        assert (await asked())[-1] < 0.8 * MAX_VIDEO
    finally:
        await one.close()
        await two.close()
        await sfu.close()
