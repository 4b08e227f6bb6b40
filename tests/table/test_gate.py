"""Who sees and hears whom (docs/rules.md G1–G5): cameras are on by day, mics
only for the speaker; nothing in the draw; the black team alone at night;
everything at the end. Every test also checks all of G1–G5 after each step."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omerta.table.actions import Pick
from omerta.table.random_play import random_game

from .game import Table
from .gate_rules import check_gate

SEATS = range(1, 11)


class Watched(Table):
    """A table that checks the whole gate after every step it takes."""

    def _take(self, state, events):
        super()._take(state, events)
        check_gate(state)


def hears(t, src):
    return {dst for dst in (*SEATS, None) if t.gate().allows(src, dst, "audio")}


def sees(t, src):
    return {dst for dst in (*SEATS, None) if t.gate().allows(src, dst, "video")}


def mics(t):
    return {src for src in SEATS if hears(t, src)}


def cameras(t):
    return {src for src in SEATS if sees(t, src)}


def everyone_but(seat):
    return {*SEATS, None} - {seat}


def pass_tech(t, kind, target):
    humans = t.state.living_humans()
    t.tech_call(next(q for q in humans if q != target), kind, target)
    for seat in humans[: len(humans) // 2 + 1]:
        t.tech_vote(seat, True)
    return t.wait()


# --- G1: the draw -----------------------------------------------------------


def test_G1_every_camera_and_mic_is_closed_during_the_draw():
    t = Watched(deal=None)
    assert not mics(t) and not cameras(t)
    t.do(Pick(1, 0)).do(Pick(2, 5))
    assert not mics(t) and not cameras(t)
    assert t.view(1)["gate"] == {"audio": [], "video": []}


# --- G2: night --------------------------------------------------------------


@pytest.mark.parametrize("agreement", ["silent", "sound"])
def test_G2_at_the_meeting_the_black_team_sees_each_other_and_hears_only_with_sound(agreement):
    t = Watched(settings={"agreement": agreement})
    assert t.phase == "meeting"
    assert cameras(t) == {1, 2, 3} and sees(t, 1) == {2, 3}
    assert mics(t) == ({1, 2, 3} if agreement == "sound" else set())


def test_G2_red_players_and_spectators_see_and_hear_nothing_at_night():
    t = Watched(settings={"agreement": "sound"}).to_phase("shot")
    for red in range(4, 11):
        assert t.view(red)["gate"] == {"audio": [], "video": []}
        assert not sees(t, red) and not hears(t, red)
    assert t.view(None)["gate"] == {"audio": [], "video": []}
    t.to_phase("checks")
    assert not cameras(t) and not mics(t)


# --- G3: by day -------------------------------------------------------------


def test_G3_every_living_camera_reaches_every_seat_during_a_speech():
    t = Watched().to_speech(3)
    assert cameras(t) == set(SEATS)
    for src in SEATS:
        assert sees(t, src) == everyone_but(src)
    assert t.view(7)["gate"]["video"] == [1, 2, 3, 4, 5, 6, 8, 9, 10]
    assert t.view(None)["gate"]["video"] == list(SEATS)


def test_G3_only_the_speakers_mic_is_open_during_a_speech():
    t = Watched().to_speech(3)
    assert mics(t) == {3} and hears(t, 3) == everyone_but(3)
    assert t.view(7)["gate"]["audio"] == [3]


def test_G3_an_interjectors_mic_opens_beside_the_speakers_and_closes_after_5_seconds():
    t = Watched().to_speech(1)
    t.interject(5)
    assert mics(t) == {1, 5} and hears(t, 5) == everyone_but(5)
    t.wait()
    assert mics(t) == {1}


@pytest.mark.parametrize("voting", ["closed", "open"])
def test_G3_no_mic_during_a_vote_and_every_camera_stays_on(voting):
    t = Watched(settings={"voting": voting}).nominations((1, 5), (2, 6)).to_phase("vote")
    assert not mics(t)
    assert cameras(t) == set(SEATS) and sees(t, 5) == everyone_but(5)


def test_G3_no_mic_during_a_lift_vote():
    t = Watched(settings={"lift_at_zero": True}).nominations((1, 5), (2, 6)).to_phase("vote")
    t.votes({q: 5 if q <= 5 else 6 for q in SEATS if q != 10})
    t.to_phase("revote")
    t.votes({q: 5 if q <= 5 else 6 for q in SEATS if q != 10})
    t.to_phase("lift")
    assert not mics(t) and cameras(t) == set(SEATS)


def test_G3_no_mic_during_a_technical_vote_and_every_camera_stays_on():
    t = Watched().to_speech(2)
    t.interject(5)
    t.tech_call(4, "foul", 8)
    assert not mics(t)
    assert cameras(t) == set(SEATS)
    t.wait()  # the vote fails; the speech resumes
    assert mics(t) == {2, 5}


def test_G3_a_player_giving_a_last_word_is_seen_and_heard_by_every_seat():
    t = Watched().shot(5).to_day(2)
    assert (t.state.speaker, t.state.speech_kind) == (5, "last_word")
    assert not t.state.alive[5]
    assert cameras(t) == set(SEATS) and mics(t) == {5}
    assert sees(t, 5) == everyone_but(5) and hears(t, 5) == everyone_but(5)


def test_G3_a_farewell_speaker_is_seen_and_heard_by_every_seat():
    t = Watched(settings={"break_at_zero": True}).nominations((1, 7)).to_speech(7, "farewell")
    assert not t.state.alive[7]
    assert cameras(t) == set(SEATS) and mics(t) == {7}


def test_G3_a_dead_seat_receives_every_living_camera_and_the_speakers_mic_by_day():
    t = Watched().shot(5).to_day(2).to_speech(2)
    assert t.view(5)["gate"] == {"audio": [2], "video": [1, 2, 3, 4, 6, 7, 8, 9, 10]}


# --- G4: those who have left ---------------------------------------------------


def test_G4_a_shot_player_is_no_longer_a_source():
    t = Watched().shot(5).to_day(2).to_speech(2)
    assert 5 not in cameras(t) and 5 not in mics(t)
    assert cameras(t) == set(SEATS) - {5}


def test_G4_a_voted_out_player_is_no_longer_a_source_after_the_farewell():
    t = Watched(settings={"break_at_zero": True}).nominations((1, 7)).to_speech(7, "farewell")
    t.wait()
    assert t.state.stage == "night"
    t.to_day(2)
    assert 7 not in cameras(t) and 7 not in mics(t)


def test_G4_lifted_players_are_never_a_source_again():
    t = Watched(settings={"lift_at_zero": True}).nominations((1, 5), (2, 6)).to_phase("vote")
    t.votes({q: 5 if q <= 5 else 6 for q in SEATS if q != 10})
    t.to_phase("revote")
    t.votes({q: 5 if q <= 5 else 6 for q in SEATS if q != 10})
    t.to_phase("lift")
    for seat in SEATS:
        t.lift(seat, True)
    t.to_day(2)
    assert t.left() == [(5, "lift"), (6, "lift")]
    assert cameras(t) == set(SEATS) - {5, 6}


def test_G4_a_player_removed_during_their_own_speech_goes_dark_at_once():
    t = Watched().to_speech(6)
    pass_tech(t, "removal", 6)
    assert not t.state.alive[6]
    assert 6 not in cameras(t) and 6 not in mics(t)
    assert mics(t) == {t.state.speaker} and t.state.speaker == 7


def test_G4_a_player_who_has_left_receives_what_a_living_red_receives():
    t = Watched().shot(5).to_day(2).to_speech(2)
    living = [q for q in SEATS if q != 5]
    assert t.view(5)["gate"] == {"audio": [2], "video": living}
    assert t.view(9)["gate"] == {"audio": [2], "video": [q for q in living if q != 9]}
    t.to_phase("shot")
    assert t.view(5)["gate"] == t.view(9)["gate"] == {"audio": [], "video": []}


# --- G5: the end ---------------------------------------------------------------


def test_G5_everything_opens_at_the_end():
    t = Watched().shot(5).to_day(2)
    pass_tech(t, "defeat", 1)  # T4: the Don's defeat ends the game
    assert t.state.over
    for src in SEATS:
        assert sees(t, src) == hears(t, src) == everyone_but(src)  # the dead seat 5 too


# --- every step ------------------------------------------------------------------


def test_G1_to_G5_hold_at_every_step_of_a_whole_scripted_game():
    t = Watched(deal=None, settings={"voting": "open", "agreement": "sound"})
    for seat in SEATS:
        t.pick(seat, seat - 1)
    t.to_day(1).to_speech(1).interject(4)
    t.nominations((2, 8), (3, 9))
    t.to_phase("vote").run_until(lambda t: t.state.night == 2)
    roles = {q: t.state.roles[q] for q in SEATS}
    black = [q for q in SEATS if roles[q] in ("don", "mafia")]
    red = [q for q in SEATS if q not in black]
    t.to_phase("shot")
    for q in black:
        t.shoot(q, red[0])
    t.to_day(2)
    pass_tech(t, "foul", red[1])
    t.run_until(lambda t: t.state.over, limit=2000)
    check_gate(t.state)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    agreement=st.sampled_from(["silent", "sound"]),
    voting=st.sampled_from(["closed", "open"]),
)
def test_G1_to_G5_hold_at_every_step_of_random_games(seed, agreement, voting):
    random_game(
        seed,
        {"agreement": agreement, "voting": voting},
        on_step=lambda action, state, events: check_gate(state),
    )
