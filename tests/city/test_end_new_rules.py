"""The end rules at a city table: a Maniac kill resets the E2 draw count,
and an empty table is a red win (E5).

Standard city deal (tests/city/game.py): Don 1, Mafia 2 and 3, Commissar 4,
Doctor 5, Putana 6, Maniac 7, Civilians 8-10."""

from .game import MANIAC, CityTable

SEATS = range(1, 11)


def nights(t: CityTable) -> list[int]:
    return sorted({e["night"] for e in t.of("phase") if "night" in e})


def test_E2_M12_a_maniac_kill_resets_the_draw_count():
    t = CityTable().to_day(3)  # days 2 and 3 were quiet: two rounds
    t.night(kill=8)  # night 4: only the Maniac acts
    assert t.left() == [(8, "killed")] and not t.state.over
    t.skip_day()  # day 4 ends: the count starts again
    assert not t.state.over and t.state.night == 5
    t.run_until(lambda t: t.state.over, limit=2000)
    assert (t.state.winner, t.state.reason) == ("draw", "three_quiet_rounds")
    assert t.state.day == 7 and nights(t) == [1, 2, 3, 4, 5, 6, 7]


def test_E2_M12_a_maniac_kill_the_doctor_prevents_does_not_reset_the_count():
    t = CityTable().to_day(3)
    t.night(kill=8, heal=8)  # night 4: healed, nobody leaves
    assert t.left() == []
    t.run_until(lambda t: t.state.over, limit=2000)
    assert (t.state.winner, t.state.reason) == ("draw", "three_quiet_rounds")
    assert t.state.day == 4 and t.state.night == 4


def test_E2_M12_without_the_kill_the_same_game_is_a_draw_at_day_4():
    t = CityTable().to_day(3)
    t.night()
    t.run_until(lambda t: t.state.over, limit=2000)
    assert (t.state.winner, t.state.day) == ("draw", 4)
    assert MANIAC in t.state.living()


def test_E5_everyone_lifted_at_a_city_table_leaves_nobody_and_red_wins():
    t = CityTable(settings={"lift_at_zero": True})
    t.nominations(*((seat, seat) for seat in SEATS))
    t.to_phase("vote").votes({seat: seat for seat in SEATS})
    t.to_phase("revote").votes({seat: seat for seat in SEATS})
    t.to_phase("lift")
    for seat in SEATS:
        t.lift(seat, True)
    t.wait()
    assert sorted(t.left()) == [(seat, "lift") for seat in SEATS]
    over = t.last("game_over")
    assert (over["winner"], over["reason"]) == ("red", "no_black_or_maniac_left")
