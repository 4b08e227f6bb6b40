"""Seating benchmark: the fairness of `omerta.tournament.seating` schedules.

    .venv/bin/python bench/seating.py [--seed 1] [--seeds 1]

For 20, 21, 30, 36, 50 and 100 players (10 rounds, as many full tables as
the players fill), and the formats of the published hand-tuned sport-mafia
schedules where everyone plays 10 games (36 players on 3 tables: 12 rounds;
20 on 2: 10 rounds) and, since 21 on 2 cannot give everyone 10 games, 21
rounds in which each of the 21 sits out once (20 games each), one line each:
games per player, the most times anyone holds one seat (and seats 1, 2, 10),
how often pairs meet against the ideal (the whole numbers around the mean: a
player meets 9 others a game, so 10 games among 36 players is 90 meetings
over 35 others, 2.57 a pair: ideally every pair meets 2 or 3 times), the sum
over pairs of squared meetings above a proven lower bound (`squares_bound`),
and the seconds it took. With --seeds N, the worst of N seeds."""

from __future__ import annotations

import argparse
import math
import time

from omerta.tournament.seating import SEATS, Measures, measures, schedule

#: (players, tables, rounds)
SIZES = [(20, 2, 10), (21, 2, 10), (30, 3, 10), (36, 3, 10), (50, 5, 10), (100, 10, 10)]
PUBLISHED_FORMATS = [(36, 3, 12), (20, 2, 10), (21, 2, 21)]


def squares_bound(players: int, tables: int, rounds: int) -> int:
    """A lower bound on the sum over pairs of squared meeting counts of any
    schedule with balanced games. With E the players x (round, table)
    incidence matrix, the sum over ordered pairs p != q of meetings squared is
    |E E^T|^2 - sum of games squared, and |E E^T| = |E^T E| (Frobenius). In
    E^T E each (round, table) has 10 on the diagonal, tables of one round
    share nobody, and two rounds' tables share the players of both rounds (at
    least 20 x tables - players of them), whose squares are smallest spread
    evenly over the tables x tables cells."""
    q, rem = divmod(SEATS * tables * rounds, players)
    games_squared = rem * (q + 1) ** 2 + (players - rem) * q * q
    cells = tables * tables
    base, extra = divmod(max(0, 2 * SEATS * tables - players), cells)
    overlap = extra * (base + 1) ** 2 + (cells - extra) * base * base
    frobenius = rounds * tables * SEATS**2 + rounds * (rounds - 1) * overlap
    return (frobenius - games_squared) // 2


HEAD = (
    f"{'players':>7} {'tables':>6} {'rounds':>6} {'games':>6} {'seat max':>8}"
    f" {'1/2/10 max':>10} {'pair mean':>9} {'ideal':>5} {'pairs':>5}"
    f" {'in ideal':>8} {'never met':>9} {'squares/bound':>13} {'seconds':>7}"
)


def line(players: int, tables: int, rounds: int, seeds: list[int]) -> str:
    worst: Measures | None = None
    slowest = 0.0
    for seed in seeds:
        start = time.perf_counter()
        m = measures(schedule(players, tables, rounds, seed))
        slowest = max(slowest, time.perf_counter() - start)
        spread = (m["pair_spread"], m["seat_max"])
        if worst is None or spread > (worst["pair_spread"], worst["seat_max"]):
            worst = m
    assert worst is not None
    m = worst
    mean = m["pair_mean"]
    low, high = math.floor(mean), math.ceil(mean)
    counts = m["pair_counts"]
    ideal = sum(c for k, c in counts.items() if low <= k <= high)
    hard = "/".join(str(m["hard_seat_max"][s]) for s in (1, 2, 10))
    games = f"{m['games_min']}-{m['games_max']}"
    band = f"{low}-{high}"
    met = f"{m['pair_min']}-{m['pair_max']}"
    squares = sum(k * k * c for k, c in counts.items())
    above = f"+{100 * (squares / squares_bound(players, tables, rounds) - 1):.1f}%"
    return (
        f"{players:>7} {tables:>6} {rounds:>6} {games:>6} {m['seat_max']:>8}"
        f" {hard:>10} {mean:>9.2f} {band:>5} {met:>5}"
        f" {100 * ideal / sum(counts.values()):>7.0f}% {m['pairs_never_met']:>9} {above:>13}"
        f" {slowest:>7.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=1, help="report the worst of this many")
    args = parser.parse_args()
    seeds = [args.seed + i for i in range(args.seeds)]
    print(f"seats per table {SEATS}; seed {args.seed}; worst of {args.seeds}")
    print(HEAD)
    for size in SIZES:
        print(line(*size, seeds))
    print("the published schedules' formats (10 games each), and 21 on 2 over 21 rounds:")
    for size in PUBLISHED_FORMATS:
        print(line(*size, seeds))


if __name__ == "__main__":
    main()
