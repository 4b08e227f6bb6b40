"""Best move (B1): with the `best_move` setting on, the first player shot at
night names up to three other living seats during their last word.

Seats of the standard deal (tests/table/game.py): Don 1, Mafia 2 and 3,
Sheriff 4, Civilians 5-10. With nobody nominated on day 1, dawn of day 2 is
at 674; the last word of the player shot in night 2 runs 674-734."""

import pytest

from omerta.table import CLASSIC, BadAction, parse_action
from omerta.table.actions import BestMove
from omerta.table.legal import legal_actions

from ..city.game import CityTable
from .game import Table

ON = {"best_move": True}


def first_shot(target=7, settings=ON):
    """A table at the start of the last word of `target`, shot in night 2."""
    return Table(settings=settings).shot(target).to_speech(target, "last_word")


def defeat(t, offender):
    """A technical defeat (T4) for `offender`, voted by every living human: the game ends."""
    humans = t.state.living_humans()
    t.tech_call(next(q for q in humans if q != offender), "defeat", offender)
    for seat in humans:
        t.tech_vote(seat, True)
    return t.wait()


def seat_10_voted_out_on_day_2():
    """Night 2 misses; seat 10, the single nominee of day 2, leaves (V1)."""
    t = Table(settings=ON).to_phase("shot").to_day(2)
    return t.nominations((2, 10)).skip_day()


def test_B1_first_shot_names_three_seats_during_the_last_word_and_everyone_sees_it():
    t = first_shot(7).do(BestMove(7, (1, 2, 5)))
    assert t.last("best_move") == {"event": "best_move", "t": 674, "seat": 7, "targets": [1, 2, 5]}
    assert [e.audience.kind for e in t.events if e.event == "best_move"] == ["everyone"]
    assert t.state.speaker == 7, "the last word goes on"


def test_B1_one_or_two_seats_are_a_best_move_too():
    assert first_shot(7).do(BestMove(7, (3,))).last("best_move")["targets"] == [3]
    assert first_shot(7).do(BestMove(7, (3, 9))).last("best_move")["targets"] == [3, 9]


def test_B1_is_off_by_default_and_the_first_shot_then_names_nothing():
    t = first_shot(7, settings={})
    assert "best_move" not in t.view(7)["actions"]
    assert "best_move" not in t.view(7)["settings"]
    e = t.refused(BestMove(7, (1, 2, 3)))
    assert (e.rule, e.code) == ("B1", "best_move_off")


def test_B1_the_naming_is_final():
    t = first_shot(7).do(BestMove(7, (1, 2, 3)))
    e = t.refused(BestMove(7, (4, 5, 6)))
    assert (e.rule, e.code) == ("B1", "best_move_final")
    assert "best_move" not in t.view(7)["actions"]


@pytest.mark.parametrize(
    "targets, code, params",
    [
        ((), "best_move_count", {"count": 0}),
        ((1, 2, 3, 4), "best_move_count", {"count": 4}),
        ((1, 7), "best_move_self", {}),
        ((1, 2, 1), "best_move_repeated", {"seat": 1}),
    ],
)
def test_B1_names_one_to_three_other_seats_each_once(targets, code, params):
    t = first_shot(7)
    e = t.refused(BestMove(7, targets))
    assert (e.rule, e.code, e.params) == ("B1", code, params)


def test_B1_names_only_living_seats():
    t = seat_10_voted_out_on_day_2()
    t.shot(7).to_speech(7, "last_word")
    assert not t.state.alive[10]
    e = t.refused(BestMove(7, (1, 10)))
    assert (e.rule, e.code, e.params) == ("B1", "not_alive", {"seat": 10})
    assert BestMove(7, (1, 2, 3)) in legal_actions(t.state, 7)
    assert all(10 not in a.targets for a in legal_actions(t.state, 7) if isinstance(a, BestMove))


def test_B1_a_seat_the_table_does_not_have_is_refused_by_C1():
    e = first_shot(7).refused(BestMove(7, (1, 11)))
    assert (e.rule, e.code) == ("C1", "no_such_seat")


def test_B1_only_during_the_last_word():
    t = first_shot(7).end_speech(7)
    e = t.refused(BestMove(7, (1, 2, 3)))
    assert (e.rule, e.code) == ("B1", "not_last_word")


def test_B1_nobody_else_names_a_best_move():
    t = first_shot(7)
    e = t.refused(BestMove(5, (1, 2, 3)))
    assert (e.rule, e.code) == ("B1", "not_first_shot")
    assert [s for s in t.state.seats if "best_move" in t.view(s)["actions"]] == [7]


def test_B1_a_later_shot_gives_no_best_move():
    t = first_shot(7).skip_day().shot(8).to_speech(8, "last_word")
    e = t.refused(BestMove(8, (1, 2, 3)))
    assert (e.rule, e.code) == ("B1", "not_first_shot")
    assert "best_move" not in t.view(8)["actions"]


def test_B1_after_a_night_without_a_kill_the_first_shot_of_a_later_night_names_it():
    t = Table(settings=ON).to_phase("shot").to_day(2).skip_day()  # night 2: a miss
    t.shot(8).to_speech(8, "last_word").do(BestMove(8, (1, 2, 3)))
    assert t.last("best_move")["seat"] == 8


def test_B1_a_player_voted_out_gives_a_farewell_but_no_best_move():
    t = seat_10_voted_out_on_day_2()
    farewell = [s for s in t.of("speech") if s["kind"] == "farewell"]
    assert [s["seat"] for s in farewell] == [10]
    t.shot(7).to_speech(7, "last_word").do(BestMove(7, (1, 2, 3)))  # the shot still names it


def test_B1_the_end_of_the_game_shows_the_naming_and_which_named_seats_were_black():
    t = first_shot(7).do(BestMove(7, (1, 5, 3)))
    defeat(t, 1)
    over = t.last("game_over")
    assert over["best_move"] == [{"seat": 7, "targets": [1, 5, 3], "black": [1, 3]}]


def test_B1_the_end_of_the_game_says_nothing_when_no_best_move_was_named():
    t = first_shot(7).end_speech(7)
    assert "best_move" not in defeat(t, 1).last("game_over")


def test_B1_the_setting_reads_on_and_off_and_shows_only_when_on():
    assert CLASSIC.parse_settings({"best_move": "on"}).best_move is True
    assert CLASSIC.parse_settings({"best_move": "off"}).best_move is False
    assert Table(settings={"best_move": "on"}).view(1)["settings"]["best_move"] is True


def test_B1_the_action_reads_a_list_of_seats_and_writes_it_back():
    action = parse_action({"do": "best_move", "seat": 7, "targets": [1, 2, 3]})
    assert action == BestMove(7, (1, 2, 3))
    assert action.to_dict() == {"seat": 7, "do": "best_move", "targets": [1, 2, 3]}
    for bad in (3, [1, "2"], [True], None):
        with pytest.raises(BadAction) as e:
            parse_action({"do": "best_move", "seat": 7, "targets": bad})
        assert e.value.code == "bad_seat_list"


def test_B1_city_the_maniacs_kill_is_a_night_shot_too():
    t = CityTable(settings=ON).night(kill=9).to_speech(9, "last_word")
    t.do(BestMove(9, (1, 2, 3)))
    assert t.last("best_move") == {
        "event": "best_move",
        "t": t.clock,
        "seat": 9,
        "targets": [1, 2, 3],
    }


def test_B1_city_both_players_who_leave_at_the_first_dawn_name_a_best_move():
    t = CityTable(settings=ON).night(shot=8, kill=9).to_speech(8, "last_word")
    t.do(BestMove(8, (1, 2, 3))).end_speech(8).to_speech(9, "last_word")
    t.do(BestMove(9, (1, 7)))
    assert [e["seat"] for e in t.of("best_move")] == [8, 9]


def test_B1_city_a_healed_player_did_not_leave_and_names_nothing():
    t = CityTable(settings=ON).night(shot=8, heal=8).to_day(2)
    assert t.state.alive[8] and t.state.best_move_seats == frozenset()
