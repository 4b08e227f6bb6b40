"""The end of a city game (M12): red, black or the Maniac, and the draw.

Standard city deal (tests/city/game.py): Don 1, Mafia 2 and 3, Commissar 4,
Doctor 5, Putana 6, Maniac 7, Civilians 8-10. Quick departures come from
technical removals (T3) on day 1."""

import pytest

from omerta.city_mode import CITY

from .game import DEAL, CityTable


def over(t):
    return t.state.winner, t.state.reason


def test_M12_maniac_wins_with_two_left():
    t = CityTable().wait().remove(1, 2, 3, 4, 5, 6, 8)
    assert not t.state.over  # the Maniac and two others
    t.night(kill=9)
    assert over(t) == ("maniac", "maniac_last_two")
    assert t.last("game_over")["t"] == t.clock and t.left()[-1] == (9, "killed")
    assert not [s for s in t.of("speech") if s["kind"] == "last_word"]  # E3


def test_M12_maniac_wins_alone_with_a_black_player():
    t = CityTable().wait().remove(2, 3, 4, 5, 6, 8, 9)
    assert not t.state.over
    t.remove(10)
    assert over(t) == ("maniac", "maniac_last_two")


def test_M12_black_wins_only_once_the_maniac_is_dead():
    t = CityTable().wait().remove(4, 5, 6, 8)
    assert not t.state.over  # black 3 >= others 2, but the Maniac lives
    t.remove(7)
    assert over(t) == ("black", "black_parity")


def test_M12_black_needs_parity_with_everyone_else_once_the_maniac_is_dead():
    t = CityTable().wait().remove(7, 4, 5)
    assert not t.state.over  # black 3 < others 4 (6, 8, 9, 10)
    t.remove(6)
    assert over(t) == ("black", "black_parity")


def test_M12_red_wins_when_no_black_and_no_maniac_is_alive():
    t = CityTable().wait().remove(1, 2, 3)
    assert not t.state.over  # the Maniac still lives
    t.night(kill=4)
    assert not t.state.over
    t.remove(7)
    assert over(t) == ("red", "no_black_or_maniac_left")


def test_M12_the_maniac_killing_the_last_black_player_leaves_red_to_deal_with_him():
    t = CityTable().wait().remove(2, 3)
    t.night(kill=1)
    assert t.left()[-1] == (1, "killed") and not t.state.over
    t.remove(7)
    assert over(t) == ("red", "no_black_or_maniac_left")


def test_M12_the_E2_draw_rule_applies():
    t = CityTable().wait()
    t.run_until(lambda t: t.state.over, limit=2000)
    assert over(t) == ("draw", "three_quiet_rounds")
    assert t.state.day == 4


def _winner(alive):
    """The winner of the standard deal with only `alive` living."""
    t = CityTable()
    state = t.state.clone()
    state.alive = [False] + [seat in alive for seat in range(1, 11)]
    return CITY.winner(state)


@pytest.mark.parametrize(
    "alive,winner",
    [
        ({7, 8}, ("maniac", "maniac_last_two")),
        ({7, 1}, ("maniac", "maniac_last_two")),
        ({7}, ("maniac", "maniac_last_two")),
        ({7, 1, 8}, None),
        ({7, 1, 2, 3}, None),  # black outnumber all, the Maniac lives
        ({1, 8}, ("black", "black_parity")),
        ({1, 2, 8, 9, 10}, None),
        ({4, 5, 6}, ("red", "no_black_or_maniac_left")),
        (set(), ("red", "no_black_or_maniac_left")),  # nobody left: red is tested first
    ],
)
def test_M12_who_wins_with_these_players_alive(alive, winner):
    assert _winner(alive) == winner


def test_M12_the_game_over_reveals_every_role():
    t = CityTable().wait().remove(1, 2, 3)
    t.remove(7)
    assert t.last("game_over")["roles"] == {str(s): r for s, r in DEAL.items()}
