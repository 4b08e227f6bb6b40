"""A seat's view, derived from state (C2, V3, E4); the media gate has its own
tests in test_gate.py."""

import pytest

from omerta.city_mode import CITY
from omerta.table import CLASSIC
from omerta.table.legal import legal_actions, legal_names
from omerta.table.random_play import random_game
from omerta.table.views import view

from .game import Table


def test_a_spectator_view_holds_no_role_until_the_end():
    t = Table()
    assert all(seat["role"] is None for seat in t.view(None)["seats"])
    t.run_until(lambda t: t.state.over)
    assert [seat["role"] for seat in t.view(None)["seats"]][:4] == [
        "don",
        "mafia",
        "mafia",
        "sheriff",
    ]


def test_E4_every_seat_sees_every_role_at_the_end_and_the_table_opens_up():
    t = Table().run_until(lambda t: t.state.over)
    assert all(seat["role"] for seat in t.view(7)["seats"])
    assert t.gate().allows(3, 8, "audio") and t.gate().allows(8, None, "video")


def test_C2_a_black_seat_knows_its_team_and_not_the_sheriff():
    roles = [seat["role"] for seat in Table().view(2)["seats"]]
    assert roles == ["don", "mafia", "mafia"] + [None] * 7


def test_V3_a_closed_ballot_is_in_the_voters_view_only_until_the_count():
    t = Table().nominations((1, 5), (2, 6)).to_phase("vote")
    t.vote(7, 5)
    assert t.view(7)["vote"]["ballots"] == {"7": 5}
    assert t.view(8)["vote"]["ballots"] == {}
    assert t.view(None)["vote"]["ballots"] == {}


def test_a_view_lists_only_the_actions_that_seat_may_take_now():
    t = Table().wait()  # seat 1 speaks on day 1
    assert t.view(1)["actions"] == ["end_speech", "nominate", "tech_call"]
    assert t.view(5)["actions"] == ["interject", "tech_call"]
    assert t.view(None)["actions"] == []


def test_a_view_never_carries_the_time_of_a_private_step():
    t = Table().to_phase("checks")
    before = view(t.state, 7)
    t.check(4, 2)  # the Sheriff's private check
    assert view(t.state, 7) == before
    assert view(t.state, 4)["checks"] == {"2": "black"}


@pytest.mark.parametrize(
    "ruleset, settings",
    [(CLASSIC, {}), (CLASSIC, {"best_move": True, "voting": "closed"}), (CITY, {})],
    ids=["classic", "best-move-closed-voting", "city"],
)
def test_a_views_action_names_match_the_full_list_of_legal_actions_at_every_step(ruleset, settings):
    def step(action, state, events):
        for seat in state.seats:
            assert legal_names(state, seat) == sorted({a.name for a in legal_actions(state, seat)})

    for seed in range(8):
        random_game(seed, settings, ruleset=ruleset, every_seat=ruleset is CITY, on_step=step)
