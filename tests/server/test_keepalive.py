"""The node's keep-alive sweep (omerta/server/keepalive.py, docs/api.md
"Reconnecting"), on a fake clock and fake sockets: no waiting."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from omerta.server import keepalive
from omerta.server.keepalive import DROP_AFTER, PING_AFTER, SWEEP_EVERY, Keepalive


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass(eq=False)
class FakeSocket:
    heard: float = 0.0
    pinged: float = 0.0
    pings: int = 0
    dropped: bool = False
    #: answers each ping this many seconds later (None: never)
    answers_after: float | None = None

    def ping(self) -> None:
        self.pings += 1

    def drop(self) -> None:
        self.dropped = True


def run(sweep: Keepalive, clock: Clock, sockets: list[FakeSocket], seconds: float) -> None:
    """Sweep every SWEEP_EVERY for `seconds`, sockets answering pings as they do."""
    end = clock.now + seconds
    while clock.now < end:
        clock.now += SWEEP_EVERY
        for socket in sockets:
            answers = socket.answers_after
            if answers is not None and socket.heard < socket.pinged <= clock.now - answers:
                socket.heard = socket.pinged + answers
        sweep.sweep()


def test_a_socket_heard_from_recently_is_neither_pinged_nor_cut():
    clock = Clock()
    sweep = Keepalive(clock)
    talking = FakeSocket()
    sweep.watch(talking)
    for _ in range(40):
        clock.now += SWEEP_EVERY
        talking.heard = clock.now - 2.0  # the web client's ping every 2 s
        sweep.sweep()
    assert (talking.pings, talking.dropped) == (0, False)


def test_a_silent_socket_is_pinged_once_per_silence_after_2_5_s():
    clock = Clock()
    sweep = Keepalive(clock)
    silent = FakeSocket()
    sweep.watch(silent)
    clock.now += PING_AFTER - 0.01
    sweep.sweep()
    assert silent.pings == 0
    clock.now += 0.02
    sweep.sweep()
    sweep.sweep()
    assert silent.pings == 1 and not silent.dropped


def test_a_socket_that_answers_its_pings_stays_however_long_it_says_nothing_else():
    clock = Clock()
    sweep = Keepalive(clock)
    answering = FakeSocket(answers_after=0.3)  # a slow network's pong
    sweep.watch(answering)
    run(sweep, clock, [answering], 60.0)
    assert not answering.dropped
    assert 60 / (PING_AFTER + SWEEP_EVERY + 0.3) <= answering.pings <= 60 / PING_AFTER


def test_a_socket_that_does_not_answer_is_cut_within_4_s_of_its_last_frame():
    clock = Clock()
    sweep = Keepalive(clock)
    dead = FakeSocket()
    sweep.watch(dead)
    last_frame = clock.now
    while not dead.dropped:
        clock.now += SWEEP_EVERY
        sweep.sweep()
    assert dead.pings == 1
    assert DROP_AFTER <= clock.now - last_frame <= 4.0
    assert len(sweep) == 0  # forgotten: it is never pinged or cut again


def test_a_socket_cut_whatever_the_phase_of_the_sweep_is_cut_within_4_s():
    """The sweep runs on its own beat: a socket's last frame may fall
    anywhere between two sweeps."""
    for offset in range(10):
        clock = Clock()
        sweep = Keepalive(clock)
        dead = FakeSocket()
        sweep.watch(dead)
        dead.heard = last_frame = clock.now - offset * SWEEP_EVERY / 10
        while not dead.dropped:
            clock.now += SWEEP_EVERY
            sweep.sweep()
        assert clock.now - last_frame <= 4.0 + 1e-9, offset


def test_a_ping_always_gets_a_whole_sweep_to_be_answered():
    """Even a socket first looked at long after its last frame is pinged
    before it is cut (a sweep delayed by a stalled loop cuts nobody unasked)."""
    clock = Clock()
    sweep = Keepalive(clock)
    late = FakeSocket(answers_after=SWEEP_EVERY * 0.9)
    sweep.watch(late)
    clock.now += 10 * DROP_AFTER
    sweep.sweep()
    assert late.pings == 1 and not late.dropped
    run(sweep, clock, [late], 20.0)
    assert not late.dropped


def test_a_forgotten_socket_is_left_alone():
    clock = Clock()
    sweep = Keepalive(clock)
    gone = FakeSocket()
    sweep.watch(gone)
    sweep.forget(gone)
    run(sweep, clock, [gone], 10.0)
    assert (gone.pings, gone.dropped) == (0, False)


async def test_the_sweep_runs_by_itself_and_survives_a_failing_socket(monkeypatch):
    """The sweep's own timer: it goes on after a socket's ping raises (a
    bug of ours must not end every socket's keep-alive)."""
    monkeypatch.setattr(keepalive, "SWEEP_EVERY", 0.01)
    monkeypatch.setattr(keepalive, "PING_AFTER", 0.0)

    class Broken(FakeSocket):
        def ping(self) -> None:
            raise RuntimeError("a bug")

    loop = asyncio.get_running_loop()
    sweep = Keepalive(loop.time)
    broken, fine = Broken(), FakeSocket(answers_after=0.0)
    sweep.watch(broken)
    sweep.start(loop)
    try:
        await asyncio.sleep(0.1)
        sweep.watch(fine)
        for _ in range(500):
            if fine.pings:
                break
            await asyncio.sleep(0.01)
    finally:
        sweep.stop()
    assert fine.pings >= 1
