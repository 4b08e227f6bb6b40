"""The city night (M4–M11, M13): the turns, each role's action, dawn.

Standard city deal (tests/city/game.py): Don 1, Mafia 2 and 3, Commissar 4,
Doctor 5, Putana 6, Maniac 7, Civilians 8-10. With nobody nominated on
day 1, night 2 runs 660-720 in six 10 s turns and day 2 opens at 720."""

import pytest

from omerta.city_mode import Heal, Kill, Visit
from omerta.table.actions import Check, Shoot
from omerta.table.legal import legal_actions

from .game import BLACK, TURNS, CityTable

NIGHT2, DAWN2 = 660, 720
SEATS = range(1, 11)


def raw(t, name):
    return [e for e in t.events if e.event == name]


def night_phases(t, night):
    return [(e["t"], e["phase"], e["seconds"]) for e in t.of("phase") if e.get("night") == night]


def checks(t):
    return [(c["by"], c["target"], c["result"]) for c in t.of("check")]


# --- M4: the turns ---------------------------------------------------------


def test_M4_six_turns_of_10_seconds_in_order_putana_mafia_maniac_doctor_commissar_don():
    t = CityTable().wait().night()
    assert night_phases(t, 2) == [(660 + 10 * i, turn, 10) for i, turn in enumerate(TURNS)]
    assert t.of("phase")[-1] == {
        "event": "phase",
        "t": DAWN2,
        "phase": "day",
        "day": 2,
        "seconds": None,
    }


def test_M4_the_table_sets_one_timer_for_every_turn():
    t = CityTable(settings={"night_turn_seconds": 30}).wait().night()
    assert night_phases(t, 2) == [(660 + 30 * i, turn, 30) for i, turn in enumerate(TURNS)]


def test_M4_the_table_sets_a_timer_per_turn():
    timers = {"putana": 5, "mafia": 30, "doctor": 12}
    t = CityTable(settings={"night_turn_seconds": timers}).wait().night()
    seconds = [timers.get(turn, 10) for turn in TURNS]
    starts = [660 + sum(seconds[:i]) for i in range(6)]
    assert night_phases(t, 2) == list(zip(starts, TURNS, seconds))
    assert t.clock == 660 + sum(seconds)


@pytest.mark.parametrize("dead", [(6,), (1,), (7,), (5,), (4,), (1, 4, 5, 6, 7)])
def test_M4_a_dead_roles_turn_still_runs_its_full_timer(dead):
    t = CityTable().wait().remove(*dead)
    t.to_turn("putana")
    start = t.clock
    t.night()
    assert [p[1:] for p in night_phases(t, 2)] == [(turn, 10) for turn in TURNS]
    assert t.clock == start + 60


def test_M4_night_turns_run_full_length_whatever_is_chosen():
    t = CityTable().wait().night(visit=8, shot=9, kill=10, heal=9, check=1, don=4)
    assert [p[0] for p in night_phases(t, 2)] == [660, 670, 680, 690, 700, 710]
    assert t.of("phase")[-1]["t"] == DAWN2


@pytest.mark.parametrize(
    "turn,action",
    [
        ("putana", Heal(5, 8)),
        ("putana", Shoot(1, 8)),
        ("mafia", Visit(6, 8)),
        ("mafia", Kill(7, 8)),
        ("maniac", Shoot(2, 8)),
        ("doctor", Kill(7, 8)),
        ("commissar", Heal(5, 8)),
        ("don", Shoot(1, 8)),
    ],
)
def test_M4_each_action_only_in_its_own_turn(turn, action):
    t = CityTable().to_turn(turn)
    assert t.refused(action).rule == "M4"


@pytest.mark.parametrize(
    "turn,actors",
    [
        ("putana", {6}),
        ("mafia", {1, 2, 3}),
        ("maniac", {7}),
        ("doctor", {5}),
        ("commissar", {4}),
        ("don", {1}),
    ],
)
def test_M4_only_the_turns_role_may_act_in_it(turn, actors):
    t = CityTable().to_turn(turn)
    assert {s for s in SEATS if legal_actions(t.state, s)} == actors


# --- M5: the Putana ----------------------------------------------------------


def test_M5_putana_visits_one_living_player_other_than_herself_and_only_she_sees_it():
    t = CityTable().to_turn("putana")
    assert t.refused(Visit(6, 6)).rule == "M5"
    assert t.refused(Visit(8, 9)).rule == "M5"
    assert sorted(a.target for a in legal_actions(t.state, 6)) == [1, 2, 3, 4, 5, 7, 8, 9, 10]
    t.visit(6, 9)
    assert t.refused(Visit(6, 8)).rule == "M5"  # final
    ack = raw(t, "night_action")[-1]
    assert (ack.action, ack.by, ack.target) == ("visit", 6, 9)
    assert [s for s in SEATS if ack.audience.includes(s)] == [6]


def test_M5_putana_blocks_the_doctors_heal():
    t = CityTable().wait().night(visit=5, shot=9, heal=9)
    assert t.left() == [(9, "shot")]


def test_M5_putana_blocks_the_maniacs_kill():
    t = CityTable().wait().night(visit=7, kill=9)
    assert t.left() == []


def test_M5_the_visited_player_cannot_be_shot():
    t = CityTable().wait().night(visit=9, shot=9)
    assert t.left() == []


def test_M5_the_visited_player_cannot_be_killed():
    t = CityTable().wait().night(visit=9, kill=9)
    assert t.left() == []


@pytest.mark.parametrize("visited", [1, 2])
def test_M5_a_visited_black_players_shot_is_ignored_and_the_others_still_agree(visited):
    t = CityTable().wait().to_turn("putana").visit(6, visited).to_turn("mafia")
    for seat in BLACK:
        t.shoot(seat, 10 if seat == visited else 9)
    t.night()
    assert t.left() == [(9, "shot")]


def test_M5_the_others_disagreeing_is_still_a_miss():
    t = CityTable().wait().to_turn("putana").visit(6, 1).to_turn("mafia")
    t.shoot(1, 9).shoot(2, 9).shoot(3, 10)
    t.night()
    assert t.left() == []


def test_M5_a_visited_black_player_who_does_not_shoot_does_not_spoil_the_shot():
    t = CityTable().wait().to_turn("putana").visit(6, 3).to_turn("mafia")
    t.shoot(1, 9).shoot(2, 9)
    t.night()
    assert t.left() == [(9, "shot")]


def test_M5_a_lone_black_player_visited_has_no_shot():
    t = CityTable().wait().remove(2, 3).night(visit=1, shot=9)
    assert t.left() == [(2, "removed"), (3, "removed")]


def test_M5_a_blocked_commissar_check_reveals_nothing_and_does_not_count():
    t = CityTable().wait().night(visit=4, check=1)
    assert t.of("check") == []
    assert t.view(4)["checks"] == {}
    assert t.state.checked.get(4, frozenset()) == frozenset()
    t.night(check=1)  # night 3: he may check 1 again
    assert checks(t) == [(4, 1, "black")]


def test_M5_a_blocked_don_check_reveals_nothing_and_does_not_count():
    t = CityTable().wait().night(visit=1, don=4)
    assert t.of("check") == [] and t.view(1)["checks"] == {}
    t.night(don=4)
    assert checks(t) == [(1, 4, "commissar")]


def test_M5_the_blocked_player_acknowledges_his_choice_but_learns_no_result():
    t = CityTable().wait().night(visit=4, check=7)
    ack = [e for e in raw(t, "night_action") if e.by == 4]
    assert len(ack) == 1 and ack[0].target == 7
    assert [s for s in SEATS if ack[0].audience.includes(s)] == [4]


def test_M5_putana_never_visits_the_same_player_two_nights_in_a_row():
    t = CityTable().wait().night(visit=9)
    t.to_turn("putana")
    assert t.refused(Visit(6, 9)).rule == "M5"
    assert 9 not in [a.target for a in legal_actions(t.state, 6)]
    t.visit(6, 8).night()
    t.night(visit=9)  # night 4: allowed again
    assert [(e["by"], e["target"]) for e in t.of("night_action")] == [(6, 9), (6, 8), (6, 9)]


def test_M5_after_a_night_without_a_visit_she_may_visit_the_same_player():
    t = CityTable().wait().night(visit=9).night().night(visit=9)
    assert [e["target"] for e in t.of("night_action")] == [9, 9]


def test_M5_M8_never_the_same_player_two_nights_in_a_row_counting_blocked_choices():
    t = CityTable().wait().night(visit=5, heal=9)  # the heal is blocked
    t.to_turn("doctor")
    assert t.refused(Heal(5, 9)).rule == "M8"
    assert 9 not in [a.target for a in legal_actions(t.state, 5)]
    t.heal(5, 8)


def test_M5_M8_a_blocked_self_heal_still_uses_the_once_per_game_self_heal():
    t = CityTable().wait().night(visit=5, heal=5).night().to_turn("doctor")
    assert t.refused(Heal(5, 5)).rule == "M8"


# --- M6: the shot --------------------------------------------------------


def test_M6_the_shot_hits_when_the_don_and_every_living_mafia_agree():
    t = CityTable().wait().night(shot=8)
    assert t.left() == [(8, "shot")]
    assert t.last("morning") == {"event": "morning", "t": DAWN2, "dead": [8]}


@pytest.mark.parametrize("odd", BLACK)
def test_M6_any_different_choice_is_a_miss(odd):
    t = CityTable().wait().to_turn("mafia")
    for seat in BLACK:
        t.shoot(seat, 10 if seat == odd else 9)
    t.night()
    assert t.left() == []


def test_M6_one_black_player_not_choosing_is_a_miss():
    t = CityTable().wait().to_turn("mafia").shoot(1, 9).shoot(2, 9)
    t.night()
    assert t.left() == []


def test_M6_with_the_don_dead_the_living_mafia_agreeing_hit_and_a_black_player_may_be_shot():
    t = CityTable().wait().remove(1).night(shot=3)
    assert t.left() == [(1, "removed"), (3, "shot")]


def test_M6_shots_are_final_and_only_living_black_players_shoot():
    t = CityTable().wait().remove(3).to_turn("mafia")
    t.shoot(1, 9)
    assert t.refused(Shoot(1, 8)).rule == "M6"
    for seat in (3, 4, 7, 8):
        assert t.refused(Shoot(seat, 9)).rule == "M6"
    assert t.refused(Shoot(2, 3)).rule == "M6"  # not alive


def test_M6_the_black_team_sees_each_shot_choice_nobody_else_does():
    t = CityTable().wait().to_turn("mafia").shoot(2, 9)
    choice = raw(t, "night_action")[-1]
    assert [s for s in SEATS if choice.audience.includes(s)] == [1, 2, 3]


# --- M7: the Maniac --------------------------------------------------------


def test_M7_the_maniac_kills_one_living_player():
    t = CityTable().wait().night(kill=2)
    assert t.left() == [(2, "killed")]


def test_M7_the_maniac_cannot_kill_himself_nor_the_dead_and_his_choice_is_final():
    t = CityTable().wait().remove(9).to_turn("maniac")
    assert t.refused(Kill(7, 7)).rule == "M7"
    assert t.refused(Kill(7, 9)).rule == "M7"
    assert sorted(a.target for a in legal_actions(t.state, 7)) == [1, 2, 3, 4, 5, 6, 8, 10]
    t.kill(7, 8)
    assert t.refused(Kill(7, 10)).rule == "M7"


def test_M7_only_the_living_maniac_kills():
    t = CityTable().wait().remove(7).to_turn("maniac")
    assert t.refused(Kill(7, 8)).rule == "M7"
    assert all(legal_actions(t.state, s) == [] for s in SEATS)


# --- M8: the Doctor --------------------------------------------------------


def test_M8_heal_saves_the_shot_player():
    t = CityTable().wait().night(shot=9, heal=9)
    assert t.left() == [] and t.last("morning")["dead"] == []


def test_M8_heal_saves_the_maniacs_victim():
    t = CityTable().wait().night(kill=9, heal=9)
    assert t.left() == []


def test_M8_heal_saves_a_player_both_shot_and_killed():
    t = CityTable().wait().night(shot=9, kill=9, heal=9)
    assert t.left() == []


def test_M8_heal_saves_only_the_healed_player():
    t = CityTable().wait().night(shot=9, kill=10, heal=9)
    assert t.left() == [(10, "killed")]


def test_M8_doctor_heals_himself_at_most_once_per_game():
    t = CityTable().wait().night(shot=5, heal=5)
    assert t.left() == []
    t.night(heal=8).to_turn("doctor")
    assert t.refused(Heal(5, 5)).rule == "M8"
    assert 5 not in [a.target for a in legal_actions(t.state, 5)]


def test_M8_doctor_never_heals_the_same_player_two_nights_in_a_row():
    t = CityTable().wait().night(heal=9).to_turn("doctor")
    assert t.refused(Heal(5, 9)).rule == "M8"
    t.heal(5, 8).night()
    t.night(heal=9)
    assert [e["target"] for e in t.of("night_action")] == [9, 8, 9]


def test_M8_only_the_living_doctor_heals_a_living_player():
    t = CityTable().wait().remove(9).to_turn("doctor")
    assert t.refused(Heal(5, 9)).rule == "M8"
    assert t.refused(Heal(4, 8)).rule == "M8"


# --- M9: the Commissar -----------------------------------------------------


@pytest.mark.parametrize(
    "target,result",
    [(1, "black"), (2, "black"), (3, "black"), (7, "red"), (5, "red"), (6, "red"), (9, "red")],
)
def test_M9_commissar_learns_black_for_don_and_mafia_red_for_the_maniac_and_the_rest(
    target, result
):
    t = CityTable().wait().to_turn("commissar").check(4, target)
    assert t.last("check") == {
        "event": "check",
        "t": 700,
        "by": 4,
        "target": target,
        "result": result,
    }
    assert [s for s in SEATS if raw(t, "check")[-1].audience.includes(s)] == [4]
    assert t.view(4)["checks"] == {str(target): result}


def test_M9_no_self_check_no_repeat_one_a_night_and_only_the_commissar():
    t = CityTable().wait().to_turn("commissar")
    assert t.refused(Check(4, 4)).rule == "M9"
    assert t.refused(Check(1, 5)).rule == "M9"  # the Don waits for his turn
    t.check(4, 7)
    assert t.refused(Check(4, 8)).rule == "M9"
    t.night().to_turn("commissar")
    assert t.refused(Check(4, 7)).rule == "M9"
    t.check(4, 8)
    assert t.view(4)["checks"] == {"7": "red", "8": "red"}


def test_M9_a_commissar_shot_tonight_still_checks():
    t = CityTable().wait().night(shot=4, check=2)
    assert checks(t) == [(4, 2, "black")]
    assert t.left() == [(4, "shot")]


# --- M10: the Don's check --------------------------------------------------


@pytest.mark.parametrize(
    "target,result",
    [(4, "commissar"), (5, "not_commissar"), (7, "not_commissar"), (2, "not_commissar")],
)
def test_M10_don_learns_commissar_or_not(target, result):
    t = CityTable().wait().to_turn("don").check(1, target)
    assert t.last("check") == {
        "event": "check",
        "t": 710,
        "by": 1,
        "target": target,
        "result": result,
    }
    assert [s for s in SEATS if raw(t, "check")[-1].audience.includes(s)] == [1]
    for seat in (2, 3, 4):
        assert t.view(seat)["checks"] == {}


def test_M10_only_the_don_checks_in_his_turn_and_not_himself():
    t = CityTable().wait().to_turn("don")
    assert t.refused(Check(4, 1)).rule == "M10"
    assert t.refused(Check(2, 4)).rule == "M10"
    assert t.refused(Check(1, 1)).rule == "M10"


# --- M11: dawn ---------------------------------------------------------------


def test_M11_deaths_in_seat_order_and_shot_and_killed_leaves_once_as_shot():
    t = CityTable().wait().night(shot=10, kill=8)
    assert t.left() == [(8, "killed"), (10, "shot")]
    assert t.last("morning") == {"event": "morning", "t": DAWN2, "dead": [8, 10]}
    t.to_speech(1)
    last_words = [(s["seat"], s["t"]) for s in t.of("speech") if s["kind"] == "last_word"]
    assert last_words == [(8, 720), (10, 780)]
    t.night(shot=9, kill=9)
    assert t.left()[2:] == [(9, "shot")]


def test_M11_the_morning_names_who_died_never_why():
    t = CityTable().wait().night(shot=10, kill=8)
    for seat in (*SEATS, None):
        seen = [e.event for e in t.events if e.audience.includes(seat)]
        assert "morning" in seen and "left" not in seen
    assert {e.audience.kind for e in raw(t, "left")} == {"record"}


def test_M11_nobody_leaves_before_dawn():
    t = CityTable().wait().shot(9).to_turn("maniac").kill(7, 8).to_turn("don").wait(9.5)
    assert t.state.alive[8] and t.state.alive[9] and t.left() == []
    assert all(row["alive"] for row in t.view(None)["seats"])
    t.wait()
    assert t.clock == DAWN2 and t.left() == [(8, "killed"), (9, "shot")]


def test_M11_a_check_of_a_player_killed_tonight_still_answers():
    t = CityTable().wait().night(kill=2, check=2)
    assert checks(t) == [(4, 2, "black")] and t.left() == [(2, "killed")]


# --- M13: voice at night -----------------------------------------------------


@pytest.mark.parametrize("turn", ["putana", "maniac", "doctor", "commissar", "don"])
def test_M13_only_the_role_in_its_turn_sees_and_hears(turn):
    """One holder per role: the room has nobody else in it, so every track is
    closed, and no other seat is let in either."""
    t = CityTable(settings={"agreement": "sound"}).to_turn(turn)
    g = t.gate()
    assert not any(
        g.allows(a, b, kind) for a in SEATS for b in (*SEATS, None) for kind in ("audio", "video")
    )
    for seat in (*SEATS, None):
        assert t.view(seat)["gate"] == {"audio": [], "video": []}


@pytest.mark.parametrize("agreement,hears", [("silent", False), ("sound", True)])
def test_M13_the_mafia_turn_is_the_living_black_team_per_agreement(agreement, hears):
    t = CityTable(settings={"agreement": agreement}).wait().remove(3).to_turn("mafia")
    g = t.gate()
    for a in SEATS:
        for b in SEATS:
            inside = a != b and a in (1, 2) and b in (1, 2)
            assert g.allows(a, b, "video") == inside
            assert g.allows(a, b, "audio") == (inside and hears)
    assert t.view(3)["gate"] == {"audio": [], "video": []}
    assert t.view(1)["gate"] == {"audio": [2] if hears else [], "video": [2]}


def test_M13_the_room_follows_the_turn():
    t = CityTable(settings={"agreement": "sound"}).wait().to_turn("putana")
    seen = {}
    while t.state.stage == "night":
        seen[t.phase] = {s for s in SEATS if t.view(s)["gate"]["video"]}
        t.wait()
    assert seen == {
        "putana": set(),
        "mafia": {1, 2, 3},
        "maniac": set(),
        "doctor": set(),
        "commissar": set(),
        "don": set(),
    }
