"""Simulated ranked seasons: the Omerta rating model against baselines.

    .venv/bin/python bench/ratings.py [--world wide|real|both] [--players N] [--games N] [--seed 1]
        [--write GAMES.jsonl] [--features] [--role-effect R] [--joint] [--seeds N]

Worlds (assumptions, not data): each player has a hidden skill, initially
N(0, 1), that random-walks a little (sd SKILL_DRIFT) with every game played.
A game takes 10 distinct players, 3 of them black and 7 red at random.  With
d = skill_weight * (mean red skill - mean black skill) + side and
q = logistic(d), the game is a draw with probability
draw_max * (1 - |2q - 1|) (close games draw more) and otherwise red wins with
probability q.

* "wide" (2,000 players, 20,000 games, players drawn uniformly): skill_weight
  1.5, side +0.3, draw_max 0.07; one player's skill sd is 260 Elo points,
  red wins ~57 % of decisive games between equal teams, ~4.5 % draws.
* "real" (600 players, 5,000 games, like the one real club's record of issue
  20): skill_weight 0.7 (skill sd about 120 Elo points, so team means differ by
  tens of points), side -0.22 (red wins ~44 %), draw_max 0.01; each player's share
  of the games is lognormal (sigma 1): a few regulars play most games.

Every model sees the same games in the same order and predicts each game
before it learns the result (prequential).  Metrics:

* log-loss and Brier score of the predicted red score against the result
  (red 1, draw 0.5, black 0) over the second half of the games; predictions
  are clipped to [1e-6, 1 - 1e-6] before the log.
* Spearman@N: right after a player's N-th game we record the model's point
  estimate of that player (mu; the rating for Elo) and their hidden skill at
  that moment; Spearman@N is the rank correlation of the two over all players
  who reached N games.  Skipped (-) for models without per-player ratings.
* us/update: wall-clock microseconds per game spent in the model's update.

"omerta (fitted)" runs with parameters chosen by omerta.ratings.fit on the
first half of the same season (the prequential likelihood; no look-ahead into
the scored half).  Team Elo runs at several K; the best one (picked on the
scored half itself, which flatters it) is the baseline to beat.

"oracle" predicts with the true probabilities (a floor for the losses, not a
competitor).  "omerta (world's parameters)" is the model run with the
parameters the world was drawn with (sigma0 = one skill unit in Elo points,
tau = SKILL_DRIFT of it, no side drift): what a perfect fit would reach, also
not a competitor.  With --joint, "joint filter (world's parameters)" adds
the same filter keeping every correlation between players' beliefs
(bench/ratings_joint.py, needs numpy; slow beyond a thousand players).  The
margin of each of our rows over the best team Elo is the mean per-game
difference of log-loss over the scored games, with its paired standard error;
--seeds N runs seeds --seed to --seed + N - 1 and ends with a table of them
and the margins pooled over the seeds (mean, and the standard error of the
mean: the seeds are independent).  The Elo K-factors (best log-loss on a small grid) were picked,
like the Omerta defaults, on tuning seeds 1001 and 1002, not on the reported
ones; openskill and trueskill run with their package defaults.  Needs the ``bench`` extra
(openskill, trueskill); no network.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from omerta.ratings import features as omfeatures
from omerta.ratings import fit as omfit
from omerta.ratings import model as om
from omerta.ratings import prequential as ompreq
from omerta.ratings.records import GameRecord

if TYPE_CHECKING:  # the bench extra: imported when a model is made
    from openskill.models import PlackettLuceRating

SKILL_DRIFT = 0.02
CHECKPOINTS = (10, 25, 50, 100)
CLIP = 1e-6


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@dataclass(frozen=True)
class World:
    name: str
    players: int
    games: int
    skill_weight: float
    side: float
    draw_max: float
    activity_sigma: float
    """sd of log(a player's share of games); 0: every player equally often."""


def world_params(world: World) -> om.ModelParams:
    """The model's parameters that match how ``world`` draws its games."""
    unit = world.skill_weight * om.ELO_SCALE  # one unit of hidden skill, in Elo points
    return replace(
        om.DEFAULT_PARAMS,
        sigma0=unit,
        tau=SKILL_DRIFT * unit,
        # The side is a constant: a prior as wide as it is, and no drift.
        side_sigma0=abs(world.side) * om.ELO_SCALE,
        side_tau=0.0,
    )


WORLDS = {
    "wide": World(
        "wide", 2000, 20000, skill_weight=1.5, side=0.3, draw_max=0.07, activity_sigma=0.0
    ),
    "real": World(
        "real", 600, 5000, skill_weight=0.7, side=-0.22, draw_max=0.01, activity_sigma=1.0
    ),
}
ELO_KS = (4.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0)
FITTED = "omerta (fitted)"
DEFAULTS = "omerta (defaults)"
WORLD_PARAMS = "omerta (world's parameters)"
JOINT = "joint filter (world's parameters)"
REFERENCES = ("oracle (true probabilities)", WORLD_PARAMS, JOINT)


@dataclass(frozen=True)
class Game:
    red: tuple[int, ...]
    black: tuple[int, ...]
    outcome: str
    true_p: float  # oracle's expected red score
    don: int
    sheriff: int
    first_killed: int
    days: tuple[tuple[int, int], ...]  # (player, days survived)

    def record(self) -> GameRecord:
        """The game as `omerta ratings evaluate` reads it (player p7 is "p7")."""
        outcome: om.Outcome = self.outcome  # type: ignore[assignment]
        return GameRecord(
            tuple(f"p{i}" for i in self.red),
            tuple(f"p{i}" for i in self.black),
            outcome,
            roles=((f"p{self.don}", "don"), (f"p{self.sheriff}", "sheriff")),
            first_killed=f"p{self.first_killed}",
            days=tuple((f"p{i}", n) for i, n in self.days),
        )


@dataclass(frozen=True)
class Season:
    games: list[Game]
    # checkpoint -> {player: hidden skill right after their N-th game}
    skill_at: dict[int, dict[int, float]]


def _ten(rng: random.Random, everyone: range, activity: list[float] | None) -> list[int]:
    if activity is None:
        return rng.sample(everyone, 10)
    ten: list[int] = []
    while len(ten) < 10:  # weighted, without repeats, in drawing order
        i = rng.choices(everyone, cum_weights=activity)[0]
        if i not in ten:
            ten.append(i)
    return ten


def _story(
    rng: random.Random, red: tuple[int, ...], black: tuple[int, ...]
) -> tuple[int, int, int, tuple[tuple[int, int], ...]]:
    """Who is Don and Sheriff, who dies first, how many days each survives:
    drawn at random (from their own generator, so the games themselves do not
    change); none of it touches the result unless role_effect is set."""
    don, sheriff = rng.choice(black), rng.choice(red)
    first = rng.choice([i for i in red if i != sheriff])
    length = rng.randint(2, 5)
    days = tuple((i, 0 if i == first else rng.randint(1, length)) for i in red + black)
    return don, sheriff, first, days


def _strength(
    team: tuple[int, ...], skill: list[float], heavy: tuple[int, int], role_effect: float
) -> float:
    """Weighted mean skill, the Don and Sheriff counting 1 + role_effect times."""
    w = [1.0 + role_effect if i in heavy else 1.0 for i in team]
    return sum(wi * skill[i] for wi, i in zip(w, team)) / sum(w)


def simulate(
    n_players: int,
    n_games: int,
    seed: int,
    world: World = WORLDS["wide"],
    role_effect: float = 0.0,
) -> Season:
    """A season; with ``role_effect`` r the Don's and Sheriff's skill counts
    (1 + r) times a teammate's in their team's strength (0: team means)."""
    rng = random.Random(seed)
    story = random.Random(seed + 1_000_003)
    skill = [rng.gauss(0.0, 1.0) for _ in range(n_players)]
    activity = None
    if world.activity_sigma > 0:
        weights = [rng.lognormvariate(0.0, world.activity_sigma) for _ in range(n_players)]
        activity = [sum(weights[: i + 1]) for i in range(n_players)]
    played = [0] * n_players
    skill_at: dict[int, dict[int, float]] = {n: {} for n in CHECKPOINTS}
    games = []
    for _ in range(n_games):
        ten = _ten(rng, range(n_players), activity)
        red, black = tuple(ten[:7]), tuple(ten[7:])
        don, sheriff, first, days = _story(story, red, black)
        heavy = (don, sheriff)
        d = (
            world.skill_weight
            * (
                _strength(red, skill, heavy, role_effect)
                - _strength(black, skill, heavy, role_effect)
            )
            + world.side
        )
        q = logistic(d)
        p_draw = world.draw_max * (1.0 - abs(2.0 * q - 1.0))
        u = rng.random()
        outcome = "draw" if u < p_draw else ("red" if u < p_draw + (1 - p_draw) * q else "black")
        games.append(Game(red, black, outcome, q - p_draw * (q - 0.5), don, sheriff, first, days))
        for i in ten:
            skill[i] += rng.gauss(0.0, SKILL_DRIFT)
            played[i] += 1
            if played[i] in skill_at:
                skill_at[played[i]][i] = skill[i]
    return Season(games, skill_at)


class Model(Protocol):
    name: str

    def predict(self, g: Game) -> float: ...
    def update(self, g: Game) -> None: ...
    def rating(self, player: int) -> float | None: ...


class Oracle:
    name = "oracle (true probabilities)"

    def predict(self, g: Game) -> float:
        return g.true_p

    def update(self, g: Game) -> None:
        pass

    def rating(self, player: int) -> None:
        return None


class Constant:
    name = "constant (running red score)"

    def __init__(self) -> None:
        self.total, self.n = 0.5, 1  # one pseudo-game at 0.5

    def predict(self, g: Game) -> float:
        return self.total / self.n

    def update(self, g: Game) -> None:
        self.total += om.SCORE[g.outcome]
        self.n += 1

    def rating(self, player: int) -> None:
        return None


class TeamElo:
    """Elo on team-average ratings plus an Elo-updated side term; every player
    of a team moves by the same K * (score - expected)."""

    def __init__(self, k: float = 32.0, k_side: float = 0.5) -> None:
        self.name = f"team-average Elo + side, K={k:g}"
        self.k, self.k_side = k, k_side
        self.r: dict[int, float] = {}
        self.side = 0.0

    def _p(self, g: Game) -> float:
        r = self.r
        d = sum(r.get(i, 1500.0) for i in g.red) / len(g.red) - sum(
            r.get(i, 1500.0) for i in g.black
        ) / len(g.black)
        return 1.0 / (1.0 + 10.0 ** (-(d + self.side) / 400.0))

    def predict(self, g: Game) -> float:
        return self._p(g)

    def update(self, g: Game) -> None:
        delta = om.SCORE[g.outcome] - self._p(g)
        for i in g.red:
            self.r[i] = self.r.get(i, 1500.0) + self.k * delta
        for i in g.black:
            self.r[i] = self.r.get(i, 1500.0) - self.k * delta
        self.side += self.k_side * delta

    def rating(self, player: int) -> float:
        return self.r.get(player, 1500.0)


class OpenSkillPL:
    """openskill's PlackettLuce with its defaults (team skill = sum)."""

    name = "openskill PlackettLuce (default)"

    def __init__(self) -> None:
        from openskill.models import PlackettLuce

        self.m = PlackettLuce()
        self.r: dict[int, PlackettLuceRating] = {}

    def _teams(self, g: Game) -> list[list[PlackettLuceRating]]:
        return [
            [self.r.get(i) or self.m.rating() for i in g.red],
            [self.r.get(i) or self.m.rating() for i in g.black],
        ]

    def predict(self, g: Game) -> float:
        return self.m.predict_win(self._teams(g))[0]

    def update(self, g: Game) -> None:
        ranks = {"red": [0.0, 1.0], "black": [1.0, 0.0], "draw": [0.0, 0.0]}[g.outcome]
        new_red, new_black = self.m.rate(self._teams(g), ranks=ranks)
        for i, r in zip(g.red + g.black, list(new_red) + list(new_black)):
            self.r[i] = r

    def rating(self, player: int) -> float:
        r = self.r.get(player)
        return r.mu if r is not None else self.m.mu


class TrueSkill:
    """trueskill package with its defaults (team performance = sum); win
    probability from the package documentation's formula."""

    name = "trueskill (default)"

    def __init__(self) -> None:
        import trueskill

        self.env = trueskill.TrueSkill()
        self.r: dict[int, Any] = {}  # trueskill.Rating: the package has no type information

    def _teams(self, g: Game) -> tuple[list, list]:
        new = self.env.create_rating
        return [self.r.get(i) or new() for i in g.red], [self.r.get(i) or new() for i in g.black]

    def predict(self, g: Game) -> float:
        red, black = self._teams(g)
        delta = sum(r.mu for r in red) - sum(r.mu for r in black)
        var = sum(r.sigma**2 for r in red + black)
        return self.env.cdf(delta / math.sqrt(len(red + black) * self.env.beta**2 + var))

    def update(self, g: Game) -> None:
        ranks = {"red": [0, 1], "black": [1, 0], "draw": [0, 0]}[g.outcome]
        new_red, new_black = self.env.rate(list(self._teams(g)), ranks=ranks)
        for i, r in zip(g.red + g.black, list(new_red) + list(new_black)):
            self.r[i] = r

    def rating(self, player: int) -> float:
        r = self.r.get(player)
        return r.mu if r is not None else self.env.mu


class Omerta:
    def __init__(self, params: om.ModelParams = om.DEFAULT_PARAMS, name: str = DEFAULTS) -> None:
        self.name = name
        self.params = params
        self.r: dict[int, om.Rating] = {}
        self.side = om.new_side(params)
        self.newcomer = om.new_rating(params)

    def _teams(self, g: Game) -> tuple[list[om.Rating], list[om.Rating]]:
        new = self.newcomer
        return [self.r.get(i, new) for i in g.red], [self.r.get(i, new) for i in g.black]

    def predict(self, g: Game) -> float:
        return om.predict(*self._teams(g), self.side)

    def update(self, g: Game) -> None:
        red, black = self._teams(g)
        outcome: om.Outcome = g.outcome  # type: ignore[assignment]
        new_red, new_black, self.side = om.update(red, black, outcome, self.side, self.params)
        for i, r in zip(g.red + g.black, new_red + new_black):
            self.r[i] = r

    def rating(self, player: int) -> float:
        r = self.r.get(player)
        return r.mu if r is not None else self.params.mu0


def ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=xs.__getitem__)
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):  # ties share their average rank
            out[order[k]] = (i + j) / 2.0
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    n = len(ra)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va and vb else float("nan")


@dataclass
class Result:
    name: str
    log_loss: float
    brier: float
    spearman: dict[int, float | None]
    us_per_update: float
    losses: list[float]
    """Each scored game's log-loss, in order (for paired comparisons)."""


def evaluate(model: Model, season: Season) -> Result:
    half = len(season.games) // 2
    br = 0.0
    losses: list[float] = []
    played: dict[int, int] = {}
    snap: dict[int, dict[int, float]] = {n: {} for n in CHECKPOINTS}
    spent = 0
    for t, g in enumerate(season.games):
        p = model.predict(g)
        if t >= half:
            y = om.SCORE[g.outcome]
            pc = min(max(p, CLIP), 1.0 - CLIP)
            losses.append(-(y * math.log(pc) + (1.0 - y) * math.log(1.0 - pc)))
            br += (p - y) ** 2
        t0 = time.perf_counter_ns()
        model.update(g)
        spent += time.perf_counter_ns() - t0
        for i in g.red + g.black:
            played[i] = played.get(i, 0) + 1
            if played[i] in snap:
                r = model.rating(i)
                if r is not None:
                    snap[played[i]][i] = r
    n = len(season.games) - half
    rho: dict[int, float | None] = {}
    for c in CHECKPOINTS:
        players = sorted(snap[c])
        if len(players) < 3:
            rho[c] = None
            continue
        rho[c] = spearman([snap[c][i] for i in players], [season.skill_at[c][i] for i in players])
    return Result(
        model.name, sum(losses) / n, br / n, rho, spent / 1000.0 / len(season.games), losses
    )


def table(results: list[Result], season: Season) -> str:
    reached = {c: len(season.skill_at[c]) for c in CHECKPOINTS}
    head = (
        ["model", "log-loss", "Brier"]
        + [f"Spearman@{c} (n={reached[c]})" for c in CHECKPOINTS]
        + ["us/update"]
    )
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|",
    ]
    for r in results:
        cells = [r.name, f"{r.log_loss:.4f}", f"{r.brier:.4f}"]
        cells += ["-" if r.spearman[c] is None else f"{r.spearman[c]:.3f}" for c in CHECKPOINTS]
        cells.append(f"{r.us_per_update:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def best_elo(results: list[Result]) -> Result:
    return min(
        (r for r in results if r.name.startswith("team-average Elo")), key=lambda r: r.log_loss
    )


def margin(ours: Result, other: Result) -> tuple[float, float]:
    """Mean per-game log-loss of ``other`` minus ``ours`` (positive: ours is
    better) and its paired standard error."""
    return ompreq.paired_margin(ours.losses, other.losses)


def target_met(results: list[Result]) -> tuple[bool, bool]:
    """(the fitted model has a lower log-loss than every baseline, the
    references and the model itself with its defaults aside; its Spearman is
    >= the best-K team Elo's at every checkpoint)"""
    by = {r.name: r for r in results}
    ours, elo = by[FITTED], best_elo(results)
    best_ll = all(
        ours.log_loss < r.log_loss for r in results if r.name not in (FITTED, DEFAULTS, *REFERENCES)
    )
    rho_ok = all((ours.spearman[c] or 0.0) >= (elo.spearman[c] or 0.0) for c in CHECKPOINTS)
    return best_ll, rho_ok


def fitted_params(season: Season) -> omfit.Fit:
    """Parameters fitted on the first (unscored) half only."""
    half = season.games[: len(season.games) // 2]
    return omfit.fit([g.record() for g in half])


def write_record(season: Season, path: str) -> None:
    """The season as a game record (docs/ratings.md), for `omerta ratings evaluate`."""
    with open(path, "w") as f:
        for g in season.games:
            r = g.record()
            line = {
                "red": list(r.red),
                "black": list(r.black),
                "winner": r.winner,
                "roles": dict(r.roles),
                "first_killed": r.first_killed,
                "days": dict(r.days),
            }
            f.write(json.dumps(line) + "\n")


def run(
    world: World,
    players: int,
    games: int,
    seed: int,
    record: str | None = None,
    role_effect: float = 0.0,
    features: bool = False,
    joint: bool = False,
) -> dict[str, Result]:
    season = simulate(players, games, seed, world, role_effect)
    if record:
        write_record(season, record)
    fitted = fitted_params(season)
    models: list[Model] = [
        Oracle(),
        Constant(),
        *(TeamElo(k) for k in ELO_KS),
        OpenSkillPL(),
        TrueSkill(),
        Omerta(),
        Omerta(fitted.params, FITTED),
        Omerta(world_params(world), WORLD_PARAMS),
    ]
    if joint:
        from ratings_joint import JointFilter  # numpy: the bench extra

        models.append(JointFilter(players, world_params(world), JOINT))
    results = [evaluate(m, season) for m in models]

    outcomes = [g.outcome for g in season.games]
    share = {o: outcomes.count(o) / len(outcomes) for o in ("red", "black", "draw")}
    scored = len(outcomes) - len(outcomes) // 2
    p = fitted.params
    print(
        f"## {world.name} world: {players} players, {games} games (3 black vs 7 red), seed {seed}: "
        f"red {share['red']:.1%}, black {share['black']:.1%}, draw {share['draw']:.1%}; "
        f"losses over the last {scored} games\n\n"
        f"fitted on the first half ({fitted.runs} runs): sigma0 {p.sigma0:.1f}, tau {p.tau:.3g}, "
        f"side_sigma0 {p.side_sigma0:.1f}, side_tau {p.side_tau:.3g}\n"
    )
    print(table(results, season))
    ll_ok, rho_ok = target_met(results)
    elo = best_elo(results)
    print(f"\nbest team Elo: {elo.name}")
    for r in results:
        if r.name in (FITTED, WORLD_PARAMS, JOINT):
            m, se = margin(r, elo)
            print(f"margin of {r.name} over it: {m:+.4f} ± {se:.4f} (paired SE)")
    print(
        f"target (omerta fitted: lowest log-loss of all baselines, team Elo at its best K included): "
        f"{'met' if ll_ok else 'NOT met'}; Spearman >= best team Elo at every checkpoint: "
        f"{'yes' if rho_ok else 'no'}\n"
    )
    if features:
        found = omfeatures.compare([g.record() for g in season.games], params=p)
        print(
            "features beyond the winner (coefficient fitted on the first half with the fitted"
            f" parameters; gain = log-loss without minus with; role effect {role_effect:g}):\n"
        )
        print(omfeatures.table(found) + "\n")
    ours = {r.name: r for r in results if r.name in (FITTED, WORLD_PARAMS, JOINT)}
    return {**ours, "elo": elo}


def pooled(rows: dict[int, dict[str, Result]]) -> str:
    """One line per seed (log-losses and margins over the best team Elo) and
    the margins pooled over the seeds."""
    names = [n for n in (FITTED, WORLD_PARAMS, JOINT) if all(n in r for r in rows.values())]
    head = ["seed", *names, "best team Elo (K)", *(f"margin: {n}" for n in names)]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---:"] * len(head)) + "|"]
    margins = {n: [margin(r[n], r["elo"]) for r in rows.values()] for n in names}
    for i, (seed, r) in enumerate(rows.items()):
        k = r["elo"].name.rsplit("K=", 1)[1]
        cells = [str(seed), *(f"{r[n].log_loss:.4f}" for n in names)]
        cells.append(f"{r['elo'].log_loss:.4f} ({k})")
        cells += [f"{margins[n][i][0]:+.4f} ± {margins[n][i][1]:.4f}" for n in names]
        lines.append("| " + " | ".join(cells) + " |")
    for n in names:
        ms = margins[n]
        mean = sum(m for m, _ in ms) / len(ms)
        se = math.sqrt(sum(e * e for _, e in ms)) / len(ms)
        won = sum(m > 0 for m, _ in ms)
        lines.append(
            f"\n{n}: lower log-loss than the best team Elo on {won} of {len(ms)} seeds;"
            f" pooled margin {mean:+.4f} ± {se:.4f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--world", choices=[*WORLDS, "both"], default="both")
    ap.add_argument("--players", type=int, help="players (default: the world's)")
    ap.add_argument("--games", type=int, help="games (default: the world's)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--seeds", type=int, default=1, help="run this many seeds from --seed on (default 1)"
    )
    ap.add_argument(
        "--write",
        metavar="GAMES.jsonl",
        help="also write the (last) world's season as a game record for `omerta ratings evaluate`",
    )
    ap.add_argument(
        "--role-effect",
        type=float,
        default=0.0,
        help="the Don's and Sheriff's skill counts 1 + this times a teammate's (default 0)",
    )
    ap.add_argument(
        "--features",
        action="store_true",
        help="also test the roles, first-killed and days-survived features (omerta.ratings.features)",
    )
    ap.add_argument(
        "--joint",
        action="store_true",
        help="also run the filter with a joint covariance over all players (needs numpy)",
    )
    args = ap.parse_args(argv)
    if (args.players is not None and args.players < 10) or (
        args.games is not None and args.games < 2
    ):
        ap.error("need at least 10 players and 2 games")
    if args.seeds < 1:
        ap.error("--seeds must be at least 1")
    worlds = list(WORLDS.values()) if args.world == "both" else [WORLDS[args.world]]
    for world in worlds:
        rows = {
            seed: run(
                world,
                args.players or world.players,
                args.games or world.games,
                seed,
                args.write,
                args.role_effect,
                args.features,
                args.joint,
            )
            for seed in range(args.seed, args.seed + args.seeds)
        }
        if args.seeds > 1:
            print(f"## {world.name} world, seeds {args.seed}-{args.seed + args.seeds - 1}\n")
            print(pooled(rows) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
