"""T4 at a city table: a technical defeat hands the win to the other side;
a Maniac offender to red, a red offender (Commissar, Doctor, Putana,
Civilian) to black, a black one to red.

Standard city deal (tests/city/game.py): Don 1, Mafia 2 and 3, Commissar 4,
Doctor 5, Putana 6, Maniac 7, Civilians 8-10."""

import pytest

from .game import DEAL, CityTable

ROLES = {str(seat): role for seat, role in DEAL.items()}


def defeat(t: CityTable, offender: int) -> CityTable:
    """Call a defeat against `offender` now; just enough living humans say yes."""
    humans = t.state.living_humans()
    t.tech_call(next(q for q in humans if q != offender), "defeat", offender)
    for seat in humans[: len(humans) // 2 + 1]:
        t.tech_vote(seat, True)
    t.wait()
    return t


def test_T4_a_maniac_offender_hands_the_win_to_red():
    t = defeat(CityTable().wait(), 7)
    over = t.last("game_over")
    assert (over["winner"], over["reason"]) == ("red", "technical_defeat")
    assert over["roles"] == ROLES


@pytest.mark.parametrize(
    "offender", [4, 5, 6, 8], ids=["commissar", "doctor", "putana", "civilian"]
)
def test_T4_a_red_offender_hands_the_win_to_black(offender):
    t = defeat(CityTable().wait(), offender)
    assert (t.state.winner, t.state.reason) == ("black", "technical_defeat")


@pytest.mark.parametrize("offender", [1, 2], ids=["don", "mafia"])
def test_T4_a_black_offender_hands_the_win_to_red(offender):
    t = defeat(CityTable().wait(), offender)
    assert (t.state.winner, t.state.reason) == ("red", "technical_defeat")


def test_T4_a_maniac_defeat_on_a_later_day_ends_the_game_at_once_during_the_vote():
    t = CityTable().to_day(2)  # day 2 opens with seat 2 (D3)
    t.nominations((2, 8), (3, 9)).to_phase("vote")
    at = t.clock
    defeat(t, 7)
    assert t.state.over and t.state.winner == "red"
    assert t.last("game_over")["t"] == at + 30
    assert not t.of("votes") and t.left() == []
