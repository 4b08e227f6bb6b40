"""Would what a record carries beyond the winner predict better?  (issue 20)

Three candidate features, each with one coefficient:

* ``roles``: the Don's and the Sheriff's skill counts (1 + a) times a
  teammate's in their team's strength (a = 0: the team mean), in the
  prediction and in the update alike.  The server knows the deal before the
  first night, so a prediction may use it.
* ``first_killed``: the first-killed player gets the share b of their usual
  credit for the result (b = 1: as everyone), in the update only: nobody
  knows who dies first before the game.
* ``days``: each player's credit is (days survived / the game's most days
  survived) ^ c (c = 0: everyone alike), in the update only.

``compare`` fits the model's parameters on the first part of a record (as
``omerta ratings evaluate`` does), then each feature's coefficient on the
same first part with those parameters held, and scores the model without
and with each feature prequentially on the rest.  A feature earns a place in
the model only if it lowers the held-out log-loss by clearly more than the
paired standard error of the difference; docs/ratings.md keeps the evidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omerta.ratings import model
from omerta.ratings.fit import fit
from omerta.ratings.prequential import OmertaModel, loss
from omerta.ratings.records import GameRecord

HEAVY_ROLES = ("don", "sheriff")

# Each feature's coefficient: its neutral value (the model as it is) and the
# range searched.
NEUTRAL = {"roles": 0.0, "first_killed": 1.0, "days": 0.0}
RANGE = {"roles": (-0.9, 6.0), "first_killed": (0.0, 1.0), "days": (0.0, 3.0)}
FEATURES: tuple[str, ...] = tuple(NEUTRAL)


def _has(g: GameRecord, feature: str) -> bool:
    if feature == "roles":
        return any(role in HEAVY_ROLES for _, role in g.roles)
    if feature == "first_killed":
        return g.first_killed is not None
    return bool(g.days)


def weights(g: GameRecord, a: float) -> model.Weights | None:
    """Team strength with the Don's and Sheriff's skill counted (1 + a) times."""
    heavy = {p for p, role in g.roles if role in HEAVY_ROLES}
    if not heavy or a == 0.0:
        return None

    def team(ids: tuple[str, ...]) -> list[float]:
        raw = [1.0 + a if p in heavy else 1.0 for p in ids]
        total = sum(raw)
        return [w / total for w in raw]

    return team(g.red), team(g.black)


def credit(g: GameRecord, feature: str, coef: float) -> model.Weights | None:
    """Each player's share of their usual credit for the result (at most 1)."""
    if feature == "first_killed" and g.first_killed is not None and coef != 1.0:
        share = {g.first_killed: coef}
    elif feature == "days" and g.days and coef != 0.0:
        most = max(n for _, n in g.days)
        share = {p: (n / most) ** coef if most else 1.0 for p, n in g.days}
    else:
        return None
    return [share.get(p, 1.0) for p in g.red], [share.get(p, 1.0) for p in g.black]


class FeatureModel(OmertaModel):
    """The model with one feature at coefficient ``coef``."""

    def __init__(self, params: model.ModelParams, feature: str, coef: float) -> None:
        if feature not in NEUTRAL:
            raise ValueError(f"no feature {feature!r}: features are {', '.join(FEATURES)}")
        super().__init__(params, f"omerta + {feature} ({coef:.3g})")
        self.feature, self.coef = feature, coef

    def _weights(self, g: GameRecord) -> model.Weights | None:
        return weights(g, self.coef) if self.feature == "roles" else None

    def predict(self, g: GameRecord) -> float:
        return model.predict(*self._teams(g), self.side, self._weights(g))

    def update(self, g: GameRecord) -> None:
        red, black = self._teams(g)
        new_red, new_black, self.side = model.update(
            red,
            black,
            g.winner,
            self.side,
            self.params,
            self._weights(g),
            credit(g, self.feature, self.coef),
        )
        for i, r in zip(g.red + g.black, new_red + new_black):
            self.ratings[i] = r


def losses(m: OmertaModel, games: Sequence[GameRecord], start: int = 0) -> list[float]:
    """The model's prequential log-loss on each of games[start:]."""
    out = []
    for t, g in enumerate(games):
        if t >= start:
            out.append(loss(m.predict(g), model.SCORE[g.winner]))
        m.update(g)
    return out


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan


def fit_coef(
    games: Sequence[GameRecord], params: model.ModelParams, feature: str, steps: int = 12
) -> tuple[float, float]:
    """The coefficient (and its log-loss) minimising the prequential
    log-loss over ``games``: a grid of 7 over the feature's range, then a
    golden-section search around the best point."""
    lo, hi = RANGE[feature]

    def f(c: float) -> float:
        return _mean(losses(FeatureModel(params, feature, c), games))

    grid = [lo + (hi - lo) * i / 6 for i in range(7)] + [NEUTRAL[feature]]
    scored = sorted((f(c), c) for c in grid)
    best_f, best = scored[0]
    i = sorted(grid).index(best)
    a, b = sorted(grid)[max(0, i - 1)], sorted(grid)[min(len(grid) - 1, i + 1)]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(steps):
        c1, c2 = b - ratio * (b - a), a + ratio * (b - a)
        f1, f2 = f(c1), f(c2)
        if f1 < f2:
            b = c2
            if f1 < best_f:
                best_f, best = f1, c1
        else:
            a = c1
            if f2 < best_f:
                best_f, best = f2, c2
    return best, best_f


@dataclass(frozen=True)
class FeatureResult:
    feature: str
    games_with_it: int
    """Held-out games whose record carries the feature."""
    coef: float
    neutral: float
    train_gain: float
    """Log-loss on the first part without the feature minus with it."""
    held_out_gain: float
    """The same on the held-out part: > 0 means the feature helped."""
    se: float
    """Paired standard error of held_out_gain."""

    @property
    def helps(self) -> bool:
        """Clearly better out of sample: the gain is over two standard errors."""
        return self.held_out_gain > 2.0 * self.se


def compare(
    games: Sequence[GameRecord],
    train: float = 0.5,
    features: Sequence[str] = FEATURES,
    params: model.ModelParams | None = None,
    fitter: Callable[[Sequence[GameRecord]], model.ModelParams] = lambda gs: fit(gs).params,
) -> list[FeatureResult]:
    """Each feature the record carries, fitted on the first ``train`` share
    and scored on the rest against the model without it."""
    start = int(len(games) * train)
    if start < 1 or start >= len(games):
        raise ValueError(f"{len(games)} games cannot be split into a fitting and a held-out part")
    head = games[:start]
    p = params or fitter(head)
    base_train = _mean(losses(OmertaModel(p), head))
    base = losses(OmertaModel(p), games, start)
    results = []
    for feature in features:
        if not any(_has(g, feature) for g in games):
            continue
        coef, train_ll = fit_coef(head, p, feature)
        with_it = losses(FeatureModel(p, feature, coef), games, start)
        diff = [b - w for b, w in zip(base, with_it)]
        gain = _mean(diff)
        sd = math.sqrt(sum((d - gain) ** 2 for d in diff) / max(1, len(diff) - 1))
        results.append(
            FeatureResult(
                feature,
                sum(_has(g, feature) for g in games[start:]),
                coef,
                NEUTRAL[feature],
                base_train - train_ll,
                gain,
                sd / math.sqrt(len(diff)),
            )
        )
    return results


def table(results: Sequence[FeatureResult]) -> str:
    lines = [
        "| feature | held-out games with it | coefficient (neutral) | gain on the first part"
        " | held-out gain | paired SE | helps |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    lines += [
        f"| {r.feature} | {r.games_with_it} | {r.coef:.3g} ({r.neutral:g}) | {r.train_gain:+.5f}"
        f" | {r.held_out_gain:+.5f} | {r.se:.5f} | {'yes' if r.helps else 'no'} |"
        for r in results
    ]
    return "\n".join(lines)
