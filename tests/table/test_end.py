"""The end of the game (E1–E4): who wins, the draw after three quiet
rounds, one win check per batch of departures, and the roles revealed.

Standard deal (tests/table/game.py): Don 1, Mafia 2 and 3, Sheriff 4,
Civilians 5-10. Quick departures come from technical removals (T3), which
pass with yes from more than half of the living humans."""

from .game import DEAL, Table

SEATS = range(1, 11)
ROLES = {str(seat): role for seat, role in DEAL.items()}


def pass_tech(t, kind, target, caller=None):
    """Call a technical vote now and let just enough living humans vote yes."""
    humans = t.state.living_humans()
    caller = caller or next(q for q in humans if q != target)
    t.tech_call(caller, kind, target)
    for seat in humans[: len(humans) // 2 + 1]:
        t.tech_vote(seat, True)
    return t.wait()


def day1_removing(*seats):
    """Day 1 with these seats removed during seat 1's speech (30 s each)."""
    t = Table().wait()
    for seat in seats:
        pass_tech(t, "removal", seat)
    return t


def speeches(t, since=0):
    return [(s["t"], s["seat"], s["kind"]) for s in t.of("speech") if s["t"] >= since]


def nights(t):
    return sorted({e["night"] for e in t.of("phase") if "night" in e})


def play_out(t):
    return t.run_until(lambda t: t.state.over, limit=2000)


# --- E1: who wins ---------------------------------------------------------


def test_E1_red_wins_when_no_black_player_is_alive():
    t = day1_removing(2, 3)  # speech 1 runs 60-180, day 1 ends at 600
    assert not t.state.over
    t.to_day(2)
    assert t.clock == 614
    t.nominations((4, 1))
    t.skip_day()
    assert t.left() == [(2, "removed"), (3, "removed"), (1, "vote")]
    assert t.last("game_over")["winner"] == "red"
    assert t.last("game_over")["t"] == 1094  # 614 + 8 day speeches
    assert t.state.over and t.state.winner == "red"


def test_E1_red_wins_when_the_last_black_player_is_shot():
    t = day1_removing(2, 3)
    t.shot(1).to_phase("checks").wait()
    assert t.left()[-1] == (1, "shot")
    assert t.last("game_over")["winner"] == "red"
    assert t.last("game_over")["t"] == 614


def test_E1_black_wins_when_living_black_players_equal_living_red():
    t = day1_removing(8, 9, 10)  # 3 black, 4 red; speech 1 runs 60-210, day 1 ends 570
    assert not t.state.over
    t.shot(7)
    assert t.clock == 570
    t.to_phase("checks").wait()
    assert t.left()[-1] == (7, "shot")
    assert t.last("game_over") == {
        "event": "game_over",
        "t": 584,
        "winner": "black",
        "reason": t.state.reason,
        "roles": ROLES,
    }
    assert t.state.winner == "black"


def test_E1_black_wins_when_living_black_players_outnumber_living_red():
    t = day1_removing(9, 10)  # 3 black, 5 red; day 1 ends at 600
    t.to_day(2)
    assert t.clock == 614
    t.nominations((2, 4), (3, 5), (4, 6), (5, 7))
    t.to_phase("vote").votes({1: 4, 2: 4, 3: 5, 4: 5, 5: 6, 6: 6, 7: 7, 8: 7})
    t.to_phase("revote").votes({1: 4, 2: 4, 3: 5, 4: 5, 5: 6, 6: 6, 7: 7, 8: 7})
    t.to_phase("lift")
    for seat in (1, 2, 3, 5, 8):
        t.lift(seat, True)
    t.wait()
    assert t.left()[-4:] == [(4, "lift"), (5, "lift"), (6, "lift"), (7, "lift")]
    assert t.last("game_over")["winner"] == "black"  # 3 black against 1 red


def test_E1_game_goes_on_while_black_players_are_fewer_than_red():
    t = day1_removing(8, 9, 10)  # 3 black against 4 red
    assert not t.state.over and t.of("game_over") == []
    t.to_phase("shot")
    assert t.state.night == 2 and not t.state.over


def test_E1_game_goes_on_after_some_black_players_leave():
    t = day1_removing(1, 2)  # 1 black against 7 red
    assert not t.state.over
    t.to_phase("shot")
    assert t.state.night == 2


# --- E2: three quiet rounds ------------------------------------------------


def test_E2_three_quiet_rounds_end_in_a_draw_before_the_next_night():
    t = play_out(Table())
    over = t.last("game_over")
    assert over["winner"] == "draw"
    assert over["t"] == 2502  # day 4 ends: 60 + 600 + 3 * (14 + 600)
    assert t.state.day == 4
    assert nights(t) == [1, 2, 3, 4]  # no fifth night
    assert t.of("phase")[-1] == {
        "event": "phase",
        "t": 1902,
        "phase": "day",
        "day": 4,
        "seconds": None,
    }
    assert t.of("speech_end")[-1]["t"] == 2502


def test_E2_day_1_does_not_count():
    t = Table().to_day(3).skip_day()  # meeting + day 1, then days 2 and 3
    assert not t.state.over
    assert t.clock == 1888
    t.to_phase("shot")
    assert t.state.night == 4 and t.clock == 1888
    assert t.of("game_over") == []


def _ends_in_a_draw_after_day(t, day):
    play_out(t)
    assert t.last("game_over")["winner"] == "draw"
    assert t.state.day == day
    assert nights(t)[-1] == day
    assert t.last("game_over")["t"] == t.of("speech_end")[-1]["t"]


def test_E2_a_shot_resets_the_count():
    t = Table().to_day(2).skip_day()  # day 2 was quiet
    t.shot(7)  # night 3
    assert t.state.night == 3
    _ends_in_a_draw_after_day(t, 6)  # days 4, 5, 6 quiet


def test_E2_a_kill_on_night_2_makes_the_first_counted_round_not_quiet():
    t = Table().shot(7)
    assert t.state.night == 2
    _ends_in_a_draw_after_day(t, 5)


def test_E2_a_vote_resets_the_count():
    t = Table().to_day(3).nominations((3, 10))
    t.skip_day()
    assert t.left() == [(10, "vote")]
    _ends_in_a_draw_after_day(t, 6)


def test_E2_a_lift_resets_the_count():
    t = Table().to_day(3).nominations((3, 9), (4, 10))
    ballots = {s: 9 if s <= 5 else 10 for s in SEATS}
    t.to_phase("vote").votes(ballots)
    t.to_phase("revote").votes(ballots)
    t.to_phase("lift")
    for seat in range(1, 7):
        t.lift(seat, True)
    t.skip_day()
    assert t.left() == [(9, "lift"), (10, "lift")]
    _ends_in_a_draw_after_day(t, 6)


def test_E2_a_failed_lift_leaves_the_round_quiet():
    t = Table().to_day(3).nominations((3, 9), (4, 10))
    ballots = {s: 9 if s <= 5 else 10 for s in SEATS}
    t.to_phase("vote").votes(ballots)
    t.to_phase("revote").votes(ballots)
    t.to_phase("lift")
    for seat in range(1, 6):
        t.lift(seat, True)  # 5 of 10: not more than half
    t.skip_day()
    assert t.left() == []
    _ends_in_a_draw_after_day(t, 4)


def test_E2_a_removal_resets_the_count():
    t = Table().to_day(3)
    pass_tech(t, "removal", 10)
    assert t.left() == [(10, "removed")]
    _ends_in_a_draw_after_day(t, 6)


def test_E2_a_foul_that_removes_nobody_leaves_the_round_quiet():
    t = Table().to_day(3)
    pass_tech(t, "foul", 10)
    assert t.last("foul")["count"] == 1 and t.left() == []
    _ends_in_a_draw_after_day(t, 4)


def test_E2_a_departure_on_day_1_does_not_change_the_count():
    t = day1_removing(10)
    _ends_in_a_draw_after_day(t, 4)


# --- E3: one win check per batch of departures, before any speech ----------


def _six_left():
    """Day 2 of a table with Don 1, Mafia 2 (black) and 4, 5, 6, 7 (red)."""
    t = day1_removing(3, 8, 9, 10)  # speech 1 runs 60-240, day 1 ends 540
    assert not t.state.over
    t.to_day(2)
    assert t.clock == 554
    return t


def _lift(t, nominations, ballots):
    t.nominations(*nominations)
    t.to_phase("vote").votes(ballots)
    t.to_phase("revote").votes(ballots)
    t.to_phase("lift")
    for seat in (1, 2, 4, 5):
        t.lift(seat, True)  # 4 of 6
    return t.wait()


def test_E3_lifted_players_all_leave_first_then_one_check_runs():
    # Reds 5 and 6 and the Don leave together: 1 black against 2 red, the game
    # goes on, though 2 black against 2 red would have held after the reds.
    t = _six_left()
    _lift(t, [(2, 5), (4, 6), (5, 1)], {1: 5, 2: 5, 4: 6, 5: 6, 6: 1, 7: 1})
    assert t.left()[-3:] == [(5, "lift"), (6, "lift"), (1, "lift")]
    assert not t.state.over and t.of("game_over") == []
    t.to_phase("shot")
    assert t.state.night == 3


def test_E3_a_lift_of_several_players_all_leave_before_the_game_ends():
    # After 5 and 6 black would already hold parity; 7 still leaves with them.
    t = _six_left()
    _lift(t, [(2, 5), (4, 6), (5, 7)], {1: 5, 2: 5, 4: 6, 5: 6, 6: 7, 7: 7})
    names = [e.event for e in t.events[-5:]]
    assert names == ["votes", "left", "left", "left", "game_over"]
    assert t.left()[-3:] == [(5, "lift"), (6, "lift"), (7, "lift")]
    assert len(t.of("game_over")) == 1
    assert t.last("game_over")["winner"] == "black"


def test_E3_lift_of_the_last_black_players_ends_the_game_once():
    t = _six_left()
    t.nominations((2, 1), (4, 2))
    ballots = {1: 1, 2: 1, 4: 1, 5: 2, 6: 2, 7: 2}
    t.to_phase("vote").votes(ballots)
    t.to_phase("revote").votes(ballots)
    t.to_phase("lift")
    for seat in (4, 5, 6, 7):
        t.lift(seat, True)
    t.wait()
    assert [e.event for e in t.events[-4:]] == ["votes", "left", "left", "game_over"]
    assert t.left()[-2:] == [(1, "lift"), (2, "lift")]
    assert t.last("game_over")["winner"] == "red"


def test_E3_game_ends_before_the_farewell_speech():
    t = day1_removing(8, 9, 10)  # 3 black against 4 red
    t.to_day(2)
    assert t.clock == 584
    t.nominations((3, 7))
    t.skip_day()
    assert t.left()[-1] == (7, "vote")
    assert t.last("game_over")["t"] == 1004  # 584 + 7 day speeches
    assert t.last("game_over")["winner"] == "black"
    assert [s for s in t.of("speech") if s["kind"] == "farewell"] == []
    assert t.state.speaker is None and t.state.next_deadline is None


def test_E3_game_ends_before_the_last_word():
    t = day1_removing(8, 9, 10)
    t.shot(7).to_phase("checks").wait()
    assert t.left()[-1] == (7, "shot")
    assert t.last("game_over")["t"] == 584
    assert [s for s in t.of("speech") if s["kind"] == "last_word"] == []
    assert t.events[-1].event == "game_over"
    assert t.state.speaker is None and t.state.next_deadline is None


def test_E3_game_ends_at_once_after_a_removal():
    t = day1_removing(8, 9, 10)
    assert t.clock == 150 and not t.state.over
    pass_tech(t, "removal", 7)
    assert t.last("game_over")["t"] == 180
    assert t.last("game_over")["winner"] == "black"
    assert t.events[-1].event == "game_over"
    assert t.state.next_deadline is None
    assert speeches(t) == [(60, 1, "day")]


def test_E3_the_day_of_a_vote_with_no_win_goes_on_to_the_farewell():
    t = day1_removing(9, 10)  # 3 black against 5 red
    t.to_day(2).nominations((2, 8))
    t.to_speech(8, "farewell")
    assert t.left()[-1] == (8, "vote")
    assert not t.state.over


# --- E4: roles revealed ------------------------------------------------------


def test_E4_all_roles_are_revealed_when_black_wins():
    t = day1_removing(8, 9, 10)
    t.shot(7).to_phase("checks").wait()
    over = raw_game_over(t)
    assert over.to_dict()["roles"] == ROLES
    for seat in SEATS:
        assert over.audience.includes(seat)
    assert over.audience.includes(None)


def test_E4_all_roles_are_revealed_in_a_draw():
    t = play_out(Table())
    assert t.last("game_over")["roles"] == ROLES


def test_E4_every_seat_and_spectator_sees_every_role_at_the_end():
    t = day1_removing(2, 3)
    t.shot(1).to_phase("checks").wait()
    assert t.state.over
    for seat in [None, *SEATS]:
        shown = {str(row["seat"]): row["role"] for row in t.view(seat)["seats"]}
        assert shown == ROLES


def test_E4_roles_stay_hidden_until_the_end():
    t = day1_removing(8, 9)
    for seat in (4, 5, 7, None):
        shown = {row["seat"]: row["role"] for row in t.view(seat)["seats"] if row["role"]}
        assert shown == ({seat: DEAL[seat]} if seat else {})


def raw_game_over(t):
    found = [e for e in t.events if e.event == "game_over"]
    assert len(found) == 1
    return found[0]
