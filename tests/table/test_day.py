"""Day speeches, nominations and interjections (D1–D5).

The fixed deal of game.py: Don 1, Mafia 2 and 3, Sheriff 4, Civilians 5–10.
Timeline with no departures: the meeting runs 0–60; day 1 speeches are seat k
at 60 + 60(k-1), the last ending at 660; a quiet night 2 is the shot 660–667
and the checks 667–674; day 2 opens at 674."""

from omerta.table.actions import EndSpeech, Interject, Nominate, TechCall

from .game import Table

DAY1 = 60  # day 1 begins when the 60 s meeting ends
NIGHT2 = 660  # day 1 with ten 60 s speeches and no nominee
DAY2 = 674  # night 2: 7 s shot + 7 s checks


def speeches(t, since=0):
    return [(e["seat"], e["t"], e["seconds"], e["kind"]) for e in t.of("speech") if e["t"] >= since]


def at(t, when):
    """Run the clock to exactly `when` (deadlines strictly before it fire)."""
    assert when >= t.clock
    return t.wait(when - t.clock)


def day_two(shot=None, settings=None):
    """Day 1 with no nominations; night 2 shoots `shot` (or misses)."""
    t = Table(settings=settings)
    if shot is not None:
        t.shot(shot)
    return t.to_day(2)


def tie_on_day_one(settings=None):
    """Day 1: seat 1 nominates 7, seat 2 nominates 3; 5–5 at 660 ends the
    vote at once: tie speeches 7 at 660 and 3 at 690, the revote at 720."""
    t = Table(settings=settings)
    t.nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes({1: 7, 2: 7, 3: 7, 4: 7, 5: 7, 6: 3, 7: 3, 8: 3, 9: 3, 10: 3})
    return t


# --- D1: speeches ---------------------------------------------------------


def test_D1_every_living_player_speaks_in_turn_60_seconds_each():
    t = Table().to_day(1)
    t.skip_day()
    assert speeches(t) == [(k, 60 * k, 60, "day") for k in range(1, 11)]
    ends = [(e["seat"], e["t"], e["early"]) for e in t.of("speech_end")]
    assert ends == [(k, 60 * k + 60, False) for k in range(1, 11)]
    assert t.last("phase") == {
        "event": "phase",
        "t": NIGHT2,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }


def test_D1_a_dead_player_gets_no_day_speech():
    t = day_two(shot=5)
    t.to_phase("shot")
    assert speeches(t, since=DAY2) == [
        (5, 674, 60, "last_word"),
        (2, 734, 60, "day"),
        (3, 794, 60, "day"),
        (4, 854, 60, "day"),
        (6, 914, 60, "day"),
        (7, 974, 60, "day"),
        (8, 1034, 60, "day"),
        (9, 1094, 60, "day"),
        (10, 1154, 60, "day"),
        (1, 1214, 60, "day"),
    ]
    assert t.state.night == 3 and t.clock == 1274


def test_D1_only_the_speakers_mic_is_open():
    t = Table().to_speech(3)
    gate = t.gate()
    assert set(gate.audio) == {3}
    assert all(gate.allows(3, seat, "audio") for seat in range(1, 11) if seat != 3)
    assert gate.allows(3, None, "audio")  # spectators hear the speaker
    assert not any(
        gate.allows(seat, other, "audio")
        for seat in range(1, 11)
        if seat != 3
        for other in range(1, 11)
    )


def test_D1_only_the_speakers_mic_is_open_during_a_last_word():
    t = day_two(shot=5)
    assert (t.state.speaker, t.state.speech_kind) == (5, "last_word")
    assert set(t.gate().audio) == {5}
    assert t.gate().allows(5, 9, "audio") and not t.gate().allows(9, 5, "audio")


def test_D1_a_speaker_may_end_a_day_speech_early_and_the_next_starts_at_once():
    t = Table().to_speech(1)
    at(t, 85).end_speech(1)
    assert t.last("speech_end") == {"event": "speech_end", "t": 85, "seat": 1, "early": True}
    assert t.last("speech") == {"event": "speech", "t": 85, "seat": 2, "seconds": 60, "kind": "day"}
    assert t.state.next_deadline == 145


def test_D1_a_speaker_may_end_a_tie_speech_early():
    t = tie_on_day_one()
    assert (t.state.speaker, t.state.speech_kind, t.clock) == (7, "tie", 660)
    at(t, 670).end_speech(7)
    assert t.last("speech") == {
        "event": "speech",
        "t": 670,
        "seat": 3,
        "seconds": 30,
        "kind": "tie",
    }
    t.end_speech(3)  # at once, at 670
    assert t.phase == "revote"
    assert t.last("phase") == {
        "event": "phase",
        "t": 670,
        "phase": "revote",
        "day": 1,
        "seconds": 10,
    }


def test_D1_a_speaker_may_end_a_leader_speech_early():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes({seat: 7 for seat in range(1, 11)})  # 10–0 at 660
    assert t.last("speech") == {
        "event": "speech",
        "t": 660,
        "seat": 7,
        "seconds": 30,
        "kind": "leader",
    }
    at(t, 668).end_speech(7)
    assert t.last("phase") == {
        "event": "phase",
        "t": 668,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }


def test_D1_a_speaker_may_end_a_farewell_speech_early():
    t = Table(settings={"break_at_zero": True}).nominations((1, 7)).to_speech(7, "farewell")
    assert t.clock == NIGHT2
    at(t, 700).end_speech(7)
    assert t.last("speech_end") == {"event": "speech_end", "t": 700, "seat": 7, "early": True}
    assert t.last("phase") == {
        "event": "phase",
        "t": 700,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }


def test_D1_a_speaker_may_end_a_last_word_early():
    t = day_two(shot=5)
    at(t, 680).end_speech(5)
    assert t.last("speech") == {
        "event": "speech",
        "t": 680,
        "seat": 2,
        "seconds": 60,
        "kind": "day",
    }


def test_D1_only_the_speaker_may_end_the_speech():
    t = Table().to_speech(4)
    assert t.refused(EndSpeech(5)).rule == "D1"
    assert t.refused(EndSpeech(3)).rule == "D1"
    t.nominate(4, 6)
    t.to_speech(5).nominate(5, 8).to_phase("vote")
    assert t.refused(EndSpeech(8)).rule == "D1"  # nobody speaks during the vote


# --- D2: nominations ------------------------------------------------------


def test_D2_the_speaker_nominates_a_living_player_during_their_speech():
    t = Table().to_speech(3)
    at(t, 200).nominate(3, 7)
    assert t.of("nominated") == [{"event": "nominated", "t": 200, "by": 3, "target": 7}]
    assert t.state.nominees == (7,)
    assert t.view(9)["nominees"] == [7]


def test_D2_a_speaker_may_nominate_themselves():
    t = Table().to_speech(6).nominate(6, 6)
    assert t.last("nominated") == {"event": "nominated", "t": 360, "by": 6, "target": 6}
    assert t.state.nominees == (6,)


def test_D2_a_second_nomination_in_the_same_speech_is_refused():
    t = Table().to_speech(2).nominate(2, 9)
    err = t.refused(Nominate(2, 5))
    assert err.rule == "D2"
    assert t.refused(Nominate(2, 2)).rule == "D2"
    assert t.state.nominees == (9,)


def test_D2_a_nomination_is_final_and_cannot_be_replaced():
    t = Table().to_speech(2).nominate(2, 9)
    at(t, 150)
    assert t.refused(Nominate(2, 4)).rule == "D2"
    t.to_speech(3).nominate(3, 4).to_phase("vote")
    assert t.state.candidates == (
        9,
        4,
    )
    assert [(e["by"], e["target"]) for e in t.of("nominated")] == [(2, 9), (3, 4)]


def test_D2_each_speaker_may_nominate_once_in_their_own_speech():
    t = Table().nominations((1, 4), (2, 5), (3, 6))
    assert t.state.nominees == (
        4,
        5,
        6,
    )


def test_D2_only_the_speaker_may_nominate():
    t = Table().to_speech(3)
    assert t.refused(Nominate(4, 7)).rule == "D2"
    assert t.refused(Nominate(2, 7)).rule == "D2"
    assert t.state.nominees == ()


def test_D2_a_dead_player_cannot_be_nominated():
    t = day_two(shot=6).to_speech(2)
    assert t.refused(Nominate(2, 6)).rule == "D2"
    t.nominate(2, 7)
    assert t.state.nominees == (7,)


def test_D2_a_dead_player_cannot_nominate():
    t = day_two(shot=6).to_speech(3)
    assert t.refused(Nominate(6, 7)).rule == "D2"


def test_D2_a_player_already_nominated_that_day_cannot_be_nominated_again():
    t = Table().nominations((1, 7)).to_speech(4)
    assert t.refused(Nominate(4, 7)).rule == "D2"
    t.nominate(4, 8)
    t.to_speech(7)
    assert t.refused(Nominate(7, 7)).rule == "D2"  # not even by themselves
    assert t.state.nominees == (
        7,
        8,
    )


def test_D2_a_player_nominated_yesterday_may_be_nominated_again_today():
    t = Table().nominations((1, 7))  # V7: stays on day 1
    t.to_day(2)
    assert t.state.nominees == ()
    t.to_speech(2).nominate(2, 7)
    assert t.last("nominated") == {"event": "nominated", "t": DAY2, "by": 2, "target": 7}


def test_D2_no_nomination_during_a_tie_speech():
    t = tie_on_day_one()
    assert t.state.speech_kind == "tie"
    assert t.refused(Nominate(7, 5)).rule == "D2"


def test_D2_no_nomination_during_a_leader_speech():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes({seat: 7 for seat in range(1, 11)})
    assert t.state.speech_kind == "leader"
    assert t.refused(Nominate(7, 5)).rule == "D2"


def test_D2_no_nomination_during_a_farewell_speech():
    t = Table(settings={"break_at_zero": True}).nominations((1, 7)).to_speech(7, "farewell")
    assert t.refused(Nominate(7, 5)).rule == "D2"


def test_D2_no_nomination_during_a_last_word():
    t = day_two(shot=5)
    assert t.state.speech_kind == "last_word"
    assert t.refused(Nominate(5, 2)).rule == "D2"


def test_D2_no_nomination_during_the_vote():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    assert t.refused(Nominate(2, 5)).rule == "D2"


# --- D3: who opens the day -------------------------------------------------


def test_D3_day_one_opens_with_seat_1():
    t = Table().to_day(1)
    assert t.last("phase") == {
        "event": "phase",
        "t": DAY1,
        "phase": "day",
        "day": 1,
        "seconds": None,
    }
    assert speeches(t) == [(1, 60, 60, "day")]


def test_D3_day_two_opens_with_the_seat_after_the_previous_opener():
    t = day_two()
    assert speeches(t, since=DAY2) == [(2, DAY2, 60, "day")]
    t.skip_day()
    assert [s for s, *_ in speeches(t, since=DAY2)] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 1]


def test_D3_day_three_opens_with_seat_3_after_two_quiet_days():
    t = day_two().to_day(3)
    assert speeches(t, since=1288) == [(3, 1288, 60, "day")]


def test_D3_day_two_opens_with_the_seat_after_the_previous_opener_skipping_the_dead():
    t = day_two(shot=2)
    t.to_speech(3)
    assert speeches(t, since=DAY2) == [(2, 674, 60, "last_word"), (3, 734, 60, "day")]
    t.skip_day()
    assert [s for s, *_ in speeches(t, since=734)] == [3, 4, 5, 6, 7, 8, 9, 10, 1]


def test_D3_the_next_day_counts_from_the_previous_opener_not_from_the_skipped_seat():
    t = day_two(shot=2)  # day 2 opened by 3 (2 is dead)
    t.to_day(3)  # a quiet day 2 (1274) and night 3 (1274-1288)
    assert speeches(t, since=1288) == [(4, 1288, 60, "day")]


def test_D3_a_dead_previous_opener_still_counts_as_the_previous_opener():
    t = day_two(shot=1)  # day 1's opener dies at night 2
    t.to_speech(2)
    assert speeches(t, since=DAY2) == [(1, 674, 60, "last_word"), (2, 734, 60, "day")]


def test_D3_the_opener_is_decided_when_the_day_speeches_start_after_the_last_words():
    # Night 2 kills 5; during 5's last word seat 2 (next opener) is removed by
    # a technical vote, so day 2 opens with 3.
    t = day_two(shot=5)
    at(t, 684).do(TechCall(6, "removal", 2))
    for seat in (3, 4, 6, 7, 8):
        t.tech_vote(seat, True)
    t.wait()  # the technical vote ends at 714
    assert t.left() == [(5, "shot"), (2, "removed")]
    t.to_speech(3)
    assert speeches(t, since=DAY2) == [(5, 674, 60, "last_word"), (3, 764, 60, "day")]


# --- D4: interjections -------------------------------------------------------


def test_D4_a_living_player_interjects_for_5_seconds_during_someone_elses_day_speech():
    t = Table().to_speech(1)
    at(t, 70).interject(5)
    assert t.of("interjection") == [
        {"event": "interjection", "t": 70, "seat": 5, "left": 2, "seconds": 5}
    ]
    gate = t.gate()
    assert set(gate.audio) == {1, 5}  # 5 s of open mic
    assert gate.allows(5, 1, "audio") and gate.allows(5, 9, "audio")
    assert t.state.next_deadline == 75
    t.wait()
    assert t.last("interjection_end") == {"event": "interjection_end", "t": 75, "seat": 5}
    assert set(t.gate().audio) == {1}
    assert t.state.speaker == 1 and t.state.next_deadline == 120


def test_D4_each_player_has_three_interjections_per_game():
    t = Table().to_speech(1).interject(5)
    t.to_speech(2).interject(5)
    t.to_day(2)
    t.to_speech(2).interject(5)  # the third, on day 2
    assert [(e["t"], e["left"]) for e in t.of("interjection")] == [(60, 2), (120, 1), (DAY2, 0)]
    t.wait().to_speech(3)  # the interjection ended
    assert t.refused(Interject(5)).rule == "D4"
    assert t.view(5)["seats"][4]["interjections"] == 0
    t.interject(6)  # each player has their own 3
    assert t.last("interjection")["left"] == 2


def test_D4_the_speaker_cannot_interject_in_their_own_speech():
    t = Table().to_speech(4)
    assert t.refused(Interject(4)).rule == "D4"


def test_D4_a_dead_player_cannot_interject():
    t = day_two(shot=6).to_speech(2)
    assert t.refused(Interject(6)).rule == "D4"


def test_D4_third_interjection_shortens_the_next_day_speech_to_30_seconds():
    t = Table()
    for speaker in (1, 2, 3):
        t.to_speech(speaker).interject(5)
    t.to_speech(6)
    assert speeches(t, since=240) == [(4, 240, 60, "day"), (5, 300, 30, "day"), (6, 330, 60, "day")]


def test_D4_only_the_next_day_speech_after_the_third_interjection_is_short():
    t = Table()
    for speaker in (1, 2, 3):
        t.to_speech(speaker).interject(5)
    t.skip_day()  # day 1 ends at 630
    t.to_day(2).to_speech(6)
    assert speeches(t, since=644) == [
        (2, 644, 60, "day"),
        (3, 704, 60, "day"),
        (4, 764, 60, "day"),
        (5, 824, 60, "day"),
        (6, 884, 60, "day"),
    ]


def test_D4_third_interjection_after_own_speech_shortens_the_next_days_speech():
    t = Table()
    for speaker in (6, 7, 8):
        t.to_speech(speaker).interject(5)
    t.to_day(2).to_speech(6)
    assert speeches(t, since=DAY2) == [
        (2, 674, 60, "day"),
        (3, 734, 60, "day"),
        (4, 794, 60, "day"),
        (5, 854, 30, "day"),
        (6, 884, 60, "day"),
    ]


def test_D4_the_short_speech_is_the_next_day_speech_a_farewell_stays_60_seconds():
    # The short speech is the next *day* speech: a farewell stays 60 s.
    t = Table(settings={"break_at_zero": True})
    for speaker in (1, 2, 3):
        t.to_speech(speaker).interject(7)
    t.to_speech(4).nominate(4, 7)
    t.to_speech(7)
    assert speeches(t, since=420)[0] == (7, 420, 30, "day")
    t.to_speech(7, "farewell")
    assert t.last("speech") == {
        "event": "speech",
        "t": 630,
        "seat": 7,
        "seconds": 60,
        "kind": "farewell",
    }


def test_D4_a_tie_or_leader_speech_does_not_use_up_the_short_day_speech():
    t = Table().nominations((1, 7), (2, 3))
    for speaker in (4, 5, 6):  # 3 has already spoken on day 1
        t.to_speech(speaker).interject(3)
    t.to_phase("vote")
    t.votes({1: 7, 2: 7, 3: 7, 4: 7, 5: 7, 6: 3, 7: 3, 8: 3, 9: 3, 10: 3})
    t.to_phase("revote")  # tie speeches 7 at 660, 3 at 690
    t.votes({1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3, 7: 7, 8: 7, 9: 7, 10: 7})
    t.to_day(2).to_speech(4)  # leader 3 at 720, night 750-764
    assert speeches(t, since=NIGHT2) == [
        (7, 660, 30, "tie"),
        (3, 690, 30, "tie"),
        (3, 720, 30, "leader"),
        (2, 764, 60, "day"),
        (3, 824, 30, "day"),
        (4, 854, 60, "day"),
    ]


def test_D4_no_interjection_during_a_tie_speech():
    t = tie_on_day_one()
    assert t.state.speech_kind == "tie"
    assert t.refused(Interject(5)).rule == "D4"


def test_D4_no_interjection_during_a_vote():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    assert t.refused(Interject(5)).rule == "D4"


def test_D4_no_interjection_during_a_revote_or_a_lift_vote():
    t = tie_on_day_one(settings={"lift_at_zero": True}).to_phase("revote")
    assert t.refused(Interject(5)).rule == "D4"
    t.votes({1: 7, 2: 7, 3: 7, 4: 7, 5: 7, 6: 3, 7: 3, 8: 3, 9: 3, 10: 3})
    assert t.phase == "lift"
    assert t.refused(Interject(5)).rule == "D4"


def test_D4_no_interjection_during_a_last_word():
    t = day_two(shot=5)
    assert t.state.speech_kind == "last_word"
    assert t.refused(Interject(6)).rule == "D4"


def test_D4_no_interjection_during_a_farewell_speech():
    t = Table(settings={"break_at_zero": True}).nominations((1, 7)).to_speech(7, "farewell")
    assert t.refused(Interject(5)).rule == "D4"


def test_D4_no_interjection_during_a_leader_speech():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes({seat: 7 for seat in range(1, 11)})
    assert t.state.speech_kind == "leader"
    assert t.refused(Interject(5)).rule == "D4"


# --- D5: one at a time, on the speaker's clock --------------------------------


def test_D5_a_second_interjection_while_one_runs_is_refused():
    t = Table().to_speech(1)
    at(t, 70).interject(5)
    at(t, 72)
    assert t.refused(Interject(6)).rule == "D5"
    assert t.state.interjector == 5


def test_D5_another_player_may_interject_once_the_first_interjection_ended():
    t = Table().to_speech(1)
    at(t, 70).interject(5)
    t.wait()  # 5's interjection ends at 75
    t.interject(6)
    assert [(e["seat"], e["t"]) for e in t.of("interjection")] == [(5, 70), (6, 75)]
    assert set(t.gate().audio) == {1, 6}


def test_D5_an_interjection_does_not_pause_the_speakers_clock():
    t = Table().to_speech(1)
    at(t, 100).interject(5)
    t.wait()
    at(t, 110).interject(6)
    t.to_speech(2)
    assert t.last("speech_end") == {"event": "speech_end", "t": 120, "seat": 1, "early": False}
    assert speeches(t) == [(1, 60, 60, "day"), (2, 120, 60, "day")]


def test_D5_an_interjection_ends_when_the_speech_ends():
    t = Table().to_speech(1)
    at(t, 117).interject(5)
    assert t.last("interjection") == {
        "event": "interjection",
        "t": 117,
        "seat": 5,
        "left": 2,
        "seconds": 3,
    }
    assert t.state.next_deadline == 120
    t.wait()
    assert t.last("interjection_end") == {"event": "interjection_end", "t": 120, "seat": 5}
    assert t.state.interjector is None
    assert (t.state.speaker, t.clock) == (2, 120)
    assert set(t.gate().audio) == {2}
    assert t.state.next_deadline == 180


def test_D5_an_interjection_due_to_end_with_the_speech_ends_with_it():
    t = Table().to_speech(1)
    at(t, 115).interject(5)
    t.wait()
    ends = [(e.event, e.t) for e in t.events if e.event in ("interjection_end", "speech_end")]
    assert ends == [("interjection_end", 120), ("speech_end", 120)]
    assert t.state.interjector is None and t.state.speaker == 2


def test_D5_an_interjection_ends_when_the_speaker_ends_early():
    t = Table().to_speech(1)
    at(t, 70).interject(5)
    at(t, 72).end_speech(1)
    assert t.last("interjection_end") == {"event": "interjection_end", "t": 72, "seat": 5}
    assert t.state.interjector is None and t.state.speaker == 2
    assert set(t.gate().audio) == {2}
    assert t.state.next_deadline == 132
    t.interject(6)  # the next speech is free again
    assert t.last("interjection") == {
        "event": "interjection",
        "t": 72,
        "seat": 6,
        "left": 2,
        "seconds": 5,
    }


def test_D5_a_refused_interjection_uses_none_of_the_three():
    t = Table().to_speech(1)
    at(t, 70).interject(5)
    t.refused(Interject(6))
    t.wait().interject(6)
    assert t.last("interjection")["left"] == 2
