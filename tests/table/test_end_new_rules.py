"""E5: when the last players leave together and nobody is left, red wins.

Standard deal (tests/table/game.py): Don 1, Mafia 2 and 3, Sheriff 4,
Civilians 5-10."""

from .game import Table

SEATS = range(1, 11)


def everyone_tied_on_day_1() -> Table:
    """Day 1 with the lift at zero on: every player nominates themselves and
    votes for themselves, twice, so all ten are tied into the lift vote."""
    t = Table(settings={"lift_at_zero": True})
    t.nominations(*((seat, seat) for seat in SEATS))
    t.to_phase("vote").votes({seat: seat for seat in SEATS})
    t.to_phase("revote").votes({seat: seat for seat in SEATS})
    t.to_phase("lift")
    return t


def test_E5_everyone_lifted_leaves_nobody_and_red_wins():
    t = everyone_tied_on_day_1()
    for seat in SEATS:
        t.lift(seat, True)
    t.wait()
    assert sorted(t.left()) == [(seat, "lift") for seat in SEATS]
    assert t.state.living() == []
    over = t.last("game_over")
    assert (over["winner"], over["reason"]) == ("red", "no_black_left")


def test_E5_the_empty_table_ends_once_after_all_have_left():
    t = everyone_tied_on_day_1()
    for seat in SEATS:
        t.lift(seat, True)
    t.wait()
    names = [e.event for e in t.events]
    assert names.count("game_over") == 1
    assert names.index("game_over") > max(i for i, n in enumerate(names) if n == "left")
    assert all(speech["kind"] != "farewell" for speech in t.of("speech"))
