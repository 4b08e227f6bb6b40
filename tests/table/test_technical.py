"""Technical votes: who calls them and when (T1), the 30 s vote and the
frozen clocks (T2), fouls and removal (T3), defeat (T4) and the record (T5).

Standard deal (tests/table/game.py): Don 1, Mafia 2 and 3, Sheriff 4,
Civilians 5-10. Day 1 opens at 60 with seat 1's speech (60-120)."""

import pytest

from omerta.table.actions import EndSpeech, Interject, Lift, Nominate, TechCall, TechVote, Vote

from .game import DEAL, Table

SEATS = range(1, 11)


def raw(t, name):
    return [e for e in t.events if e.event == name]


def yes_from(t, seats, no=()):
    for seat in seats:
        t.tech_vote(seat, True)
    for seat in no:
        t.tech_vote(seat, False)
    return t


def pass_tech(t, kind, target, caller=None):
    """Call a technical vote now and let just enough living humans vote yes."""
    humans = t.state.living_humans()
    caller = caller or next(q for q in humans if q != target)
    t.tech_call(caller, kind, target)
    yes_from(t, humans[: len(humans) // 2 + 1])
    return t.wait()


def day1():
    return Table().wait()  # seat 1 speaks 60-120


def day1_vote(settings=None):
    """Day 1 with nominees 5 and 6; the vote opens at 660."""
    t = Table(settings=settings).nominations((1, 5), (2, 6))
    t.to_phase("vote")
    assert t.clock == 660
    return t


def tie_on_day1(settings=None):
    """A 5-5 tie between 5 and 6 on day 1: tie speeches at 660 (5) and 690 (6)."""
    t = day1_vote(settings)
    t.votes({s: 5 if s <= 5 else 6 for s in SEATS})
    return t


def lift_on_day1():
    """Tie, tie speeches, tie again: the lift vote opens at 720 (lift_at_zero on)."""
    t = tie_on_day1({"lift_at_zero": True})
    t.to_phase("revote").votes({s: 5 if s <= 5 else 6 for s in SEATS})
    t.to_phase("lift")
    assert t.clock == 720
    return t


def last_word_day2():
    """Seat 7 was shot on night 2 and gives the last word at 674-734."""
    t = Table().shot(7).to_day(2)
    assert t.state.speaker == 7 and t.state.speech_kind == "last_word"
    return t


def speeches(t, since=0):
    return [(s["t"], s["seat"], s["kind"]) for s in t.of("speech") if s["t"] >= since]


# --- T1: who may call, and when --------------------------------------------


@pytest.mark.parametrize("kind", ["foul", "defeat", "removal"])
def test_T1_any_living_player_may_call_a_technical_vote_during_a_day_speech(kind):
    t = day1().wait(10)
    t.tech_call(5, kind, 8)
    assert t.last("tech_call") == {
        "event": "tech_call",
        "t": 70,
        "kind": kind,
        "by": 5,
        "target": 8,
        "seconds": 30,
    }
    assert t.state.tech is not None
    assert t.view(3)["tech"]["kind"] == kind and t.view(3)["tech"]["target"] == 8


@pytest.mark.parametrize("caller", list(SEATS))
def test_T1_every_living_seat_may_call(caller):
    t = day1()
    t.tech_call(caller, "foul", 1 if caller != 1 else 2)
    assert t.last("tech_call")["by"] == caller


def test_T1_a_bot_is_a_living_player_and_may_call():
    t = Table(bots=(10,)).wait()
    t.tech_call(10, "foul", 3)
    assert t.last("tech_call")["by"] == 10


def test_T1_not_during_the_card_draw():
    t = Table(deal=None)
    assert t.state.stage == "draw"
    assert t.refused(TechCall(5, "foul", 8)).rule == "T1"
    t.pick(1, 0)
    assert t.refused(TechCall(1, "removal", 8)).rule == "T1"


@pytest.mark.parametrize("at", [0, 30, 59])
def test_T1_not_during_the_meeting_night(at):
    t = Table().wait(at) if at else Table()
    assert t.refused(TechCall(5, "foul", 8)).rule == "T1"


@pytest.mark.parametrize("window", ["shot", "checks"])
def test_T1_not_during_the_night(window):
    t = Table().to_phase(window)
    assert t.state.night == 2
    assert t.refused(TechCall(5, "foul", 8)).rule == "T1"
    assert t.refused(TechCall(1, "defeat", 4)).rule == "T1"


def test_T1_during_a_last_word():
    t = last_word_day2().wait(5)
    t.tech_call(5, "foul", 8)
    assert t.last("tech_call")["t"] == 679


def test_T1_the_dead_speaker_of_a_last_word_may_not_call():
    t = last_word_day2()
    assert t.refused(TechCall(7, "foul", 8)).rule == "T1"


def test_T1_during_a_tie_speech():
    t = tie_on_day1()
    assert t.state.speech_kind == "tie"
    t.tech_call(3, "foul", 9)
    assert t.last("tech_call")["t"] == 660


def test_T1_during_a_vote():
    t = day1_vote().wait(3)
    t.tech_call(3, "foul", 9)
    assert t.last("tech_call")["t"] == 663


def test_T1_during_a_revote():
    t = tie_on_day1().to_phase("revote")
    t.tech_call(3, "foul", 9)
    assert t.last("tech_call")["t"] == 720


def test_T1_during_a_lift_vote():
    t = lift_on_day1().wait(4)
    t.tech_call(3, "removal", 9)
    assert t.last("tech_call")["t"] == 724


def test_T1_during_a_leader_speech():
    t = day1_vote().votes({s: 5 for s in SEATS})
    assert t.state.speech_kind == "leader"
    t.tech_call(3, "foul", 5)
    assert t.state.tech is not None


def test_T1_during_a_farewell_speech():
    t = Table().to_day(2).nominations((2, 9))
    t.to_speech(9, "farewell")
    t.tech_call(3, "foul", 5)
    assert t.state.tech is not None


def test_T1_a_dead_player_may_not_call():
    t = day1()
    pass_tech(t, "removal", 8)
    assert t.refused(TechCall(8, "foul", 5)).rule == "T1"


def test_T1_not_against_a_dead_player():
    t = day1()
    pass_tech(t, "removal", 8)
    assert t.refused(TechCall(5, "foul", 8)).rule == "T1"


def test_T1_not_after_the_game_ends():
    t = day1()
    pass_tech(t, "defeat", 1)
    assert t.state.over
    t.refused(TechCall(5, "foul", 8))


# --- T2: the technical vote -----------------------------------------------


def test_T2_lasts_30_seconds():
    t = day1().wait(10).tech_call(5, "foul", 8)
    t.wait(29.9)
    assert t.of("tech_vote") == [] and t.state.tech is not None
    t.wait()
    assert t.clock == 100
    assert t.last("tech_vote")["t"] == 100


def test_T2_always_runs_in_full_even_when_everyone_has_voted():
    t = day1().wait(10).tech_call(5, "foul", 8)
    yes_from(t, SEATS)
    assert t.of("tech_vote") == [] and t.state.tech is not None
    assert t.state.next_deadline == 100
    t.wait()
    assert t.last("tech_vote") == {
        "event": "tech_vote",
        "t": 100,
        "kind": "foul",
        "by": 5,
        "target": 8,
        "yes": 10,
        "passed": True,
        "needed": t.last("tech_vote")["needed"],
    }


def test_T2_passes_with_more_than_half_of_the_living_players():
    t = day1().tech_call(5, "foul", 8)
    yes_from(t, [1, 2, 3, 4, 5, 6], no=[7, 8, 9, 10]).wait()
    result = t.last("tech_vote")
    assert (result["yes"], result["passed"]) == (6, True)
    assert t.last("foul") == {"event": "foul", "t": 90, "seat": 8, "count": 1}


def test_T2_exactly_half_fails():
    t = day1().tech_call(5, "foul", 8)
    yes_from(t, [1, 2, 3, 4, 5], no=[6, 7, 8, 9, 10]).wait()
    result = t.last("tech_vote")
    assert (result["yes"], result["passed"]) == (5, False)
    assert t.of("foul") == []
    assert t.state.fouls[8] == 0


def test_T2_a_non_voter_counts_as_no():
    t = day1().tech_call(5, "removal", 8)
    yes_from(t, [1, 2, 3, 4, 5]).wait()  # five yes, five silent
    assert (t.last("tech_vote")["yes"], t.last("tech_vote")["passed"]) == (5, False)
    assert t.state.alive[8]
    assert t.last("tech_record")["ballots"] == {
        "1": True,
        "2": True,
        "3": True,
        "4": True,
        "5": True,
        "6": False,
        "7": False,
        "8": False,
        "9": False,
        "10": False,
    }


def test_T2_bots_do_not_count_toward_the_majority():
    t = Table(bots=(9, 10)).wait().tech_call(5, "foul", 8)
    yes_from(t, [1, 2, 3, 4, 5]).wait()  # 5 of 8 humans
    assert (t.last("tech_vote")["yes"], t.last("tech_vote")["passed"]) == (5, True)
    assert t.last("foul")["seat"] == 8


def test_T2_half_of_the_humans_is_not_enough_with_bots_at_the_table():
    t = Table(bots=(9, 10)).wait().tech_call(5, "foul", 8)
    yes_from(t, [1, 2, 3, 4]).wait()  # 4 of 8 humans
    assert t.last("tech_vote")["passed"] is False


@pytest.mark.parametrize("vote", [True, False])
def test_T2_bots_cannot_vote(vote):
    t = Table(bots=(9, 10)).wait().tech_call(5, "foul", 8)
    assert t.refused(TechVote(9, vote)).rule == "T2"
    assert t.refused(TechVote(10, vote)).rule == "T2"


def test_T2_the_majority_counts_only_living_players():
    t = day1()
    pass_tech(t, "removal", 10)  # 9 living humans
    t.tech_call(5, "foul", 8)
    yes_from(t, [1, 2, 3, 4, 5]).wait()
    assert (t.last("tech_vote")["yes"], t.last("tech_vote")["passed"]) == (5, True)


def test_T2_a_dead_player_cannot_vote():
    t = day1()
    pass_tech(t, "removal", 10)
    t.tech_call(5, "foul", 8)
    assert t.refused(TechVote(10, True)).rule == "T2"


def test_T2_one_technical_vote_at_a_time():
    t = day1().tech_call(5, "foul", 8)
    assert t.refused(TechCall(6, "removal", 9)).rule == "T2"
    assert t.refused(TechCall(5, "foul", 8)).rule == "T2"
    t.wait()
    t.tech_call(6, "removal", 9)  # the next one may start once it is over
    assert t.last("tech_call")["t"] == 90


def test_T2_only_technical_ballots_are_accepted_during_a_day_speech():
    t = day1().tech_call(5, "foul", 8)
    for action in (Nominate(1, 7), EndSpeech(1), Interject(6)):
        assert t.refused(action).rule == "T2"
    assert t.view(1)["actions"] == ["tech_vote"]
    assert t.view(6)["actions"] == ["tech_vote"]
    t.tech_vote(6, True)


def test_T2_only_technical_ballots_are_accepted_during_a_vote():
    t = day1_vote().tech_call(3, "foul", 9)
    assert t.refused(Vote(4, 5)).rule == "T2"
    assert t.refused(Vote(1, 6)).rule == "T2"


def test_T2_only_technical_ballots_are_accepted_during_a_lift_vote():
    t = lift_on_day1().tech_call(3, "foul", 9)
    assert t.refused(Lift(4, True)).rule == "T2"


def test_T2_technical_vote_freezes_the_speech_clock():
    t = day1().wait(10).tech_call(5, "foul", 8)  # at 70; seat 1 had 50 s left
    t.wait()
    assert t.clock == 100
    assert t.state.deadline == 150
    t.wait()
    assert t.last("speech_end") == {"event": "speech_end", "t": 150, "seat": 1, "early": False}
    assert t.last("speech") == {
        "event": "speech",
        "t": 150,
        "seat": 2,
        "seconds": 60,
        "kind": "day",
    }


def test_T2_a_speech_does_not_end_while_a_technical_vote_runs():
    t = day1().wait(50).tech_call(5, "foul", 8)  # at 110, 10 s left; vote to 140
    t.wait(20)  # 130: past the speech's 120
    assert t.of("speech_end") == [] and t.state.speaker == 1
    t.wait()
    assert t.clock == 140
    t.wait()
    assert t.last("speech_end")["t"] == 150
    assert speeches(t) == [(60, 1, "day"), (150, 2, "day")]


def test_T2_technical_vote_freezes_the_interjection_clock():
    t = day1().wait(5).interject(5)  # 65-70
    t.wait(2).tech_call(6, "foul", 8)  # at 67; 3 s of interjection left
    t.wait()
    assert t.clock == 97
    assert t.state.interjector == 5 and t.state.interjection_end == 100
    t.wait()
    assert t.last("interjection_end") == {"event": "interjection_end", "t": 100, "seat": 5}
    t.wait()
    assert t.last("speech_end")["t"] == 150


def test_T2_technical_vote_freezes_the_vote_clock():
    t = day1_vote().wait(4).tech_call(3, "foul", 9)  # at 664, 6 s of the vote left
    t.wait()
    assert t.clock == 694 and t.state.stage == "vote"
    t.vote(1, 5)
    t.wait()
    assert t.last("votes")["t"] == 700


def test_T2_technical_vote_freezes_the_open_vote_calls():
    t = day1_vote({"voting": "open"}).wait(2).tech_call(3, "foul", 9)  # at 662
    t.wait()
    assert t.clock == 692
    t.wait()
    assert t.last("calling") == {"event": "calling", "t": 695, "candidate": 6, "seconds": 5}


def test_T2_technical_vote_freezes_the_lift_clock():
    t = lift_on_day1().wait(2).tech_call(3, "foul", 9)  # at 722, 8 s of the lift left
    t.wait()
    assert t.clock == 752 and t.state.stage == "lift"
    t.wait()
    assert t.last("votes")["round"] == "lift"
    assert t.last("votes")["t"] == 760


def test_T2_technical_vote_freezes_a_tie_speech():
    t = tie_on_day1().wait(10).tech_call(3, "foul", 9)  # tie speech 660-690, call at 670
    t.wait().wait()
    assert t.last("speech_end")["t"] == 720
    assert t.last("speech") == {
        "event": "speech",
        "t": 720,
        "seat": 6,
        "seconds": 30,
        "kind": "tie",
    }


def test_T2_technical_vote_freezes_a_last_word():
    t = last_word_day2().wait(30).tech_call(3, "foul", 9)  # 674-734, call at 704
    t.wait().wait()
    assert t.last("speech_end") == {"event": "speech_end", "t": 764, "seat": 7, "early": False}


def test_T2_the_result_is_public():
    t = day1().tech_call(5, "foul", 8)
    yes_from(t, [1, 2, 3]).wait()
    result = raw(t, "tech_vote")[-1]
    assert result.audience.kind == "everyone"
    assert t.last("tech_vote") == {
        "event": "tech_vote",
        "t": 90,
        "kind": "foul",
        "by": 5,
        "target": 8,
        "yes": 3,
        "passed": False,
        "needed": t.last("tech_vote")["needed"],
    }


# --- T3: fouls and removal ---------------------------------------------


def test_T3_a_first_foul_is_counted_and_the_player_stays():
    t = day1()
    pass_tech(t, "foul", 8)
    assert t.of("foul") == [{"event": "foul", "t": 90, "seat": 8, "count": 1}]
    assert t.state.alive[8] and t.left() == []
    assert t.view(None)["seats"][7]["fouls"] == 1


def test_T3_second_foul_removes_the_player():
    t = day1()
    pass_tech(t, "foul", 8)
    pass_tech(t, "foul", 8)
    assert t.of("foul")[-1] == {"event": "foul", "t": 120, "seat": 8, "count": 2}
    assert t.left() == [(8, "removed")]
    assert t.last("left") == {"event": "left", "t": 120, "seat": 8, "cause": "removed"}


def test_T3_second_foul_removes_and_cancels_the_days_vote():
    t = day1()
    pass_tech(t, "foul", 8)  # day 1
    t.to_day(2).nominations((2, 5), (3, 6), (4, 7))
    assert t.state.nominees == (
        5,
        6,
        7,
    )
    pass_tech(t, "foul", 8)  # day 2, during seat 4's speech
    assert t.left() == [(8, "removed")]
    assert len(t.of("vote_cancelled")) == 1
    assert t.state.nominees == () and t.view(None)["nominees"] == []
    t.skip_day()
    assert [p["phase"] for p in t.of("phase") if p.get("day") == 2] == ["day"]
    assert t.of("votes") == []
    assert t.state.alive[5] and t.state.alive[6] and t.state.alive[7]
    assert t.state.night == 3


def test_T3_fouls_against_different_players_do_not_add_up():
    t = day1()
    pass_tech(t, "foul", 8)
    pass_tech(t, "foul", 9)
    assert t.left() == []
    assert [(f["seat"], f["count"]) for f in t.of("foul")] == [(8, 1), (9, 1)]


def test_T3_a_failed_foul_vote_gives_no_foul():
    t = day1().tech_call(5, "foul", 8).wait()
    pass_tech(t, "foul", 8)
    assert t.state.alive[8]
    assert t.last("foul")["count"] == 1


def test_T3_a_removed_player_leaves_at_once():
    t = day1().wait(10).tech_call(5, "removal", 8)
    yes_from(t, range(1, 7)).wait()
    assert t.last("left") == {"event": "left", "t": 100, "seat": 8, "cause": "removed"}
    assert not t.state.alive[8]


def test_T3_a_removed_player_gives_no_last_word():
    t = day1()
    pass_tech(t, "removal", 8)
    t.skip_day()
    assert [s for s in t.of("speech") if s["seat"] == 8] == []
    assert [s for s in t.of("speech") if s["kind"] in ("last_word", "farewell")] == []


def test_T3_a_removed_nominee_gives_no_farewell_and_nobody_leaves_by_vote():
    t = Table().to_day(2).nominations((2, 8))
    pass_tech(t, "removal", 8)
    t.skip_day()
    assert t.left() == [(8, "removed")]
    assert [s for s in t.of("speech") if s["seat"] == 8 and s["t"] >= 674] == []
    assert t.of("votes") == []


def test_T3_no_more_nominations_that_day():
    t = Table().to_day(2).nominations((2, 5))
    pass_tech(t, "removal", 9)
    t.to_speech(3)
    assert t.refused(Nominate(3, 6)).rule == "T3"
    assert "nominate" not in t.view(3)["actions"]
    assert t.view(3)["nominations_closed"] is True
    assert t.refused(Nominate(3, 5)).rule in ("T3", "D2")
    t.skip_day()
    t.to_day(3).nominations((3, 6))  # the next day nominations resume
    assert t.state.nominees == (6,)


def test_T3_a_tie_speech_under_way_ends_at_once_and_night_falls():
    t = tie_on_day1().wait(5).tech_call(3, "removal", 9)  # tie speech of 5, 660-690
    yes_from(t, range(1, 7)).wait()
    assert t.clock == 695
    assert t.last("speech_end") == {"event": "speech_end", "t": 695, "seat": 5, "early": True}
    assert t.last("phase") == {
        "event": "phase",
        "t": 695,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }
    assert [s for s in t.of("speech") if s["kind"] == "tie"] == [
        {"event": "speech", "t": 660, "seat": 5, "seconds": 30, "kind": "tie"}
    ]
    assert [v["round"] for v in t.of("votes")] == ["vote"]


def test_T3_a_vote_under_way_ends_at_once_and_night_falls():
    t = day1_vote().vote(1, 5).vote(2, 6).wait(3).tech_call(3, "removal", 9)  # at 663
    yes_from(t, range(1, 7)).wait()
    assert t.left() == [(9, "removed")]
    assert t.of("votes") == []
    assert t.last("phase") == {
        "event": "phase",
        "t": 693,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }
    assert t.state.vote_round is None


def test_T3_a_revote_under_way_ends_at_once():
    t = tie_on_day1().to_phase("revote").tech_call(3, "removal", 9)  # at 720
    yes_from(t, range(1, 7)).wait()
    assert [v["round"] for v in t.of("votes")] == ["vote"]
    assert t.last("phase")["phase"] == "shot" and t.last("phase")["t"] == 750


def test_T3_a_lift_vote_under_way_ends_at_once_and_nobody_is_lifted():
    t = lift_on_day1()
    for seat in range(1, 9):
        t.lift(seat, True)
    t.tech_call(3, "removal", 9)
    yes_from(t, range(1, 7)).wait()
    assert t.left() == [(9, "removed")]
    assert t.state.alive[5] and t.state.alive[6]
    assert [v["round"] for v in t.of("votes")] == ["vote", "revote"]
    assert t.last("phase") == {
        "event": "phase",
        "t": 750,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }


def test_T3_the_remaining_day_speeches_go_on_then_night():
    t = Table().to_speech(3)  # seat 3 speaks 180-240
    t.wait(10).tech_call(5, "removal", 8)  # at 190, removal at 220
    yes_from(t, range(1, 7)).wait()
    assert t.left() == [(8, "removed")]
    t.to_phase("shot")
    assert speeches(t, 180) == [
        (180, 3, "day"),
        (270, 4, "day"),
        (330, 5, "day"),
        (390, 6, "day"),
        (450, 7, "day"),
        (510, 9, "day"),
        (570, 10, "day"),
    ]
    assert t.last("phase") == {
        "event": "phase",
        "t": 630,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }


def test_T3_a_removed_speakers_speech_ends():
    t = Table().to_speech(3)  # seat 3 speaks 180-240
    t.wait(10).tech_call(5, "removal", 3)  # at 190, removal at 220
    yes_from(t, range(4, 10)).wait()
    assert t.left() == [(3, "removed")]
    assert t.last("speech_end")["seat"] == 3 and t.last("speech_end")["t"] == 220
    assert t.last("speech") == {
        "event": "speech",
        "t": 220,
        "seat": 4,
        "seconds": 60,
        "kind": "day",
    }


def test_T3_removal_during_a_last_word_leaves_the_day_without_nominations():
    t = last_word_day2().wait(10).tech_call(5, "removal", 9)
    yes_from(t, range(1, 7)).wait()
    assert t.left() == [(7, "shot"), (9, "removed")]
    assert t.state.speaker == 7  # the last word goes on
    t.to_speech(2)
    assert t.refused(Nominate(2, 5)).rule == "T3"
    t.skip_day()
    assert [s["seat"] for s in t.of("speech") if s["kind"] == "day" and s["t"] > 674] == [
        2,
        3,
        4,
        5,
        6,
        8,
        10,
        1,
    ]
    assert t.of("votes") == []


# --- T4: defeat ---------------------------------------------------------


@pytest.mark.parametrize("offender", [1, 2, 3])
def test_T4_defeat_of_a_black_player_gives_red_the_win(offender):
    t = day1().wait(10)
    pass_tech(t, "defeat", offender)
    over = t.last("game_over")
    assert (over["t"], over["winner"]) == (100, "red")
    assert t.state.over and t.state.next_deadline is None
    assert t.events[-1].event == "game_over"


@pytest.mark.parametrize("offender", [4, 5, 10])
def test_T4_defeat_of_a_red_player_gives_black_the_win(offender):
    t = day1().wait(10)
    pass_tech(t, "defeat", offender)
    over = t.last("game_over")
    assert (over["t"], over["winner"]) == (100, "black")
    assert over["roles"] == {str(s): r for s, r in DEAL.items()}


def test_T4_defeat_ends_the_game_at_once_during_a_vote():
    t = day1_vote().vote(1, 5).wait(2)
    pass_tech(t, "defeat", 4)
    assert t.of("votes") == []
    assert t.last("game_over")["t"] == 692 and t.last("game_over")["winner"] == "black"
    assert t.state.over


def test_T4_a_failed_defeat_changes_nothing():
    t = day1().tech_call(5, "defeat", 1)
    yes_from(t, [1, 2, 3, 4, 5]).wait()
    assert not t.state.over and t.of("game_over") == []
    assert t.state.speaker == 1 and t.state.deadline == 150


# --- T5: the record ------------------------------------------------------


def test_T5_every_technical_vote_is_recorded_for_moderators():
    t = day1().wait(10).tech_call(5, "foul", 8)
    yes_from(t, [1, 2, 3, 4, 6, 7], no=[8, 9]).wait()
    records = raw(t, "tech_record")
    assert len(records) == 1
    rec = records[0]
    assert rec.audience.kind == "record"
    for seat in [None, *SEATS]:
        assert not rec.audience.includes(seat)
    d = rec.to_dict()
    assert d["t"] == 100
    assert (d["by"], d["target"], d["kind"], d["passed"]) == (5, 8, "foul", True)
    assert d["ballots"] == {
        "1": True,
        "2": True,
        "3": True,
        "4": True,
        "5": False,
        "6": True,
        "7": True,
        "8": False,
        "9": False,
        "10": False,
    }
    assert d["phase"] in ("day", "day_speech")


def test_T5_a_failed_vote_is_recorded_too():
    t = day1().tech_call(2, "removal", 6)
    yes_from(t, [1, 2], no=[3, 4, 5, 6]).wait()
    rec = t.last("tech_record")
    assert (rec["by"], rec["target"], rec["kind"], rec["passed"]) == (2, 6, "removal", False)
    assert sum(rec["ballots"].values()) == 2
    assert len(rec["ballots"]) == 10


def test_T5_each_technical_vote_has_its_own_record():
    t = day1()
    pass_tech(t, "foul", 8, caller=2)
    t.tech_call(3, "removal", 9).wait()
    pass_tech(t, "foul", 8, caller=4)
    recs = t.of("tech_record")
    assert [(r["by"], r["kind"], r["target"], r["passed"]) for r in recs] == [
        (2, "foul", 8, True),
        (3, "removal", 9, False),
        (4, "foul", 8, True),
    ]
    assert [r["t"] for r in recs] == [90, 120, 150]


def test_T5_a_defeat_is_recorded_before_the_game_ends():
    t = day1()
    pass_tech(t, "defeat", 2)
    names = [e.event for e in t.events]
    assert "tech_record" in names
    assert names.index("tech_record") < names.index("game_over")
    assert t.last("tech_record")["kind"] == "defeat" and t.last("tech_record")["passed"]


@pytest.mark.parametrize(
    "setup,phases",
    [
        (lambda: day1(), ("day", "day_speech")),
        (lambda: last_word_day2(), ("last_word", "last_word_speech")),
        (lambda: tie_on_day1(), ("tie", "tie_speech")),
        (lambda: day1_vote(), ("vote",)),
        (lambda: tie_on_day1().to_phase("revote"), ("revote",)),
        (lambda: lift_on_day1(), ("lift",)),
    ],
    ids=["day_speech", "last_word", "tie_speech", "vote", "revote", "lift"],
)
def test_T5_the_record_names_the_phase_of_the_call(setup, phases):
    t = setup()
    t.tech_call(5, "foul", 8).wait()
    assert t.last("tech_record")["phase"] in phases


# --- forfeits: the engine says who the table judged (docs/ratings.md) ------------


def test_T3_T4_the_state_names_who_forfeits_their_awards():
    t = day1()
    pass_tech(t, "foul", 6)
    assert t.state.forfeits == frozenset()  # one foul forfeits nothing
    pass_tech(t, "removal", 7)
    pass_tech(t, "foul", 6)  # the second foul removes
    assert t.state.forfeits == {6, 7}
    pass_tech(t, "defeat", 2)  # T4: the offender forfeits too
    assert t.state.over and t.state.winner == "red"
    assert t.state.forfeits == {2, 6, 7}


def test_forfeits_are_exactly_the_removed_and_the_defeated_in_random_games():
    """Random play where technical votes are called often and mostly pass."""
    import random

    from omerta.table import CLASSIC, Timeout, apply, new_game
    from omerta.table.legal import legal_actions

    games_with_forfeits = 0
    for seed in range(60):
        rng = random.Random(seed)
        state, events = new_game(CLASSIC, {}, seed)
        while not state.over:
            options = legal_actions(state, rng.randint(1, 10), tech_calls=rng.random() < 0.05)
            if state.tech is not None:
                options = [a for a in options if a.yes or rng.random() < 0.2]
            if options and rng.random() < (0.95 if state.tech is not None else 0.5):
                state, new = apply(state, rng.choice(options), state.now)
            else:
                state, new = apply(state, Timeout(), state.next_deadline)
            events += new
        said = {e.seat for e in events if e.event == "left" and e.cause == "removed"}
        said |= {
            e.target for e in events if e.event == "tech_vote" and e.kind == "defeat" and e.passed
        }
        assert state.forfeits == said
        games_with_forfeits += bool(said)
    assert games_with_forfeits >= 5
