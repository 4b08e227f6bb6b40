"""Prequential scoring: every model predicts each game before it learns the
result, in the order the games were played, and is scored only on the games
after ``start`` (the held-out part) while it keeps learning from them.

Scores are on the expected red score y (red 1, draw 0.5, black 0):
log-loss -(y log p + (1 - y) log(1 - p)) with p clipped to [1e-6, 1 - 1e-6],
Brier (p - y)^2, and calibration: the games grouped by predicted p into ten
bins of width 0.1, each bin's mean prediction against its mean observed y.
Two models scored on the same games are compared by the mean of their
per-game log-loss differences and its paired standard error: the games that
are hard for one are mostly hard for the other, so the paired error is far
smaller than either model's own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from omerta.ratings import model
from omerta.ratings.records import GameRecord

CLIP = 1e-6
BINS = 10


class Predictor(Protocol):
    @property
    def name(self) -> str: ...
    def predict(self, g: GameRecord) -> float: ...
    def update(self, g: GameRecord) -> None: ...


class OmertaModel:
    """The project's model (omerta.ratings.model) with the given parameters."""

    def __init__(
        self, params: model.ModelParams = model.DEFAULT_PARAMS, name: str = "omerta"
    ) -> None:
        self.name = name
        self.params = params
        self.ratings: dict[str, model.Rating] = {}
        self.side = model.new_side(params)
        self.newcomer = model.new_rating(params)

    def _teams(self, g: GameRecord) -> tuple[list[model.Rating], list[model.Rating]]:
        new, r = self.newcomer, self.ratings
        return [r.get(i, new) for i in g.red], [r.get(i, new) for i in g.black]

    def predict(self, g: GameRecord) -> float:
        return model.predict(*self._teams(g), self.side)

    def update(self, g: GameRecord) -> None:
        red, black = self._teams(g)
        new_red, new_black, self.side = model.update(red, black, g.winner, self.side, self.params)
        for i, r in zip(g.red + g.black, new_red + new_black):
            self.ratings[i] = r


class TeamElo:
    """Elo on team-mean ratings (start 1500) plus a side term in points added
    to red's mean, learned by the same rule with its own smaller K.  Every
    player of a team moves by K * (score - expected)."""

    def __init__(self, k: float, k_side: float = 1.0) -> None:
        self.name = f"team Elo K={k:g}"
        self.k, self.k_side = k, k_side
        self.r: dict[str, float] = {}
        self.side = 0.0

    def predict(self, g: GameRecord) -> float:
        r = self.r
        d = (
            sum(r.get(i, 1500.0) for i in g.red) / len(g.red)
            - sum(r.get(i, 1500.0) for i in g.black) / len(g.black)
            + self.side
        )
        return 1.0 / (1.0 + math.pow(10.0, -d / 400.0))

    def update(self, g: GameRecord) -> None:
        delta = model.SCORE[g.winner] - self.predict(g)
        for i in g.red:
            self.r[i] = self.r.get(i, 1500.0) + self.k * delta
        for i in g.black:
            self.r[i] = self.r.get(i, 1500.0) - self.k * delta
        self.side += self.k_side * delta


class Constant:
    """The running red score so far (one pseudo-game at 0.5 to start)."""

    name = "constant (running red score)"

    def __init__(self) -> None:
        self.total, self.n = 0.5, 1

    def predict(self, g: GameRecord) -> float:
        return self.total / self.n

    def update(self, g: GameRecord) -> None:
        self.total += model.SCORE[g.winner]
        self.n += 1


@dataclass(frozen=True)
class Bin:
    lo: float
    hi: float
    games: int
    predicted: float
    observed: float


@dataclass(frozen=True)
class Score:
    name: str
    games: int
    log_loss: float
    brier: float
    calibration: tuple[Bin, ...] = field(default=())
    losses: tuple[float, ...] = field(default=(), repr=False)
    """Each scored game's log-loss, in order."""

    def calibration_rows(self) -> list[dict[str, object]]:
        """The bins as the reports' JSON gives them."""
        return [
            {
                "bin": [b.lo, b.hi],
                "games": b.games,
                "predicted": round(b.predicted, 4),
                "observed": round(b.observed, 4),
            }
            for b in self.calibration
        ]


def loss(p: float, y: float) -> float:
    pc = min(max(p, CLIP), 1.0 - CLIP)
    return -(y * math.log(pc) + (1.0 - y) * math.log(1.0 - pc))


def paired_margin(ours: Sequence[float], other: Sequence[float]) -> tuple[float, float]:
    """Mean per-game log-loss of ``other`` minus ``ours`` over the same games
    (positive: ours is better) and its paired standard error (nan for fewer
    than two games)."""
    if len(ours) != len(other) or not ours:
        raise ValueError("the two models must be scored on the same, non-empty games")
    d = [b - a for a, b in zip(ours, other)]
    n = len(d)
    mean = sum(d) / n
    if n < 2:
        return mean, math.nan
    return mean, math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)


def score(predictor: Predictor, games: Sequence[GameRecord], start: int = 0) -> Score:
    """Run ``predictor`` over all games; score those from index ``start`` on."""
    br = 0.0
    losses: list[float] = []
    sums = [[0, 0.0, 0.0] for _ in range(BINS)]
    for t, g in enumerate(games):
        p = predictor.predict(g)
        if t >= start:
            y = model.SCORE[g.winner]
            losses.append(loss(p, y))
            br += (p - y) ** 2
            b = sums[min(BINS - 1, int(p * BINS))]
            b[0] += 1
            b[1] += p
            b[2] += y
        predictor.update(g)
    n = len(games) - start
    bins = tuple(
        Bin(i / BINS, (i + 1) / BINS, int(c), p / c, y / c) for i, (c, p, y) in enumerate(sums) if c
    )
    return Score(
        predictor.name,
        n,
        sum(losses) / n if n else math.nan,
        br / n if n else math.nan,
        bins,
        tuple(losses),
    )
