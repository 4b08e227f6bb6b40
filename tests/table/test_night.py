"""The first night (N1–N2, the `agreement` setting) and the nights from the
second on: the shot, the checks, dawn and the morning (S1–S6).

Seats of the standard deal (tests/table/game.py): Don 1, Mafia 2 and 3,
Sheriff 4, Civilians 5-10. With nobody nominated on day 1, day 1 runs
60-660, night 2 is the shot 660-667 and the checks 667-674, dawn at 674."""

import pytest

from omerta.table import BadSettings, IllegalAction
from omerta.table.actions import Check, Shoot

from .game import DEAL, Table

MEETING_END = 60
NIGHT2 = 660  # the shot of night 2 opens
CHECKS2 = 667  # the checks of night 2 open
DAWN2 = 674  # dawn of day 2
SEATS = range(1, 11)


def raw(t, name):
    """The engine's event objects (with their audience) of one kind."""
    return [e for e in t.events if e.event == name]


def pass_tech(t, kind, target, caller=None):
    """Call a technical vote now and let just enough living humans vote yes."""
    s = t.state
    humans = s.living_humans()
    caller = caller or next(q for q in humans if q != target)
    t.tech_call(caller, kind, target)
    for seat in humans[: len(humans) // 2 + 1]:
        t.tech_vote(seat, True)
    return t.wait()


def night2(t=None):
    """A table at the start of the shot of night 2 (nobody nominated on day 1)."""
    t = t or Table()
    return t.to_phase("shot")


def to_checks(t):
    return t.to_phase("checks")


def phases(t):
    return [(e["t"], e["phase"], e.get("night", e.get("day"))) for e in t.of("phase")]


# --- N1: the first night (mafia meeting) ---------------------------------


def test_N1_meeting_lasts_60_seconds_then_day_1_opens():
    t = Table()
    assert t.of("phase")[0] == {
        "event": "phase",
        "t": 0,
        "phase": "meeting",
        "night": 1,
        "seconds": 60,
    }
    assert t.state.stage == "meeting" and t.state.deadline == 60
    t.wait()
    assert t.clock == MEETING_END
    assert phases(t)[-1] == (60, "day", 1)
    assert t.last("speech") == {"event": "speech", "t": 60, "seat": 1, "seconds": 60, "kind": "day"}


def test_N1_meeting_still_runs_one_second_before_its_end():
    t = Table().wait(59)
    assert t.state.stage == "meeting"
    assert not t.of("speech")


@pytest.mark.parametrize("at", [0, 30, 59])
def test_N1_no_shot_during_the_meeting(at):
    t = Table().wait(at) if at else Table()
    for seat in (1, 2, 3):
        assert isinstance(t.refused(Shoot(seat, 7)), IllegalAction)


@pytest.mark.parametrize("seat,target", [(1, 4), (4, 1), (4, 5)])
def test_N1_no_checks_during_the_meeting(seat, target):
    t = Table().wait(10)
    t.refused(Check(seat, target))


def test_N1_nobody_dies_and_nothing_is_checked_on_the_first_night():
    t = Table().wait()
    assert t.left() == []
    assert t.of("check") == [] and t.of("night_action") == []
    assert t.of("morning") == []
    assert all(t.state.alive[s] for s in SEATS)
    assert t.state.checked == {}


def test_N1_don_and_mafia_see_each_other_for_the_first_time_at_the_meeting():
    t = Table(deal=None, seed=5)
    roles_before = {s: t.view(s)["seats"] for s in SEATS}
    for seat in SEATS:
        t.pick(seat, seat - 1)
    black = [s for s in SEATS if t.state.roles[s] in ("don", "mafia")]
    assert len(black) == 3
    # during the draw nobody saw anyone's role
    for s in SEATS:
        assert all(row["role"] is None for row in roles_before[s])
    assert t.state.stage == "meeting"
    team = raw(t, "team")
    assert len(team) == 1 and team[0].t == 0
    assert team[0].roles == {s: t.state.roles[s] for s in black}
    for s in SEATS:
        assert team[0].audience.includes(s) == (s in black)
    assert not team[0].audience.includes(None)
    for s in black:
        known = {row["seat"]: row["role"] for row in t.view(s)["seats"] if row["role"]}
        assert known == {q: t.state.roles[q] for q in black}


def test_N1_red_players_know_only_their_own_role_at_the_meeting():
    t = Table()
    for s in range(4, 11):
        known = {row["seat"]: row["role"] for row in t.view(s)["seats"] if row["role"]}
        assert known == {s: DEAL[s]}
    assert all(row["role"] is None for row in t.view(None)["seats"])


# --- N2: the `agreement` setting ---------------------------------------


def test_N2_agreement_defaults_to_silent():
    t = Table()
    assert t.state.settings.agreement == "silent"
    assert t.view(1)["settings"]["agreement"] == "silent"


@pytest.mark.parametrize("value", ["loud", "on", True, None, "Sound"])
def test_N2_agreement_is_only_sound_or_silent(value):
    with pytest.raises(BadSettings):
        Table(settings={"agreement": value})


@pytest.mark.parametrize("settings", [{}, {"agreement": "silent"}])
def test_N2_silent_mafia_only_see_each_other_at_the_meeting(settings):
    t = Table(settings=settings)
    g = t.gate()
    for a in (1, 2, 3):
        for b in (1, 2, 3):
            if a != b:
                assert g.allows(a, b, "video")
                assert not g.allows(a, b, "audio")
    assert t.view(2)["gate"] == {"audio": [], "video": [1, 3]}


def test_N2_sound_mafia_see_and_hear_each_other_at_the_meeting():
    t = Table(settings={"agreement": "sound"})
    g = t.gate()
    for a in (1, 2, 3):
        for b in (1, 2, 3):
            if a != b:
                assert g.allows(a, b, "video")
                assert g.allows(a, b, "audio")
    assert t.view(1)["gate"] == {"audio": [2, 3], "video": [2, 3]}
    t.wait(59)
    assert t.gate().allows(3, 1, "audio")


@pytest.mark.parametrize("agreement", ["silent", "sound"])
def test_N2_red_players_see_and_hear_nothing_at_the_meeting(agreement):
    t = Table(settings={"agreement": agreement})
    g = t.gate()
    for red in range(4, 11):
        assert t.view(red)["gate"] == {"audio": [], "video": []}
        for other in SEATS:
            for kind in ("audio", "video"):
                assert not g.allows(other, red, kind)
                assert not g.allows(red, other, kind)
    assert t.view(None)["gate"] == {"audio": [], "video": []}


# --- S1: the shot -------------------------------------------------------


def test_S1_shot_window_lasts_7_seconds():
    t = night2()
    assert t.clock == NIGHT2
    assert t.last("phase") == {
        "event": "phase",
        "t": 660,
        "phase": "shot",
        "night": 2,
        "seconds": 7,
    }
    t.wait()
    assert t.last("phase") == {
        "event": "phase",
        "t": 667,
        "phase": "checks",
        "night": 2,
        "seconds": 7,
    }


def test_S1_shot_hits_when_the_don_and_every_living_mafia_choose_the_same_target():
    t = night2()
    t.shoot(1, 7).wait(3).shoot(2, 7).wait(2).shoot(3, 7)
    t.to_day(2)
    assert t.left() == [(7, "shot")]
    assert t.last("left") == {"event": "left", "t": DAWN2, "seat": 7, "cause": "shot"}
    assert not t.state.alive[7]


def test_S1_shot_misses_when_one_mafia_chooses_differently():
    t = night2()
    t.shoot(1, 7).shoot(2, 7).shoot(3, 8)
    t.to_day(2)
    assert t.left() == []
    assert t.state.alive[7] and t.state.alive[8]
    assert t.last("morning")["dead"] == []


def test_S1_shot_misses_when_the_don_chooses_differently():
    t = night2()
    t.shoot(1, 5).shoot(2, 7).shoot(3, 7)
    t.to_day(2)
    assert t.left() == []


@pytest.mark.parametrize("silent", [1, 2, 3])
def test_S1_shot_misses_when_one_black_player_does_not_choose(silent):
    t = night2()
    for seat in (1, 2, 3):
        if seat != silent:
            t.shoot(seat, 7)
    t.to_day(2)
    assert t.left() == []
    assert all(t.state.alive[s] for s in SEATS)


def test_S1_shot_misses_when_nobody_chooses():
    t = night2().to_day(2)
    assert t.left() == []
    assert t.last("morning") == {"event": "morning", "t": DAWN2, "dead": []}


def test_S1_shot_choice_is_final():
    t = night2()
    t.shoot(2, 7)
    assert t.refused(Shoot(2, 8)).rule == "S1"
    assert t.refused(Shoot(2, 7)).rule == "S1"
    t.shoot(1, 8).shoot(3, 8)
    t.to_day(2)
    assert t.left() == []  # 2's first choice (7) stood: a miss


@pytest.mark.parametrize("seat", [4, 5, 10])
def test_S1_only_black_players_shoot(seat):
    t = night2()
    assert t.refused(Shoot(seat, 7)).rule == "S1"


def test_S1_shot_is_taken_only_in_the_shot_window():
    t = to_checks(night2())
    assert t.clock == CHECKS2
    t.refused(Shoot(1, 7))


def test_S1_living_black_players_may_talk_to_each_other_during_the_shot():
    t = night2()  # agreement defaults to silent: the shot still has sound
    g = t.gate()
    for a in (1, 2, 3):
        for b in (1, 2, 3):
            if a != b:
                assert g.allows(a, b, "audio") and g.allows(a, b, "video")
    for red in range(4, 11):
        assert t.view(red)["gate"] == {"audio": [], "video": []}
    assert t.view(1)["gate"] == {"audio": [2, 3], "video": [2, 3]}
    assert t.view(None)["gate"] == {"audio": [], "video": []}


def test_S1_dead_black_player_is_not_in_the_shot_room():
    t = Table().wait()
    pass_tech(t, "removal", 3)
    assert not t.state.alive[3]
    night2(t)
    g = t.gate()
    assert g.allows(1, 2, "audio") and g.allows(2, 1, "audio")
    assert not g.allows(1, 3, "audio") and not g.allows(3, 1, "audio")
    assert t.view(3)["gate"] == {"audio": [], "video": []}


# --- S2: targets; the Don dead -------------------------------------------


@pytest.mark.parametrize("target", [1, 2, 3])
def test_S2_a_black_player_may_be_targeted(target):
    t = night2().shot(target).to_day(2)
    assert t.left() == [(target, "shot")]
    assert t.last("left")["t"] == DAWN2


def test_S2_a_dead_player_cannot_be_targeted():
    t = Table().wait()
    pass_tech(t, "removal", 7)
    night2(t)
    assert t.refused(Shoot(1, 7)).rule == "S2"


def test_S2_with_the_don_dead_the_living_mafia_agreeing_hit():
    t = Table().wait()
    pass_tech(t, "removal", 1)
    night2(t)
    t.shoot(2, 7).shoot(3, 7)
    t.to_day(2)
    assert t.left() == [(1, "removed"), (7, "shot")]


def test_S2_with_the_don_dead_the_mafia_disagreeing_miss():
    t = Table().wait()
    pass_tech(t, "removal", 1)
    night2(t)
    t.shoot(2, 7).shoot(3, 8)
    t.to_day(2)
    assert t.left() == [(1, "removed")]


def test_S2_with_the_don_dead_one_mafia_not_choosing_is_a_miss():
    t = Table().wait()
    pass_tech(t, "removal", 1)
    night2(t)
    t.shoot(2, 7)
    t.to_day(2)
    assert t.left() == [(1, "removed")]


def test_S2_the_dead_don_cannot_shoot():
    t = Table().wait()
    pass_tech(t, "removal", 1)
    night2(t)
    assert t.refused(Shoot(1, 7)).rule == "S1"


def test_S2_a_lone_living_mafia_shoots_alone():
    t = Table().wait()
    pass_tech(t, "removal", 1)
    pass_tech(t, "removal", 2)
    night2(t)
    t.shoot(3, 9)
    t.to_day(2)
    assert t.left() == [(1, "removed"), (2, "removed"), (9, "shot")]


# --- S3: the checks -----------------------------------------------------


def test_S3_checks_window_lasts_7_seconds_after_the_shot():
    t = to_checks(night2())
    assert t.clock == CHECKS2
    assert t.last("phase")["seconds"] == 7
    t.wait()
    assert t.clock == DAWN2
    assert phases(t)[-1] == (674, "day", 2)


def test_S3_don_and_sheriff_check_at_once():
    t = to_checks(night2())
    t.check(1, 5).check(4, 2)
    assert t.of("check") == [
        {"event": "check", "t": 667, "by": 1, "target": 5, "result": "not_sheriff"},
        {"event": "check", "t": 667, "by": 4, "target": 2, "result": "black"},
    ]


def test_S3_don_learns_sheriff():
    t = to_checks(night2()).check(1, 4)
    assert t.last("check") == {
        "event": "check",
        "t": 667,
        "by": 1,
        "target": 4,
        "result": "sheriff",
    }


@pytest.mark.parametrize("target", [2, 3, 5, 10])
def test_S3_don_learns_not_sheriff(target):
    t = to_checks(night2()).wait(3).check(1, target)
    assert t.last("check") == {
        "event": "check",
        "t": 670,
        "by": 1,
        "target": target,
        "result": "not_sheriff",
    }


@pytest.mark.parametrize(
    "target,result", [(1, "black"), (2, "black"), (3, "black"), (5, "red"), (9, "red")]
)
def test_S3_sheriff_learns_black_or_red_with_the_don_black(target, result):
    t = to_checks(night2()).check(4, target)
    assert t.last("check") == {
        "event": "check",
        "t": 667,
        "by": 4,
        "target": target,
        "result": result,
    }


@pytest.mark.parametrize("seat", [1, 4])
def test_S3_one_check_per_checker_per_night(seat):
    t = to_checks(night2()).check(seat, 6)
    assert t.refused(Check(seat, 7)).rule == "S3"
    assert len(t.of("check")) == 1


@pytest.mark.parametrize("seat", [1, 4])
def test_S3_nobody_checks_themselves(seat):
    t = to_checks(night2())
    assert t.refused(Check(seat, seat)).rule == "S3"


@pytest.mark.parametrize("seat", [1, 4])
def test_S3_no_repeat_check_on_a_later_night(seat):
    t = to_checks(night2()).check(seat, 6)
    t.to_day(2).skip_day()
    to_checks(t)
    assert t.state.night == 3
    assert t.refused(Check(seat, 6)).rule == "S3"
    t.check(seat, 7)
    assert [(c["by"], c["target"]) for c in t.of("check")] == [(seat, 6), (seat, 7)]


@pytest.mark.parametrize("seat", [1, 4])
def test_S3_only_a_living_player_is_checked(seat):
    t = Table().wait()
    pass_tech(t, "removal", 8)
    to_checks(night2(t))
    assert t.refused(Check(seat, 8)).rule == "S3"


@pytest.mark.parametrize("seat", [2, 3, 5, 10])
def test_S3_only_the_don_and_the_sheriff_check(seat):
    t = to_checks(night2())
    assert t.refused(Check(seat, 6 if seat != 6 else 7)).rule == "S3"


@pytest.mark.parametrize("dead", [1, 4])
def test_S3_a_dead_checker_does_not_check(dead):
    t = Table().wait()
    pass_tech(t, "removal", dead)
    to_checks(night2(t))
    assert t.refused(Check(dead, 6)).rule == "S3"


@pytest.mark.parametrize("seat", [1, 4])
def test_S3_checks_are_made_only_in_the_checks_window(seat):
    t = night2()
    assert t.refused(Check(seat, 6)).rule == "S3"


def test_S3_only_the_checker_sees_the_result():
    t = to_checks(night2()).check(1, 4).check(4, 1)
    don, sheriff = raw(t, "check")
    for seat in SEATS:
        assert don.audience.includes(seat) == (seat == 1)
        assert sheriff.audience.includes(seat) == (seat == 4)
    assert not don.audience.includes(None) and not sheriff.audience.includes(None)
    assert t.view(1)["checks"] == {"4": "sheriff"}
    assert t.view(4)["checks"] == {"1": "black"}
    for seat in (2, 3, 5, 6, 7, 8, 9, 10, None):
        assert t.view(seat)["checks"] == {}


def test_S3_checkers_keep_seeing_their_results_on_later_days():
    t = to_checks(night2()).check(1, 5).check(4, 3)
    t.to_day(2).skip_day()
    to_checks(t).check(1, 4).check(4, 5)
    t.to_day(3)
    assert t.view(1)["checks"] == {"4": "sheriff", "5": "not_sheriff"}
    assert t.view(4)["checks"] == {"3": "black", "5": "red"}
    assert t.view(2)["checks"] == {} and t.view(5)["checks"] == {}


# --- S4: deaths at dawn ---------------------------------------------------


def test_S4_sheriff_shot_tonight_still_makes_the_check():
    t = night2().shot(4)
    to_checks(t)
    assert t.state.alive[4]
    t.check(4, 1)
    assert t.last("check") == {"event": "check", "t": 667, "by": 4, "target": 1, "result": "black"}
    t.to_day(2)
    assert t.left() == [(4, "shot")]
    assert t.last("left")["t"] == DAWN2


def test_S4_don_shot_tonight_still_makes_the_check():
    t = night2().shot(1)
    to_checks(t).check(1, 4)
    assert t.last("check") == {
        "event": "check",
        "t": 667,
        "by": 1,
        "target": 4,
        "result": "sheriff",
    }
    t.to_day(2)
    assert t.left() == [(1, "shot")]


def test_S4_a_player_shot_tonight_may_still_be_checked():
    t = night2().shot(7)
    to_checks(t).check(4, 7)
    assert t.last("check")["result"] == "red"
    t.to_day(2)
    assert t.left() == [(7, "shot")]


def test_S4_the_shot_player_is_alive_until_dawn():
    t = night2().shot(7)
    to_checks(t).wait(6.5)
    assert t.state.alive[7]
    assert t.view(None)["seats"][6]["alive"] is True
    assert t.left() == []
    t.wait()
    assert t.clock == DAWN2
    assert t.left() == [(7, "shot")]
    assert t.view(None)["seats"][6]["alive"] is False


# --- S5: the night's length reveals nothing -----------------------------


def _night_times(t):
    return [
        (e["t"], e["phase"])
        for e in t.of("phase")
        if e.get("night") == 2 or (e.get("day") == 2 and e["phase"] == "day")
    ]


def test_S5_night_windows_run_full_length_whatever_is_chosen():
    t = night2().shot(7)  # every shooter chose at once
    to_checks(t).check(1, 4).check(4, 1)  # both checks made at once
    t.to_day(2)
    assert _night_times(t) == [(660, "shot"), (667, "checks"), (674, "day")]


def test_S5_night_runs_full_length_when_nobody_chooses():
    t = night2().to_day(2)
    assert _night_times(t) == [(660, "shot"), (667, "checks"), (674, "day")]


@pytest.mark.parametrize("dead", [[1], [4], [1, 4]])
def test_S5_windows_of_dead_checkers_still_run_in_full(dead):
    t = Table().wait()
    for seat in dead:
        pass_tech(t, "removal", seat)
    t.to_phase("shot")
    shot = t.clock
    assert t.last("phase")["seconds"] == 7
    to_checks(t)
    assert t.clock == shot + 7
    t.to_day(2)
    assert t.clock == shot + 14


# --- S6: the morning -------------------------------------------------------


def test_S6_player_killed_at_night_gives_a_60_second_last_speech_then_the_day_begins():
    t = night2().shot(7).to_day(2)
    assert t.of("speech")[-1] == {
        "event": "speech",
        "t": 674,
        "seat": 7,
        "seconds": 60,
        "kind": "last_word",
    }
    assert t.state.speaker == 7 and t.state.deadline == 734
    t.wait()
    assert t.of("speech")[-1] == {
        "event": "speech",
        "t": 734,
        "seat": 2,
        "seconds": 60,
        "kind": "day",
    }


def test_S6_killed_player_is_not_among_the_day_speakers():
    t = night2().shot(7).to_day(2).skip_day()
    day2 = [(s["seat"], s["kind"]) for s in t.of("speech") if s["t"] >= DAWN2]
    assert day2 == [(7, "last_word")] + [(s, "day") for s in (2, 3, 4, 5, 6, 8, 9, 10, 1)]


def test_S6_after_a_miss_nobody_died_and_the_day_begins_at_once():
    t = night2().to_day(2)
    assert t.clock == DAWN2
    assert t.left() == []
    assert [s for s in t.of("speech") if s["kind"] == "last_word"] == []
    assert t.of("speech")[-1] == {
        "event": "speech",
        "t": 674,
        "seat": 2,
        "seconds": 60,
        "kind": "day",
    }
