"""T3 with D5: a player removed while interjecting stops being heard at once.

Standard deal (tests/table/game.py): Don 1, Mafia 2 and 3, Sheriff 4,
Civilians 5-10. Seat 1 opens day 1 (60 s); seat 5 interjects in it."""

from .game import Table

SEATS = range(1, 11)
INTERJECTOR = 5


def removed_while_interjecting() -> Table:
    """Seat 5 interjects 10 s into seat 1's speech; one second later a
    removal of seat 5 is called and passes (the clocks freeze for 30 s)."""
    t = Table().to_speech(1)
    t.wait(10).interject(INTERJECTOR)
    t.wait(1).tech_call(6, "removal", INTERJECTOR)
    for seat in range(1, 7):
        t.tech_vote(seat, True)
    t.wait()
    assert t.left() == [(INTERJECTOR, "removed")]
    return t


def test_T3_D5_a_removed_interjector_is_heard_by_nobody():
    t = removed_while_interjecting()
    gate = t.gate()
    for receiver in [*SEATS, None]:
        for kind in ("audio", "video"):
            assert not gate.allows(INTERJECTOR, receiver, kind), (receiver, kind)


def test_T3_D5_the_speaker_keeps_the_floor_alone_after_the_interjector_is_removed():
    t = removed_while_interjecting()
    assert (t.state.speaker, t.state.speech_kind) == (1, "day")
    for seat in [*SEATS, None]:
        view = t.view(seat)
        assert view["interjector"] is None
        assert view["interjection_end"] is None
        assert INTERJECTOR not in view["gate"]["audio"]
    assert all(t.gate().allows(1, seat, "audio") for seat in SEATS if seat != 1)


def test_T3_D5_the_removed_interjectors_mic_stays_closed_until_the_speech_ends():
    t = removed_while_interjecting()
    # Seat 1 speaks from 60 s; the interjection (70 s) would have run to
    # 75 s, 105 s once the technical vote (71-101 s) froze the clocks; the
    # speech runs to 150 s. Nothing is due in between.
    assert (t.clock, t.state.next_deadline) == (101, 150)
    t.wait(5)
    assert not any(t.gate().allows(INTERJECTOR, seat, "audio") for seat in SEATS)
    t.wait()
    assert t.of("speech")[-1]["seat"] == 2
    assert not any(t.gate().allows(INTERJECTOR, seat, "audio") for seat in SEATS)


def test_T3_D5_after_the_removal_another_player_may_interject():
    t = removed_while_interjecting()
    t.interject(6)
    assert t.state.interjector == 6
    assert t.gate().allows(6, 3, "audio")
