"""Seating schedules for a tournament: who sits where in every round.

Pure code: no I/O, no clock; the same arguments give the same schedule.

`schedule(players, tables, rounds, seed)` returns a `Schedule` whose
`rounds[r][t]` is table t's ten player indices (0-based) in seat order:
`rounds[r][t][0]` sits in seat 1, `rounds[r][t][9]` in seat 10. Players not
at any table in a round sit out; every player plays the same number of games
when `tables * 10 * rounds` is a multiple of `players`, else the counts differ
by one.

`measures(schedule)` reports how fair it is: games per player
(`games_min`/`games_max`), the most times anyone holds one seat (`seat_max`;
`players_seat_over_2`), seats 1, 2 and 10 (`hard_seat_max` per seat, and
`hard_seats_min`/`hard_seats_max`: the fewest and most times a player holds
any of the three), and how evenly pairs meet (`pair_mean`, `pair_min`,
`pair_max`, `pair_spread`, `pairs_never_met`, `pair_counts`: how many pairs
met how often). `swap(schedule, round, a, b)` exchanges two players' places
in one round (a seat, a table, or sitting out); `swap_cost` says what that
does to those measures and to the two players.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

SEATS = 10
# Seats whose share matters most: 1 speaks first on day 1, 2 next; 10 last.
HARD_SEATS = (1, 2, 10)

Table = tuple[int, ...]
Round = tuple[Table, ...]


@dataclass(frozen=True)
class Schedule:
    """`rounds[r][t][s]`: the player in seat s + 1 of table t in round r."""

    players: int
    tables: int
    seed: int
    rounds: tuple[Round, ...]

    def sitting_out(self, round: int) -> list[int]:
        """Players without a table in this round, in index order."""
        seated = {p for table in self.rounds[round] for p in table}
        return [p for p in range(self.players) if p not in seated]

    def place(self, round: int, player: int) -> tuple[int, int] | None:
        """(table index, seat 1..10) of a player in a round, or None when sitting out."""
        for t, table in enumerate(self.rounds[round]):
            if player in table:
                return t, table.index(player) + 1
        return None

    def to_json(self) -> dict[str, object]:
        return {
            "players": self.players,
            "tables": self.tables,
            "seed": self.seed,
            "rounds": [[list(table) for table in rnd] for rnd in self.rounds],
        }


def _check(players: int, tables: int, rounds: int) -> None:
    if tables < 1 or rounds < 1:
        raise ValueError("a schedule needs at least one table and one round")
    if players < tables * SEATS:
        raise ValueError(f"{tables} tables need at least {tables * SEATS} players, not {players}")


#: A pair's cost is the fourth power of its distance from the mean meeting
#: count: the sum of squares alone would trade a few far-off pairs for many
#: near ones; the fourth power keeps the extremes (the spread) down.
PAIR_POWER = 4
#: Annealing: moves per player-game of the schedule, temperatures from and to.
TABLE_MOVES = 60
HOT, COLD = 3.0, 0.05
#: How often a table move trades a seated player with one sitting out.
SIT_OUT_MOVES = 0.2


def schedule(players: int, tables: int, rounds: int, seed: int) -> Schedule:
    """A balanced schedule; deterministic from the seed.

    Who meets whom depends only on who shares a table, and seats only on the
    order at each table, so the two are optimised one after the other:

    1. Tables: round by round, the players with the fewest games play and
       each joins the table whose players they have met least; then simulated
       annealing on the sum over pairs of (meetings - mean)^4, moving two players of a
       round between tables, or a seated player and one sitting out (twice,
       in two rounds, when the games must stay equal).
    2. Seats: an exact colouring (`_seats`): nobody holds a seat more than
       once in ten games, so no seat more than twice in twenty."""
    _check(players, tables, rounds)
    plan = _Tables(players, tables, rounds, random.Random(seed)).run()
    seated = _seats(players, plan)
    return Schedule(
        players,
        tables,
        seed,
        tuple(tuple(tuple(table) for table in rnd) for rnd in seated),
    )


def _cooling(moves: int) -> float:
    return float((COLD / HOT) ** (1.0 / max(1, moves)))


class _Tables:
    """Phase 1: which players share a table in each round."""

    def __init__(self, players: int, tables: int, rounds: int, rng: random.Random) -> None:
        self.n, self.tables, self.rounds, self.rng = players, tables, rounds, rng
        self.slots = tables * SEATS
        total = self.slots * rounds
        self.games_min, self.games_max = total // players, -(-total // players)
        mean = total * (SEATS - 1) / (players * (players - 1))
        cost = [abs(m - mean) ** PAIR_POWER for m in range(-1, rounds + 2)]
        #: what one more (one fewer) meeting costs a pair that met m times: up[m], down[m]
        self.up = [cost[m + 2] - cost[m + 1] for m in range(rounds + 1)]
        self.down = [cost[m] - cost[m + 1] for m in range(rounds + 1)]
        self.games = [0] * players
        #: meet[p][q]: how often p and q share a table so far
        self.meet = [[0] * players for _ in range(players)]
        #: group[r][t]: the players of table t in round r; out[r]: those sitting out
        self.group: list[list[list[int]]] = []
        self.out: list[list[int]] = []
        #: where[r][p]: p's table in round r, or -1
        self.where: list[list[int]] = []

    def run(self) -> list[list[list[int]]]:
        for _ in range(self.rounds):
            self._greedy_round()
        if self.tables > 1 or self.n > self.slots:  # else nothing to choose
            self._anneal()
        return self.group

    def _join(self, p: int, mates: list[int], sign: int) -> None:
        meet, row = self.meet, self.meet[p]
        for q in mates:
            if q != p:
                row[q] += sign
                meet[q][p] += sign

    def _delta(self, p: int, leave: list[int], join: list[int], skip: int) -> float:
        """What p leaving table `leave` for table `join` costs pairs (`skip`:
        the player p replaces there, or -1). p itself sits in `leave`."""
        row, up, down = self.meet[p], self.up, self.down
        delta = 0.0
        if leave:
            delta += sum(map(down.__getitem__, map(row.__getitem__, leave))) - down[0]
        if join:
            delta += sum(map(up.__getitem__, map(row.__getitem__, join)))
            if skip >= 0:
                delta -= up[row[skip]]
        return delta

    def _greedy_round(self) -> None:
        rng = self.rng
        order = list(range(self.n))
        rng.shuffle(order)
        order.sort(key=lambda p: self.games[p])  # the fewest games play
        playing, out = order[: self.slots], order[self.slots :]
        groups: list[list[int]] = [[] for _ in range(self.tables)]
        where = [-1] * self.n
        for p in playing:
            best, best_cost = -1, 0.0
            for t, group in enumerate(groups):
                if len(group) < SEATS:
                    c = self._delta(p, [], group, -1)
                    if best < 0 or c < best_cost:
                        best, best_cost = t, c
            self._join(p, groups[best], +1)
            groups[best].append(p)
            where[p] = best
            self.games[p] += 1
        self.group.append(groups)
        self.out.append(out)
        self.where.append(where)

    def _anneal(self) -> None:
        rng = self.rng
        moves = TABLE_MOVES * self.slots * self.rounds
        cooling, temp = _cooling(moves), HOT
        rand, randrange, exp = rng.random, rng.randrange, math.exp
        tables, delta_of = self.tables, self._delta
        for _ in range(moves):
            temp *= cooling
            r = randrange(self.rounds)
            groups = self.group[r]
            ta = randrange(tables)
            ia = randrange(SEATS)
            if self.out[r] and (tables == 1 or rand() < SIT_OUT_MOVES):
                self._sit_out_move(r, ta, ia, temp)
                continue
            tb = randrange(tables - 1)
            tb += tb >= ta
            ib = randrange(SEATS)
            ga, gb = groups[ta], groups[tb]
            a, b = ga[ia], gb[ib]
            delta = delta_of(a, ga, gb, b) + delta_of(b, gb, ga, a)
            if delta <= 0 or rand() < exp(-delta / temp):
                self._join(a, ga, -1)
                self._join(b, gb, -1)
                ga[ia], gb[ib] = b, a
                self.where[r][a], self.where[r][b] = tb, ta
                self._join(a, gb, +1)
                self._join(b, ga, +1)

    def _swap_out(self, r: int, t: int, i: int, k: int) -> None:
        """Seated player i of table t and sitting-out player k trade places in round r."""
        group, out = self.group[r][t], self.out[r]
        a, b = group[i], out[k]
        self._join(a, group, -1)
        group[i], out[k] = b, a
        self._join(b, group, +1)
        self.where[r][a], self.where[r][b] = -1, t
        self.games[a] -= 1
        self.games[b] += 1

    def _sit_out_delta(self, r: int, t: int, i: int, k: int) -> float:
        group, b = self.group[r][t], self.out[r][k]
        return self._delta(group[i], group, [], -1) + self._delta(b, [], group, group[i])

    def _sit_out_move(self, r: int, ta: int, ia: int, temp: float) -> None:
        rng = self.rng
        k = rng.randrange(len(self.out[r]))
        a, b = self.group[r][ta][ia], self.out[r][k]
        delta = self._sit_out_delta(r, ta, ia, k)
        if self.games[a] - 1 >= self.games_min and self.games[b] + 1 <= self.games_max:
            if delta <= 0 or rng.random() < math.exp(-delta / temp):
                self._swap_out(r, ta, ia, k)
            return
        # Equal games: b also sits out instead of a in a round where b plays.
        rounds = [q for q in range(self.rounds) if self.where[q][a] < 0 <= self.where[q][b]]
        if not rounds:
            return
        r2 = rounds[rng.randrange(len(rounds))]
        self._swap_out(r, ta, ia, k)
        tb = self.where[r2][b]
        ib, k2 = self.group[r2][tb].index(b), self.out[r2].index(a)
        delta += self._sit_out_delta(r2, tb, ib, k2)
        if delta <= 0 or rng.random() < math.exp(-delta / temp):
            self._swap_out(r2, tb, ib, k2)
        else:
            self._swap_out(r, ta, ia, k)  # undo: the same trade again


def _seats(players: int, plan: list[list[list[int]]]) -> list[list[list[int]]]:
    """Phase 2: each table's seat order, the groups fixed. Table-rounds and
    players form a bipartite graph (an edge: a player at a table in a round);
    a proper colouring of its edges with ten colours, colour = seat, seats
    everyone at most once in each seat for every ten games. König's theorem
    says ten colours suffice when no vertex has more than ten edges, so each
    player is split into one vertex per ten of their games."""
    edges: list[tuple[int, int]] = []
    played = [0] * players
    for rnd in plan:
        for group in rnd:
            left = len(edges) // SEATS
            for p in group:
                edges.append((left, p + players * (played[p] // SEATS)))
                played[p] += 1
    colour = _edge_colouring(edges, SEATS)
    out: list[list[list[int]]] = []
    e = 0
    for rnd in plan:
        tables = []
        for group in rnd:
            order = [0] * SEATS
            for p in group:
                order[colour[e]] = p
                e += 1
            tables.append(order)
        out.append(tables)
    return out


def _edge_colouring(edges: list[tuple[int, int]], k: int) -> list[int]:
    """A proper k-colouring of a bipartite multigraph's edges (left, right)
    whose vertices have at most k edges each: each edge takes a colour free
    at both ends, after swapping two colours along an alternating path if
    needed (the path cannot return to the edge's other end in a bipartite
    graph)."""
    at: dict[tuple[int, int], dict[int, int]] = {}  # (side, vertex) -> colour -> edge
    colour = [-1] * len(edges)

    def ends(e: int) -> tuple[tuple[int, int], tuple[int, int]]:
        return (0, edges[e][0]), (1, edges[e][1])

    for e in range(len(edges)):
        u, v = ends(e)
        at_u, at_v = at.setdefault(u, {}), at.setdefault(v, {})
        a = next(c for c in range(k) if c not in at_u)
        if a in at_v:
            b = next(c for c in range(k) if c not in at_v)
            path, node, want = [], v, a
            while want in at.get(node, {}):
                f = at[node][want]
                path.append(f)
                x, y = ends(f)
                node = x if node == y else y
                want = b if want == a else a
            for f in path:
                for end in ends(f):
                    del at[end][colour[f]]
            for f in path:
                colour[f] = b if colour[f] == a else a
                for end in ends(f):
                    at[end][colour[f]] = f
        colour[e] = a
        at_u[a] = e
        at_v[a] = e
    return colour


class Measures(TypedDict):
    players: int
    tables: int
    rounds: int
    games_min: int
    games_max: int
    seat_max: int
    seat_spread_max: int
    players_seat_over_2: int
    hard_seat_max: dict[int, int]
    hard_seats_min: int
    hard_seats_max: int
    pair_mean: float
    pair_min: int
    pair_max: int
    pair_spread: int
    pairs_never_met: int
    pair_counts: dict[int, int]


def measures(sched: Schedule) -> Measures:
    """Fairness figures of a schedule (see the module's docstring)."""
    n = sched.players
    games = [0] * n
    seat = [[0] * SEATS for _ in range(n)]
    meet = [[0] * n for _ in range(n)]
    for rnd in sched.rounds:
        for table in rnd:
            for s, p in enumerate(table):
                games[p] += 1
                seat[p][s] += 1
                for q in table:
                    if q != p:
                        meet[p][q] += 1
    pairs = [meet[p][q] for p in range(n) for q in range(p + 1, n)]
    hard = [sum(seat[p][s - 1] for s in HARD_SEATS) for p in range(n)]
    seat_spread = [max(row) - min(row) for row in seat]
    return {
        "players": n,
        "tables": sched.tables,
        "rounds": len(sched.rounds),
        "games_min": min(games),
        "games_max": max(games),
        "seat_max": max(max(row) for row in seat),
        "seat_spread_max": max(seat_spread),
        "players_seat_over_2": sum(1 for row in seat if max(row) > 2),
        "hard_seat_max": {s: max(seat[p][s - 1] for p in range(n)) for s in HARD_SEATS},
        "hard_seats_min": min(hard),
        "hard_seats_max": max(hard),
        "pair_mean": round(sum(pairs) / len(pairs), 3),
        "pair_min": min(pairs),
        "pair_max": max(pairs),
        "pair_spread": max(pairs) - min(pairs),
        "pairs_never_met": sum(1 for m in pairs if m == 0),
        "pair_counts": {m: pairs.count(m) for m in sorted(set(pairs))},
    }


def swap(sched: Schedule, round: int, a: int, b: int) -> Schedule:
    """The schedule with players a and b exchanging places in one round."""
    if not 0 <= round < len(sched.rounds):
        raise ValueError(f"no round {round}")
    for p in (a, b):
        if not 0 <= p < sched.players:
            raise ValueError(f"no player {p}")

    def moved(p: int) -> int:
        return b if p == a else a if p == b else p

    rounds = list(sched.rounds)
    rounds[round] = tuple(tuple(moved(p) for p in table) for table in rounds[round])
    return Schedule(sched.players, sched.tables, sched.seed, tuple(rounds))


def swap_cost(sched: Schedule, round: int, a: int, b: int) -> dict[str, object]:
    """What swapping a and b in one round costs: the measures before and
    after, the ones that changed, and for each of the two players their own
    figures (games, most times in one seat, fewest and most meetings with
    any other player) before and after."""
    swapped = swap(sched, round, a, b)
    before: Mapping[str, object] = measures(sched)
    after: Mapping[str, object] = measures(swapped)
    changed = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
    return {
        "before": before,
        "after": after,
        "changed": changed,
        "players": {p: {"before": _player(sched, p), "after": _player(swapped, p)} for p in (a, b)},
    }


def _player(sched: Schedule, p: int) -> dict[str, int]:
    seat = [0] * SEATS
    meet = [0] * sched.players
    for rnd in sched.rounds:
        for table in rnd:
            if p in table:
                seat[table.index(p)] += 1
                for q in table:
                    meet[q] += 1
    others = [meet[q] for q in range(sched.players) if q != p]
    return {
        "games": meet[p],
        "seat_max": max(seat),
        "pair_min": min(others),
        "pair_max": max(others),
    }
