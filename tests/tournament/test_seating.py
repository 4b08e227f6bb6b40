"""Seating schedules (omerta/tournament/seating.py): every player the same
number of games, nobody in one seat more than once in ten games, pairs meeting
as evenly as the numbers allow, the same schedule from the same seed."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omerta.tournament.seating import SEATS, measures, schedule, swap, swap_cost

# Small tournaments: the properties hold at any size, and these run fast.
sizes = st.integers(1, 2).flatmap(
    lambda tables: st.tuples(
        st.integers(tables * SEATS, tables * SEATS + 7), st.just(tables), st.integers(1, 5)
    )
)


def games_of(sched):
    return Counter(p for rnd in sched.rounds for table in rnd for p in table)


@settings(max_examples=10, deadline=None)
@given(size=sizes, seed=st.integers(0, 2**32))
def test_any_small_tournament_is_seated_fairly(size, seed):
    """Ten different players at each table; games differ by at most one (and
    not at all when the numbers allow); nobody in one seat twice in ten games."""
    players, tables, rounds = size
    sched = schedule(players, tables, rounds, seed)
    assert len(sched.rounds) == rounds
    for rnd in sched.rounds:
        assert len(rnd) == tables and all(len(table) == SEATS for table in rnd)
        seated = [p for table in rnd for p in table]
        assert len(set(seated)) == len(seated) and set(seated) <= set(range(players))
    games = games_of(sched)
    counts = [games[p] for p in range(players)]
    assert max(counts) - min(counts) <= 1
    if tables * SEATS * rounds % players == 0:
        assert len(set(counts)) == 1
    m = measures(sched)
    assert m["seat_max"] <= -(-m["games_max"] // SEATS)
    assert m["players_seat_over_2"] == 0


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another():
    assert schedule(13, 1, 4, 7) == schedule(13, 1, 4, 7)
    assert schedule(13, 1, 4, 7).rounds != schedule(13, 1, 4, 8).rounds


def test_twenty_players_on_two_tables_for_ten_games_meet_within_one_of_the_best_spread():
    """With two tables a pair meets 5 + d/2 times, d the dot product of their
    ±1 table vectors; over the 190 pairs the d² sum to at least 1000 and the
    d to -100, so no schedule keeps every pair within three whole numbers
    (a spread of at least 3). Ours: 3-7."""
    m = measures(schedule(20, 2, 10, 1))
    assert m["games_min"] == m["games_max"] == 10
    assert m["seat_max"] == 1  # each seat once, seats 1, 2 and 10 included
    assert (m["pair_min"], m["pair_max"]) == (3, 7)


def test_a_swap_exchanges_two_places_and_says_what_it_costs():
    sched = schedule(21, 2, 3, 5)
    a = sched.rounds[1][0][0]
    b = sched.sitting_out(1)[0]
    swapped = swap(sched, 1, a, b)
    assert swapped.place(1, b) == (0, 1) and swapped.place(1, a) is None
    assert swapped.rounds[0] == sched.rounds[0] and swapped.rounds[2] == sched.rounds[2]
    cost = swap_cost(sched, 1, a, b)
    assert cost["after"] == measures(swapped)
    assert cost["players"][a]["after"]["games"] == cost["players"][a]["before"]["games"] - 1
    assert cost["players"][b]["after"]["games"] == cost["players"][b]["before"]["games"] + 1
    assert cost["changed"]["pair_counts"] == (
        measures(sched)["pair_counts"],
        measures(swapped)["pair_counts"],
    )


def test_too_few_players_for_the_tables_is_refused():
    with pytest.raises(ValueError):
        schedule(19, 2, 3, 1)
    with pytest.raises(ValueError):
        schedule(20, 2, 0, 1)
