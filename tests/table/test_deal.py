"""The table, the teams and the card draw (C1–C3, K1–K4), and awards (A1)."""

from collections import Counter

import pytest

from omerta.table import CLASSIC, BadAction, BadSettings, new_game
from omerta.table.actions import Pick
from omerta.table.ending import awards

from .game import Table


def test_C1_ten_seats_and_the_deck_of_don_two_mafia_sheriff_six_civilians():
    t = Table(deal=None, settings={"auto_deal": True})
    assert t.state.n == 10
    assert Counter(t.last("seated")["roles"].values()) == {
        "don": 1,
        "mafia": 2,
        "sheriff": 1,
        "civilian": 6,
    }


def test_C1_roles_are_random_by_seed_and_the_same_seed_deals_the_same():
    deals = {
        seed: tuple(Table(deal=None, settings={"auto_deal": True}, seed=seed).state.roles)
        for seed in range(20)
    }
    assert len(set(deals.values())) > 10
    again = Table(deal=None, settings={"auto_deal": True}, seed=3).state.roles
    assert tuple(again) == deals[3]


def test_C2_black_team_learns_each_other_at_the_first_night_and_red_knows_only_itself():
    t = Table(deal=None)
    for seat in range(1, 10):
        t.pick(seat, seat - 1)
    assert not t.of("team")  # K3: nobody knows a teammate during the draw
    t.pick(10, 9)
    assert t.phase == "meeting"
    team = t.last("team")
    black = sorted(s for s in t.state.seats if t.state.roles[s] in ("don", "mafia"))
    assert sorted(int(s) for s in team["roles"]) == black
    event = next(e for e in t.events if e.event == "team")
    assert all(event.audience.includes(s) == (s in black) for s in t.state.seats)
    red = next(s for s in t.state.seats if s not in black)
    assert [s for s, r in enumerate(t.view(red)["seats"], 1) if r["role"]] == [red]


def test_C3_the_game_starts_by_itself_with_the_draw_at_time_zero():
    t = Table(deal=None)
    assert t.of("phase")[0] == {"event": "phase", "t": 0, "phase": "draw", "day": 0, "seconds": 15}
    assert t.state.next_deadline == 15


def test_K1_a_player_picks_a_face_down_card_and_sees_only_their_role():
    t = Table(deal=None)
    t.pick(3, 5)
    role = next(e for e in t.events if e.event == "role")
    assert role.seat == 3 and role.audience.includes(3) and not role.audience.includes(4)
    assert t.view(3)["seats"][2]["role"] == role.role
    assert all(seat["role"] is None for seat in t.view(4)["seats"])
    assert t.refused(Pick(4, 5)).rule == "K1"  # the card is taken
    assert t.refused(Pick(3, 6)).rule == "K1"  # already holds a card
    assert t.refused(Pick(4, 10)).rule == "K1"  # no such card


def test_K1_whoever_has_not_picked_in_15_seconds_gets_a_random_remaining_card():
    t = Table(deal=None, seed=11)
    t.pick(1, 0).pick(2, 1)
    t.wait()
    assert t.last("seated")["t"] == 15
    roles = t.last("seated")["roles"]
    assert Counter(roles.values()) == Counter(CLASSIC.deck(t.state.settings))
    assert t.phase == "meeting" and t.of("phase")[-1]["t"] == 15
    again = Table(deal=None, seed=11).pick(1, 0).pick(2, 1).wait()
    assert again.last("seated") == t.last("seated")


def test_K2_auto_deal_deals_at_once_with_no_picking():
    t = Table(deal=None, settings={"auto_deal": True})
    assert t.phase == "meeting" and t.last("seated")["t"] == 0
    assert t.refused(Pick(1, 0)).rule == "K1"


def test_K3_during_the_draw_every_camera_and_mic_is_off():
    t = Table(deal=None)
    t.pick(1, 0)
    gate = t.gate()
    assert not gate.audio and not gate.video


def test_K4_the_draw_ends_as_soon_as_all_ten_have_picked():
    t = Table(deal=None)
    t.wait(4)
    for seat in range(1, 11):
        t.pick(seat, 10 - seat)
    assert t.last("seated")["t"] == 4
    assert t.of("phase")[-1] == {
        "event": "phase",
        "t": 4,
        "phase": "meeting",
        "night": 1,
        "seconds": 60,
    }


def test_settings_reject_unknown_names_and_values_with_a_clear_message():
    with pytest.raises(BadSettings, match="voting"):
        new_game(CLASSIC, {"voting": "secret"})
    with pytest.raises(BadSettings, match="unknown setting 'speed'"):
        new_game(CLASSIC, {"speed": 2})
    with pytest.raises(BadSettings, match="auto_deal"):
        new_game(CLASSIC, {"auto_deal": 1})


def test_a_deal_with_roles_the_deck_lacks_is_refused():
    with pytest.raises(BadAction, match="sheriff"):
        new_game(CLASSIC, {}, 1, {1: "sheriff", 2: "sheriff"})
    with pytest.raises(BadAction, match="seat 11"):
        new_game(CLASSIC, {}, 1, {11: "don"})


def test_A1_a_table_of_ten_humans_is_ranked_and_a_table_with_a_bot_is_practice():
    settings = CLASSIC.parse_settings({})
    assert CLASSIC.ranked(settings, frozenset())
    assert not CLASSIC.ranked(settings, frozenset({7}))


def test_A1_bots_standing_in_for_absentees_leave_a_table_ranked_other_bots_do_not():
    settings = CLASSIC.parse_settings({})
    assert CLASSIC.ranked(settings, frozenset({7}), frozenset({7}))
    assert not CLASSIC.ranked(settings, frozenset({7, 8}), frozenset({7}))


def _played_out(**table) -> Table:
    t = Table(**table)
    while not t.state.over:  # nobody acts: quiet rounds end it in a draw (E2)
        t.wait()
    return t


def test_A1_a_game_with_stand_ins_awards_the_people_when_they_played_on_both_teams():
    assert awards(_played_out(bots=(3, 9), stand_ins=(3, 9)).state)
    assert awards(_played_out().state)  # ten people


def test_A1_a_game_whose_people_all_played_one_team_awards_nothing():
    # Don, Mafia, Mafia (seats 1-3) are bots standing in: only red people are left.
    assert not awards(_played_out(bots=(1, 2, 3), stand_ins=(1, 2, 3)).state)
    red = tuple(range(4, 11))
    assert not awards(_played_out(bots=red, stand_ins=red).state)


def test_A1_a_practice_game_awards_nothing_even_played_to_the_end():
    assert not awards(_played_out(bots=(3, 9), stand_ins=(3,)).state)


def test_A1_a_stand_in_must_be_a_bot_seat():
    with pytest.raises(BadAction, match="seat 6 stands in"):
        new_game(CLASSIC, {}, 1, None, bots=(5,), stand_ins=(6,))
