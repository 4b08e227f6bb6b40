"""Votes after the day speeches (V1–V7) and the §3 settings `voting`,
`break_at_zero` and `lift_at_zero`.

The fixed deal of game.py: Don 1, Mafia 2 and 3, Sheriff 4, Civilians 5–10.
Day 1 speeches run 60–660, so its vote starts at 660. A quiet night 2 runs
660–674; day 2 has ten speeches (or a last word and nine speeches) and its
vote starts at 1274."""

import pytest

from omerta.table import BadSettings
from omerta.table.actions import Lift, Vote
from omerta.table.events import EVERYONE

from .game import Table

VOTE1 = 660
VOTE2 = 1274


def at(t, when):
    """Run the clock to exactly `when` (deadlines strictly before it fire)."""
    assert when >= t.clock
    return t.wait(when - t.clock)


def wire(ballots):
    return {str(seat): value for seat, value in ballots.items()}


def spread(by_target):
    """{target: [voters]} -> {voter: target}"""
    return {voter: target for target, voters in by_target.items() for voter in voters}


def day_two(shot=None, settings=None):
    """Day 1 with no nominations; night 2 shoots `shot` (or misses)."""
    t = Table(settings=settings)
    if shot is not None:
        t.shot(shot)
    return t.to_day(2)


def phases(t, since):
    return [(e["phase"], e["t"], e["seconds"]) for e in t.of("phase") if e["t"] >= since]


def speeches(t, since):
    return [(e["seat"], e["t"], e["seconds"], e["kind"]) for e in t.of("speech") if e["t"] >= since]


def ballot_events(t):
    return [e for e in t.events if e.event == "ballot"]


# --- V1: how many nominees ------------------------------------------------------


def test_V1_no_nominee_means_no_vote_and_night_falls():
    t = day_two().skip_day()
    assert t.of("votes") == []
    assert phases(t, since=VOTE2) == [("shot", VOTE2, 7)]
    assert t.state.night == 3 and t.left() == []


def test_V1_no_nominee_on_day_one_means_night_falls_at_the_end_of_the_speeches():
    t = Table().to_day(1).skip_day()
    assert t.of("votes") == [] and t.left() == []
    assert phases(t, since=VOTE1) == [("shot", VOTE1, 7)]


def test_V1_a_single_nominee_leaves_without_a_vote_and_gives_the_farewell_speech():
    t = day_two().nominations((4, 8)).skip_day()
    assert t.of("votes") == []
    assert t.of("left") == [{"event": "left", "t": VOTE2, "seat": 8, "cause": "vote"}]
    assert speeches(t, since=VOTE2) == [(8, VOTE2, 60, "farewell")]
    assert phases(t, since=VOTE2 + 1) == [("shot", VOTE2 + 60, 7)]
    assert t.state.alive[8] is False


def test_V1_two_nominees_start_the_vote():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    assert t.clock == VOTE2
    assert t.last("phase") == {
        "event": "phase",
        "t": VOTE2,
        "phase": "vote",
        "day": 2,
        "seconds": 10,
    }
    assert t.state.candidates == (
        8,
        3,
    )
    assert t.view(5)["vote"]["candidates"] == [8, 3]


# --- V2: who votes and for whom ---------------------------------------------------


def test_V2_non_voters_give_their_vote_to_the_last_nominated():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    t.votes({1: 8, 2: 8, 5: 8, 9: 8})
    t.wait()
    assert t.last("votes") == {
        "event": "votes",
        "t": VOTE2 + 10,
        "round": "vote",
        "ballots": wire({1: 8, 2: 8, 3: 3, 4: 3, 5: 8, 6: 3, 7: 3, 8: 3, 9: 8, 10: 3}),
        "counts": {"8": 4, "3": 6},
    }
    assert t.left() == [(3, "vote")]


def test_V2_the_last_nominated_is_the_last_in_nomination_order_not_in_seat_order():
    t = day_two().nominations((2, 9), (4, 3), (6, 7)).to_phase("vote")
    t.wait()  # nobody votes
    assert t.last("votes")["ballots"] == wire({seat: 7 for seat in range(1, 11)})
    assert t.left() == [(7, "vote")]


def test_V2_the_first_vote_is_final():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    at(t, VOTE2 + 2).vote(5, 8)
    assert t.refused(Vote(5, 3)).rule == "V2"
    assert t.refused(Vote(5, 8)).rule == "V2"
    t.wait()
    assert t.last("votes")["ballots"]["5"] == 8


def test_V2_only_nominees_can_be_voted_for():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    assert t.refused(Vote(5, 6)).rule == "V2"
    assert t.refused(Vote(5, 5)).rule == "V2"
    t.vote(8, 8)  # a nominee may vote for a nominee
    assert t.state.ballots == {8: 8}


def test_V2_dead_players_do_not_vote():
    t = day_two(shot=6).nominations((2, 8), (4, 3)).to_phase("vote")
    assert t.clock == VOTE2
    assert t.refused(Vote(6, 8)).rule == "V2"
    t.wait()
    assert t.last("votes")["ballots"] == wire({seat: 3 for seat in (1, 2, 3, 4, 5, 7, 8, 9, 10)})


def test_V2_there_is_no_vote_outside_the_vote():
    t = Table().nominations((1, 7), (2, 3))
    assert t.refused(Vote(5, 7)).rule == "V2"  # during seat 2's speech
    t = day_two().skip_day()
    assert t.refused(Vote(5, 7)).rule == "V2"  # at night


# --- V3: closed and open voting ----------------------------------------------------


def test_V3_closed_voting_is_one_10_second_window_for_all():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    assert t.state.settings.voting == "closed"
    assert phases(t, since=VOTE2) == [("vote", VOTE2, 10)]
    assert t.of("calling") == []
    at(t, VOTE2 + 9).vote(5, 8).vote(6, 8)  # both accepted at any moment
    assert t.state.next_deadline == VOTE2 + 10
    t.wait()
    assert t.last("votes")["t"] == VOTE2 + 10


def test_V3_closed_ballots_are_shown_only_after_the_count():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    at(t, VOTE2 + 1).vote(5, 8)
    ballot = ballot_events(t)[-1]
    assert (ballot.voter, ballot.target) == (5, 8)
    assert ballot.audience.includes(5)
    assert not any(ballot.audience.includes(seat) for seat in range(1, 11) if seat != 5)
    assert not ballot.audience.includes(None)
    assert t.view(5)["vote"]["ballots"] == {"5": 8}
    assert t.view(6)["vote"]["ballots"] == {}
    assert t.view(None)["vote"]["ballots"] == {}
    assert t.view(6)["vote"]["voted"] is None  # not even how many voted
    t.wait()
    count = [e for e in t.events if e.event == "votes"][-1]
    assert count.audience == EVERYONE and count.t == VOTE2 + 10
    assert count.ballots[5] == 8


def test_V3_closed_vote_ends_early_once_every_living_player_has_voted():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    at(t, VOTE2 + 1).votes(spread({8: [1, 2, 3, 4, 5, 6]}))
    at(t, VOTE2 + 3).votes(spread({3: [7, 8, 9]}))
    assert t.of("votes") == []
    t.vote(10, 3)
    assert t.last("votes")["t"] == VOTE2 + 3
    assert t.left() == [(8, "vote")]
    assert speeches(t, since=VOTE2) == [(8, VOTE2 + 3, 60, "farewell")]


def test_V3_closed_vote_ends_early_once_every_living_player_has_voted_the_dead_excluded():
    t = day_two(shot=6).nominations((2, 8), (4, 3)).to_phase("vote")
    at(t, VOTE2 + 4).votes(spread({8: [1, 2, 3, 4, 5], 3: [7, 8, 9, 10]}))
    assert t.last("votes")["t"] == VOTE2 + 4
    assert t.left() == [(6, "shot"), (8, "vote")]


def test_V3_closed_vote_runs_its_10_seconds_while_a_living_player_has_not_voted():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    t.votes(spread({8: [1, 2, 3, 4, 5, 6, 7, 8, 9]}))
    assert t.of("votes") == [] and t.phase == "vote"
    t.wait()
    assert t.last("votes")["t"] == VOTE2 + 10
    assert t.last("votes")["ballots"]["10"] == 3


def test_V3_open_voting_calls_each_candidate_in_nomination_order_5_seconds_each():
    t = day_two(settings={"voting": "open"}).nominations((2, 8), (4, 3)).to_phase("vote")
    assert t.view(5)["vote"]["calling"] == 8
    t.wait()
    assert t.view(5)["vote"]["calling"] == 3
    t.wait()
    assert [(e["candidate"], e["t"], e["seconds"]) for e in t.of("calling")] == [
        (8, VOTE2, 5),
        (3, VOTE2 + 5, 5),
    ]
    assert phases(t, since=VOTE2)[0] == ("vote", VOTE2, 10)
    assert t.last("votes")["t"] == VOTE2 + 10


def test_V3_open_voting_calls_each_candidate_for_the_full_five_seconds():
    t = day_two(settings={"voting": "open"}).nominations((2, 8), (4, 3)).to_phase("vote")
    t.votes({seat: 8 for seat in range(1, 11)})  # everyone, at once
    assert t.of("votes") == [] and t.phase == "vote"
    assert t.state.next_deadline == VOTE2 + 5
    t.wait()
    assert t.last("calling") == {"event": "calling", "t": VOTE2 + 5, "candidate": 3, "seconds": 5}
    assert t.of("votes") == []
    t.wait()
    assert t.last("votes") == {
        "event": "votes",
        "t": VOTE2 + 10,
        "round": "vote",
        "ballots": wire({seat: 8 for seat in range(1, 11)}),
        "counts": {"8": 10, "3": 0},
    }
    assert t.left() == [(8, "vote")]


def test_V3_open_vote_for_a_candidate_not_being_called_is_refused():
    t = day_two(settings={"voting": "open"}).nominations((2, 8), (4, 3)).to_phase("vote")
    assert t.refused(Vote(5, 3)).rule == "V3"
    t.wait()  # now calling 3
    assert t.refused(Vote(5, 8)).rule == "V3"
    t.vote(5, 3)
    assert t.state.ballots == {5: 3}


def test_V3_open_vote_is_visible_the_moment_it_is_cast():
    t = day_two(settings={"voting": "open"}).nominations((2, 8), (4, 3)).to_phase("vote")
    at(t, VOTE2 + 2).vote(5, 8)
    ballot = ballot_events(t)[-1]
    assert (ballot.t, ballot.voter, ballot.target) == (VOTE2 + 2, 5, 8)
    assert ballot.audience == EVERYONE
    assert t.view(6)["vote"]["ballots"] == {"5": 8}
    assert t.view(None)["vote"]["ballots"] == {"5": 8}


def test_V3_open_voting_the_first_vote_is_final_across_calls():
    t = day_two(settings={"voting": "open"}).nominations((2, 8), (4, 3)).to_phase("vote")
    t.vote(5, 8).wait()
    assert t.refused(Vote(5, 3)).rule == "V2"


def test_V3_open_voting_leftover_votes_go_to_the_last_candidate():
    t = day_two(settings={"voting": "open"}).nominations((2, 8), (4, 3)).to_phase("vote")
    t.votes(spread({8: [1, 2, 3, 4]}))
    t.wait().vote(9, 3).wait()
    assert t.last("votes")["ballots"] == wire(
        {1: 8, 2: 8, 3: 8, 4: 8, 5: 3, 6: 3, 7: 3, 8: 3, 9: 3, 10: 3}
    )
    assert t.left() == [(3, "vote")]


def test_V3_open_revote_calls_the_tied_in_nomination_order_for_the_full_five_seconds():
    t = day_two(settings={"voting": "open"}).nominations((2, 9), (4, 3), (6, 7)).to_phase("vote")
    t.votes(spread({9: [1, 2, 3, 4, 5]}))
    t.wait().votes(spread({3: [6, 7, 8, 9, 10]}))
    t.to_phase("revote")  # 9 and 3 speak 1289-1349
    assert t.clock == VOTE2 + 15 + 60
    assert [(e["candidate"], e["t"]) for e in t.of("calling")][-1] == (9, VOTE2 + 75)
    assert t.refused(Vote(1, 7)).rule == "V2"
    t.votes({seat: 9 for seat in range(1, 11)})
    t.wait()
    assert t.last("calling") == {"event": "calling", "t": VOTE2 + 80, "candidate": 3, "seconds": 5}
    t.wait()
    assert t.last("votes")["t"] == VOTE2 + 85 and t.last("votes")["round"] == "revote"
    assert t.left() == [(9, "vote")]


def test_V3_open_and_closed_is_a_table_setting():
    assert Table().view(5)["settings"]["voting"] == "closed"
    assert Table(settings={"voting": "open"}).view(5)["settings"]["voting"] == "open"


# --- V4: the single leader leaves ---------------------------------------------------


def test_V4_the_single_player_with_the_most_votes_is_eliminated_and_gives_a_60_second_farewell():
    t = day_two().nominations((2, 9), (4, 3), (6, 7)).to_phase("vote")
    t.votes(spread({9: [1, 2, 3, 4], 3: [5, 6, 7], 7: [8, 9, 10]}))  # 4–3–3: no majority needed
    assert t.of("left") == [{"event": "left", "t": VOTE2, "seat": 9, "cause": "vote"}]
    assert speeches(t, since=VOTE2) == [(9, VOTE2, 60, "farewell")]
    assert t.state.speaker == 9 and t.state.next_deadline == VOTE2 + 60
    t.skip_day()
    assert phases(t, since=VOTE2 + 1) == [("shot", VOTE2 + 60, 7)]
    assert t.state.alive[3] and t.state.alive[7] and not t.state.alive[9]


def test_V4_roles_stay_hidden_until_the_game_ends():
    t = day_two().nominations((2, 3), (4, 8)).to_phase("vote")
    t.votes(spread({3: [4, 5, 6, 7, 8, 9], 8: [1, 2, 3, 10]}))
    assert t.left() == [(3, "vote")]
    assert set(t.last("left")) == {"event", "t", "seat", "cause"}  # no role in the event
    assert not t.state.over
    for seat in (4, 5, 8, None):  # red players and spectators
        assert t.view(seat)["seats"][2]["role"] is None
    assert t.view(None)["winner"] is None


# --- V5: a tie, tie speeches and the revote ---------------------------------------------


def tie_on_day_two(settings=None):
    """Day 2: nominees 9, 3, 7 (in that order); 4–4–2 at 1274: tie of 9 and 3."""
    t = day_two(settings=settings).nominations((2, 9), (4, 3), (6, 7)).to_phase("vote")
    t.votes(spread({9: [1, 2, 5, 6], 3: [3, 4, 7, 8], 7: [9, 10]}))
    return t


def test_V5_each_tied_player_speaks_again_30_seconds_in_nomination_order():
    t = tie_on_day_two()
    t.to_phase("revote")
    assert t.left() == []
    assert speeches(t, since=VOTE2) == [(9, VOTE2, 30, "tie"), (3, VOTE2 + 30, 30, "tie")]
    assert t.last("phase") == {
        "event": "phase",
        "t": VOTE2 + 60,
        "phase": "revote",
        "day": 2,
        "seconds": 10,
    }


def test_V5_the_revote_is_among_the_tied_players_only():
    t = tie_on_day_two().to_phase("revote")
    assert t.state.candidates == (
        9,
        3,
    )
    assert t.refused(Vote(5, 7)).rule == "V2"
    t.vote(5, 9)
    assert t.state.ballots == {5: 9}


def test_V5_in_the_revote_non_voters_go_to_the_last_tied_player_in_nomination_order():
    t = tie_on_day_two().to_phase("revote")
    t.votes(spread({9: [1, 2, 5, 6]}))
    t.wait()
    assert t.last("votes") == {
        "event": "votes",
        "t": VOTE2 + 70,
        "round": "revote",
        "ballots": wire({1: 9, 2: 9, 3: 3, 4: 3, 5: 9, 6: 9, 7: 3, 8: 3, 9: 3, 10: 3}),
        "counts": {"9": 4, "3": 6},
    }
    assert t.left() == [(3, "vote")]
    assert speeches(t, since=VOTE2 + 70) == [(3, VOTE2 + 70, 60, "farewell")]


def test_V5_the_revote_single_leader_is_eliminated_with_a_farewell():
    t = tie_on_day_two().to_phase("revote")
    t.votes(spread({9: [1, 2, 3, 4, 5, 6], 3: [7, 8, 9, 10]}))  # all voted: ends at once
    assert t.of("left") == [{"event": "left", "t": VOTE2 + 60, "seat": 9, "cause": "vote"}]
    assert speeches(t, since=VOTE2 + 60) == [(9, VOTE2 + 60, 60, "farewell")]


def test_V5_a_three_way_tie_gives_three_tie_speeches_and_a_three_way_revote():
    t = day_two(shot=6).nominations((2, 9), (4, 3), (5, 7)).to_phase("vote")
    t.votes(spread({9: [1, 2, 3], 3: [4, 5, 7], 7: [8, 9, 10]}))
    t.to_phase("revote")
    assert speeches(t, since=VOTE2) == [
        (9, VOTE2, 30, "tie"),
        (3, VOTE2 + 30, 30, "tie"),
        (7, VOTE2 + 60, 30, "tie"),
    ]
    assert t.state.candidates == (
        9,
        3,
        7,
    )
    assert t.clock == VOTE2 + 90


# --- V6: the lift vote ---------------------------------------------------------------


def second_tie_on_day_two(settings=None):
    """Day 2: nominees 8, 3; 5–5 at 1274; tie speeches 1274–1334; 5–5 again at
    1334: the lift vote runs 1334–1344."""
    t = day_two(settings=settings).nominations((2, 8), (4, 3)).to_phase("vote")
    t.votes(spread({8: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    t.to_phase("revote")
    t.votes(spread({8: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    return t


def test_V6_second_tie_goes_to_lift_vote():
    t = second_tie_on_day_two()
    assert t.phase == "lift"
    assert t.last("phase") == {
        "event": "phase",
        "t": VOTE2 + 60,
        "phase": "lift",
        "day": 2,
        "seconds": 10,
    }
    assert [e["round"] for e in t.of("votes")] == ["vote", "revote"]
    assert t.left() == []


def test_V6_more_than_half_yes_removes_all_tied_players_at_once_without_farewell():
    t = second_tie_on_day_two()
    for seat in (1, 2, 5, 6, 9, 10):
        t.lift(seat, True)
    for seat in (3, 4, 7, 8):
        t.lift(seat, False)
    t.wait()
    assert t.last("votes") == {
        "event": "votes",
        "t": VOTE2 + 70,
        "round": "lift",
        "ballots": wire(
            {
                1: True,
                2: True,
                3: False,
                4: False,
                5: True,
                6: True,
                7: False,
                8: False,
                9: True,
                10: True,
            }
        ),
        "counts": {"yes": 6, "no": 4},
    }
    assert sorted(t.left()) == [(3, "lift"), (8, "lift")]
    assert {e["t"] for e in t.of("left")} == {VOTE2 + 70}
    assert speeches(t, since=VOTE2 + 60) == []  # no farewell speeches
    assert phases(t, since=VOTE2 + 70) == [("shot", VOTE2 + 70, 7)]
    assert not t.state.alive[3] and not t.state.alive[8]


def test_V6_a_seat_offered_the_lift_vote_is_offered_it_until_it_casts_its_ballot():
    t = second_tie_on_day_two()
    assert t.view(1)["actions"] == ["lift", "tech_call"]
    t.lift(1, True)
    assert t.view(1)["actions"] == ["tech_call"]
    assert t.view(2)["actions"] == ["lift", "tech_call"]
    assert t.view(None)["actions"] == []


def test_V6_exactly_half_yes_is_not_more_than_half_and_nobody_leaves():
    t = second_tie_on_day_two()
    for seat in (1, 2, 5, 6, 9):
        t.lift(seat, True)
    for seat in (3, 4, 7, 8, 10):
        t.lift(seat, False)
    t.wait()
    assert t.last("votes")["round"] == "lift"
    assert t.left() == []
    assert phases(t, since=VOTE2 + 70) == [("shot", VOTE2 + 70, 7)]


def test_V6_a_non_voter_counts_as_no():
    t = second_tie_on_day_two()
    t.lift(1, True).lift(2, True).lift(5, True).lift(7, False)  # 3 yes of 4 cast, of 10 living
    t.wait()
    assert t.last("votes")["ballots"] == wire(
        {
            1: True,
            2: True,
            3: False,
            4: False,
            5: True,
            6: False,
            7: False,
            8: False,
            9: False,
            10: False,
        }
    )
    assert t.left() == []


def test_V6_the_lift_vote_always_runs_its_full_10_seconds():
    t = second_tie_on_day_two()
    for seat in range(1, 11):
        t.lift(seat, True)
    assert t.of("votes")[-1]["round"] == "revote" and t.phase == "lift"
    assert t.state.next_deadline == VOTE2 + 70
    t.wait()
    assert t.last("votes")["t"] == VOTE2 + 70
    assert sorted(t.left()) == [(3, "lift"), (8, "lift")]


def test_V6_more_than_half_of_the_living_players_with_one_dead():
    # 9 living (6 was shot): 3–3–3 twice, then 5 yes of 9 lift all three.
    t = day_two(shot=6).nominations((2, 9), (4, 3), (5, 7)).to_phase("vote")
    t.votes(spread({9: [1, 2, 3], 3: [4, 5, 7], 7: [8, 9, 10]}))
    t.to_phase("revote")
    t.votes(spread({9: [1, 2, 3], 3: [4, 5, 7], 7: [8, 9, 10]}))
    assert t.phase == "lift" and t.state.candidates == (
        9,
        3,
        7,
    )
    assert t.refused(Lift(6, True)).rule == "V6"  # the dead do not vote
    for seat in (1, 2, 4, 5, 8):
        t.lift(seat, True)
    t.wait()
    assert len(t.last("votes")["ballots"]) == 9
    assert sorted(t.left()) == [(3, "lift"), (6, "shot"), (7, "lift"), (9, "lift")]
    assert not t.state.over


def test_V6_the_lift_is_only_on_the_players_of_the_second_tie():
    # 9 living: 3–3–3 among 9, 3, 7; the revote ties 9 and 3 only (4–4–1).
    t = day_two(shot=6).nominations((2, 9), (4, 3), (5, 7)).to_phase("vote")
    t.votes(spread({9: [1, 2, 3], 3: [4, 5, 7], 7: [8, 9, 10]}))
    t.to_phase("revote")
    t.votes(spread({9: [1, 2, 3, 4], 3: [5, 7, 8, 9], 7: [10]}))
    assert t.phase == "lift" and t.state.candidates == (
        9,
        3,
    )
    for seat in (1, 2, 4, 5, 8, 10):
        t.lift(seat, True)
    t.wait()
    assert sorted(t.left()) == [(3, "lift"), (6, "shot"), (9, "lift")]
    assert t.state.alive[7]


def test_V6_lift_ballots_are_final_and_only_during_the_lift_vote():
    t = day_two().nominations((2, 8), (4, 3)).to_phase("vote")
    assert t.refused(Lift(5, True)).rule == "V6"  # no lift vote during a vote
    t.votes(spread({8: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    t.to_phase("revote")
    t.votes(spread({8: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    t.lift(5, True)
    assert t.refused(Lift(5, False)).rule == "V2"  # the first vote is final
    assert t.refused(Vote(6, 8)).rule == "V2"  # no candidate vote in the lift
    assert t.state.ballots == {5: True}


# --- V7: day 1 ------------------------------------------------------------------------


def test_V7_day_one_single_nominee_stays_and_night_falls():
    t = Table().nominations((1, 7)).skip_day()
    assert t.left() == [] and t.of("votes") == []
    assert speeches(t, since=VOTE1) == []
    assert phases(t, since=VOTE1) == [("shot", VOTE1, 7)]
    assert t.state.alive[7]


def test_V7_day_one_single_leader_speaks_30_seconds_and_stays():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes(spread({7: [1, 2, 3, 4, 5, 6]}))
    t.wait()  # 6–4 at 670
    assert t.last("votes")["ballots"] == wire(
        {1: 7, 2: 7, 3: 7, 4: 7, 5: 7, 6: 7, 7: 3, 8: 3, 9: 3, 10: 3}
    )
    assert t.last("speech") == {
        "event": "speech",
        "t": 670,
        "seat": 7,
        "seconds": 30,
        "kind": "leader",
    }
    t.skip_day()
    assert t.left() == []
    assert phases(t, since=670) == [("shot", 700, 7)]
    assert t.state.alive[7]


def test_V7_day_one_ties_still_go_through_tie_speeches_and_the_revote():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes(spread({7: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    t.to_phase("revote")
    assert speeches(t, since=VOTE1) == [(7, 660, 30, "tie"), (3, 690, 30, "tie")]
    assert t.last("phase") == {
        "event": "phase",
        "t": 720,
        "phase": "revote",
        "day": 1,
        "seconds": 10,
    }


def test_V7_day_one_revote_single_leader_speaks_30_seconds_and_stays():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes(spread({7: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    t.to_phase("revote").wait()  # nobody votes: all to 3, at 730
    assert t.last("votes")["ballots"] == wire({seat: 3 for seat in range(1, 11)})
    assert t.last("speech") == {
        "event": "speech",
        "t": 730,
        "seat": 3,
        "seconds": 30,
        "kind": "leader",
    }
    t.skip_day()
    assert t.left() == [] and phases(t, since=730) == [("shot", 760, 7)]


def test_V7_day_one_second_tie_has_no_lift_vote_by_default():
    t = Table().nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes(spread({7: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    t.to_phase("revote")
    t.votes(spread({7: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    assert t.left() == []
    assert phases(t, since=720) == [("revote", 720, 10), ("shot", 720, 7)]
    assert t.refused(Lift(5, True)).rule == "V6"


def day_one_second_tie(settings):
    t = Table(settings=settings).nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes(spread({7: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    t.to_phase("revote")
    t.votes(spread({7: [1, 2, 3, 4, 5], 3: [6, 7, 8, 9, 10]}))
    return t


def test_V7_with_lift_at_zero_a_day_one_second_tie_goes_to_the_lift_and_the_tied_leave():
    t = day_one_second_tie({"lift_at_zero": True})
    assert t.last("phase") == {"event": "phase", "t": 720, "phase": "lift", "day": 1, "seconds": 10}
    for seat in (1, 2, 4, 5, 6, 8):
        t.lift(seat, True)
    t.wait()
    assert sorted(t.left()) == [(3, "lift"), (7, "lift")]
    assert speeches(t, since=720) == []
    assert phases(t, since=730) == [("shot", 730, 7)]


def test_V7_with_lift_at_zero_a_failed_day_one_lift_removes_nobody():
    t = day_one_second_tie({"lift_at_zero": True})
    t.lift(1, True)
    t.wait()
    assert t.left() == []
    assert phases(t, since=730) == [("shot", 730, 7)]


def test_V7_with_break_at_zero_a_day_one_single_nominee_leaves_with_a_farewell():
    t = Table(settings={"break_at_zero": True}).nominations((1, 7)).skip_day()
    assert t.of("votes") == []
    assert t.of("left") == [{"event": "left", "t": VOTE1, "seat": 7, "cause": "vote"}]
    assert speeches(t, since=VOTE1) == [(7, VOTE1, 60, "farewell")]
    assert phases(t, since=VOTE1) == [("shot", 720, 7)]


def test_V7_with_break_at_zero_the_day_one_single_leader_leaves_with_a_farewell():
    t = Table(settings={"break_at_zero": True}).nominations((1, 7), (2, 3)).to_phase("vote")
    t.votes(spread({7: [1, 2, 3, 4, 5, 6]}))
    t.wait()
    assert t.left() == [(7, "vote")]
    assert speeches(t, since=670) == [(7, 670, 60, "farewell")]


def test_V7_break_at_zero_alone_does_not_open_the_day_one_lift():
    t = day_one_second_tie({"break_at_zero": True})
    assert t.left() == []
    assert phases(t, since=720) == [("revote", 720, 10), ("shot", 720, 7)]


def test_V7_with_both_settings_on_day_one_plays_like_any_other_day():
    t = day_one_second_tie({"break_at_zero": True, "lift_at_zero": True})
    assert t.phase == "lift"


# --- §3 settings: voting, break_at_zero, lift_at_zero -----------------------------------


def test_settings_voting_break_at_zero_and_lift_at_zero_defaults():
    settings = Table().view(1)["settings"]
    assert (settings["voting"], settings["break_at_zero"], settings["lift_at_zero"]) == (
        "closed",
        False,
        False,
    )


@pytest.mark.parametrize(
    "raw",
    [
        {"voting": "secret"},
        {"voting": True},
        {"voting": "OPEN"},
        {"break_at_zero": "On"},
        {"break_at_zero": 1},
        {"lift_at_zero": "yes"},
        {"lift_at_zero": None},
    ],
)
def test_settings_voting_break_at_zero_and_lift_at_zero_reject_other_values(raw):
    with pytest.raises(BadSettings):
        Table(settings=raw)


def test_settings_are_fixed_for_the_game():
    t = Table(settings={"voting": "open", "break_at_zero": True, "lift_at_zero": True})
    t.to_day(2)
    assert t.view(None)["settings"] == {
        "auto_deal": False,
        "agreement": "silent",
        "voting": "open",
        "break_at_zero": True,
        "lift_at_zero": True,
    }
