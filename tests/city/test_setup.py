"""The city table: seats and deck (M1), the day's speech length (M2), the
first night (M3), the settings (§3), awards (A1) and defeat (T4)."""

from collections import Counter

import pytest

from omerta.city_mode import CITY, CitySettings, Heal, Kill, Visit
from omerta.rulesets import get
from omerta.table import BadSettings, IllegalAction, new_game
from omerta.table.actions import Check, Shoot
from omerta.table.legal import legal_actions

from .game import CityTable

SPECIALS = {"don": 1, "commissar": 1, "doctor": 1, "putana": 1, "maniac": 1}


def dealt(settings):
    t = CityTable(deal=None, settings={"auto_deal": True, **settings})
    return Counter(t.last("seated")["roles"].values())


# --- M1: seats and the deck --------------------------------------------------


@pytest.mark.parametrize(
    "seats,mafia", [(10, 1), (10, 2), (10, 3), (11, 1), (11, 3), (12, 1), (12, 2), (12, 3)]
)
def test_M1_seats_and_mafia_count_settings(seats, mafia):
    roles = dealt({"seats": seats, "mafia_count": mafia})
    assert sum(roles.values()) == seats
    assert roles == {**SPECIALS, "mafia": mafia, "civilian": seats - 5 - mafia}


@pytest.mark.parametrize("seats,mafia", [(None, 2), (10, 2), (11, 2), (12, 3)])
def test_M1_two_mafia_by_default_and_three_at_twelve_seats(seats, mafia):
    settings = {} if seats is None else {"seats": seats}
    parsed = CITY.parse_settings(settings)
    assert (parsed.seats, parsed.mafia_count) == (seats or 10, mafia)
    assert dealt(settings)["mafia"] == mafia


def test_M1_a_mafia_count_given_at_twelve_seats_is_kept():
    assert CITY.parse_settings({"seats": 12, "mafia_count": 2}).mafia_count == 2


def test_M1_the_table_starts_with_its_seat_count():
    t = CityTable(deal=None, settings={"seats": 12})
    assert t.state.n == 12 and len(t.view(None)["seats"]) == 12
    for seat in range(1, 13):
        t.pick(seat, seat - 1)
    assert t.state.stage == "meeting"


@pytest.mark.parametrize(
    "setting,value",
    [
        ("seats", 9),
        ("seats", 13),
        ("seats", "10"),
        ("mafia_count", 0),
        ("mafia_count", 4),
        ("mafia_count", True),
        ("speech_seconds", 50),
        ("speech_seconds", 120),
        ("night_turn_seconds", 4),
        ("night_turn_seconds", 31),
        ("night_turn_seconds", 10.5),
        ("night_turn_seconds", True),
        ("night_turn_seconds", {"doctor": 3}),
        ("night_turn_seconds", {"sheriff": 10}),
        ("agreement", "loud"),
    ],
)
def test_M1_M2_M4_bad_settings_are_refused_naming_the_setting(setting, value):
    with pytest.raises(BadSettings, match=setting):
        CITY.parse_settings({setting: value})


def test_an_unknown_setting_is_refused():
    with pytest.raises(BadSettings, match="shot_seconds"):
        CITY.parse_settings({"shot_seconds": 7})


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"seats": 12},
        {"speech_seconds": 45, "voting": "open"},
        {"night_turn_seconds": 20},
        {"night_turn_seconds": {"mafia": 30, "don": 5}},
        {"seats": 11, "mafia_count": 1, "agreement": "sound"},
    ],
)
def test_settings_read_back_from_their_dict_are_the_same(raw):
    parsed = CITY.parse_settings(raw)
    assert isinstance(parsed, CitySettings)
    assert CITY.parse_settings(parsed.to_dict()) == parsed
    assert CITY.parse_settings({**parsed.to_dict(), "ruleset": "city"}) == parsed


def test_the_registry_knows_the_city_ruleset():
    assert get("city") is CITY
    with pytest.raises(BadSettings, match="city"):
        get("town")


def test_the_view_shows_the_city_settings():
    t = CityTable(settings={"speech_seconds": 90, "night_turn_seconds": {"putana": 7}})
    settings = t.view(8)["settings"]
    assert t.view(8)["ruleset"] == "city"
    assert settings["speech_seconds"] == 90 and settings["seats"] == 10
    assert settings["night_turn_seconds"] == {
        "putana": 7,
        "mafia": 10,
        "maniac": 10,
        "doctor": 10,
        "commissar": 10,
        "don": 10,
    }


# --- M2: the day's speech length -------------------------------------------


@pytest.mark.parametrize("seconds", [30, 45, 60, 90])
def test_M2_speech_length_is_the_tables_setting(seconds):
    t = CityTable(settings={"speech_seconds": seconds}).wait()
    assert t.last("speech") == {
        "event": "speech",
        "t": 60,
        "seat": 1,
        "seconds": seconds,
        "kind": "day",
    }
    # Two nominees tie, then one leads the revote: tie and leader speeches are 30 s.
    t.nominate(1, 2).end_speech(1).to_speech(2).nominate(2, 3)
    t.to_phase("vote").votes({s: 2 if s <= 5 else 3 for s in range(1, 11)}).to_phase("revote")
    t.votes({s: 2 if s <= 6 else 3 for s in range(1, 11)})
    kinds = {(e["kind"], e["seconds"]) for e in t.of("speech")}
    assert kinds == {("day", seconds), ("tie", 30), ("leader", 30)}
    t.night(shot=9)
    assert t.last("speech") == {
        "event": "speech",
        "t": t.clock,
        "seat": 9,
        "seconds": 60,
        "kind": "last_word",
    }


@pytest.mark.parametrize("seconds", [30, 90])
def test_M2_the_farewell_speech_stays_60_seconds(seconds):
    t = CityTable(settings={"speech_seconds": seconds}).wait().night()
    t.to_speech(2).nominate(2, 9)
    t.run_until(lambda t: t.state.speech_kind == "farewell")
    assert t.last("speech")["seconds"] == 60 and t.last("speech")["seat"] == 9


# --- M3: the first night ---------------------------------------------------


@pytest.mark.parametrize(
    "action", [Visit(6, 8), Shoot(1, 8), Kill(7, 8), Heal(5, 8), Check(4, 1), Check(1, 4)]
)
def test_M3_the_meeting_has_no_night_actions(action):
    t = CityTable().wait(30)
    assert t.phase == "meeting"
    assert isinstance(t.refused(action), IllegalAction)
    assert all(legal_actions(t.state, s) == [] for s in t.state.seats)


def test_M3_the_meeting_lasts_60_seconds_and_nobody_dies():
    t = CityTable()
    assert t.of("phase")[0]["seconds"] == 60
    t.wait()
    assert t.clock == 60 and t.left() == [] and t.of("morning") == []


@pytest.mark.parametrize("agreement,hears", [("silent", False), ("sound", True)])
def test_M3_the_black_team_meets_per_agreement_and_nobody_else(agreement, hears):
    t = CityTable(settings={"agreement": agreement})
    g = t.gate()
    for a in range(1, 11):
        for b in range(1, 11):
            black = a != b and a in (1, 2, 3) and b in (1, 2, 3)
            assert g.allows(a, b, "video") == black
            assert g.allows(a, b, "audio") == (black and hears)
    team = t.last("team")
    assert team["roles"] == {"1": "don", "2": "mafia", "3": "mafia"}
    maniac = {row["seat"]: row["role"] for row in t.view(7)["seats"] if row["role"]}
    assert maniac == {7: "maniac"}


# --- A1: awards ------------------------------------------------------------


@pytest.mark.parametrize("bots", [frozenset(), frozenset({3})])
def test_A1_a_city_table_is_never_ranked(bots):
    assert CITY.ranked(CITY.parse_settings({}), bots) is False


# --- T4: a technical defeat ------------------------------------------------


@pytest.mark.parametrize(
    "offender,winner",
    [(7, "red"), (1, "red"), (2, "red"), (4, "black"), (6, "black"), (9, "black")],
)
def test_T4_a_maniac_offender_hands_the_win_to_red(offender, winner):
    t = CityTable().wait()
    t.tech_call(8 if offender != 8 else 9, "defeat", offender)
    for seat in range(1, 7):
        t.tech_vote(seat, True)
    t.wait()
    assert t.state.over
    assert (t.state.winner, t.state.reason) == (winner, "technical_defeat")


def test_new_game_seats_a_city_table_from_its_settings():
    state, _ = new_game(CITY, {"seats": 11, "auto_deal": True}, 4)
    assert state.n == 11 and state.stage == "meeting"
