"""The node's keep-alive sweep (omerta/server/keepalive.py, docs/api.md
"Reconnecting"), on a fake clock and fake sockets: no waiting."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from omerta.server import keepalive
from omerta.server.keepalive import DROP_AFTER, LOOK_EVERY, PING_AFTER, SLICES, Keepalive

#: the sweep's beat: one slice of the sockets each
TICK = LOOK_EVERY / SLICES


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
    #: bytes from it wait unread in the kernel
    waiting: bool = False

    def ping(self) -> None:
        self.pings += 1

    def drop(self) -> None:
        self.dropped = True

    def unread(self) -> bool:
        return self.waiting


def tick(sweep: Keepalive, clock: Clock) -> None:
    clock.now += TICK
    sweep.sweep()


def tick_until(sweep: Keepalive, clock: Clock, done: Callable[[], bool]) -> None:
    """Sweep on its beat until `done()`; a minute without it fails the test
    instead of hanging it."""
    end = clock.now + 60.0
    while not done():
        assert clock.now < end, "not done after a minute of sweeps"
        tick(sweep, clock)


def run(sweep: Keepalive, clock: Clock, sockets: list[FakeSocket], seconds: float) -> None:
    """Sweep on its beat for `seconds`, the sockets answering pings as they do."""
    end = clock.now + seconds
    while clock.now < end:
        for socket in sockets:
            answers = socket.answers_after
            if answers is not None and socket.heard < socket.pinged <= clock.now - answers:
                socket.heard = socket.pinged + answers
        tick(sweep, clock)


def test_a_socket_heard_from_recently_is_neither_pinged_nor_cut():
    clock = Clock()
    sweep = Keepalive(clock)
    talking = FakeSocket()
    sweep.watch(talking)
    for _ in range(400):
        tick(sweep, clock)
        talking.heard = clock.now - 2.0  # the web client's ping every 2 s
    assert (talking.pings, talking.dropped) == (0, False)


def test_a_silent_socket_is_pinged_once_per_silence_after_2_5_s():
    clock = Clock()
    sweep = Keepalive(clock)
    silent = FakeSocket()
    sweep.watch(silent)
    watched = clock.now
    tick_until(sweep, clock, lambda: silent.pings > 0)
    assert PING_AFTER <= clock.now - watched <= PING_AFTER + LOOK_EVERY
    run(sweep, clock, [silent], DROP_AFTER - PING_AFTER - LOOK_EVERY)
    assert silent.pings == 1 and not silent.dropped


def test_a_socket_that_answers_its_pings_stays_however_long_it_says_nothing_else():
    clock = Clock()
    sweep = Keepalive(clock)
    answering = FakeSocket(answers_after=0.3)  # a slow network's pong
    sweep.watch(answering)
    run(sweep, clock, [answering], 60.0)
    assert not answering.dropped
    assert 60 / (PING_AFTER + LOOK_EVERY + 0.3) - 1 <= answering.pings <= 60 / PING_AFTER


def test_a_socket_that_does_not_answer_is_cut_within_4_s_of_its_last_frame():
    clock = Clock()
    sweep = Keepalive(clock)
    dead = FakeSocket()
    sweep.watch(dead)
    last_frame = clock.now
    tick_until(sweep, clock, lambda: dead.dropped)
    assert dead.pings == 1
    assert DROP_AFTER <= clock.now - last_frame <= 4.0
    assert len(sweep) == 0  # forgotten: it is never pinged or cut again


def test_a_socket_cut_whatever_the_phase_of_the_sweep_is_cut_within_4_s():
    """The sweep runs on its own beat: a socket's last frame may fall
    anywhere between two sweeps."""
    for offset in range(2 * SLICES):
        clock = Clock()
        sweep = Keepalive(clock)
        dead = FakeSocket()
        sweep.watch(dead)
        for _ in range(offset):  # the sweep is somewhere in its round
            tick(sweep, clock)
        dead.heard = last_frame = clock.now - offset * TICK / 7
        tick_until(sweep, clock, lambda dead=dead: dead.dropped)
        assert clock.now - last_frame <= 4.0 + 1e-9, offset


def test_a_ping_gets_at_least_a_second_to_be_answered():
    clock = Clock()
    sweep = Keepalive(clock)
    slow = FakeSocket(answers_after=0.99)
    sweep.watch(slow)
    run(sweep, clock, [slow], 60.0)
    assert slow.pings > 10 and not slow.dropped


def test_after_the_loop_stood_still_a_ping_still_gets_its_second():
    """A socket first looked at long after its last frame (the loop stood
    still) is pinged, not cut unasked, and has as long to answer as ever."""
    clock = Clock()
    sweep = Keepalive(clock)
    late = FakeSocket(answers_after=0.99)
    sweep.watch(late)
    clock.now += 10 * DROP_AFTER
    for _ in range(SLICES):
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
    monkeypatch.setattr(keepalive, "LOOK_EVERY", 0.01)
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


def test_pings_are_spread_over_the_round_never_thousands_at_once():
    """A ping is a system call: sockets that went silent together (they
    connected together) are pinged a slice at a time."""
    clock = Clock()
    sweep = Keepalive(clock)
    sockets = [FakeSocket() for _ in range(1000)]
    for socket in sockets:
        sweep.watch(socket)
    clock.now += PING_AFTER
    most = 0
    for _ in range(SLICES):
        before = sweep.pings
        tick(sweep, clock)
        most = max(most, sweep.pings - before)
    assert sweep.pings == 1000 and most <= 1000 // SLICES + 1


def test_a_pong_read_in_the_same_turn_as_the_look_saves_its_socket():
    """After a stall the loop reads the pongs that came meanwhile, then the
    look runs, and only then do the sockets' tasks stamp them: the cut waits
    for that turn."""
    clock = Clock()
    later: list = []
    sweep = Keepalive(clock, later.append)
    answered, dead = FakeSocket(), FakeSocket()
    for socket in (answered, dead):
        sweep.watch(socket)
    run(sweep, clock, [], PING_AFTER + LOOK_EVERY)
    assert answered.pings == dead.pings == 1
    clock.now += DROP_AFTER  # the loop stood still; both pongs were due long ago
    for _ in range(SLICES):
        sweep.sweep()
    assert later and not answered.dropped and not dead.dropped  # not at once
    answered.heard = clock.now  # its task's turn: the pong read before the look
    for call in later:
        call()
    assert dead.dropped and not answered.dropped
    assert sweep.cuts == 1 and len(sweep) == 1


def test_a_socket_whose_pong_waits_unread_in_the_kernel_is_not_cut():
    """A loop too busy to read yet is no reason to cut anyone."""
    clock = Clock()
    sweep = Keepalive(clock)
    busy = FakeSocket()
    sweep.watch(busy)
    run(sweep, clock, [], PING_AFTER + LOOK_EVERY)
    busy.waiting = True
    run(sweep, clock, [], 2 * DROP_AFTER)
    assert not busy.dropped
    busy.waiting = False
    run(sweep, clock, [], LOOK_EVERY)
    assert busy.dropped
