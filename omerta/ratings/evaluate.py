"""`omerta ratings evaluate`: our model, with parameters fitted on the first
part of a record only, against simple and well-known baselines on the rest
(prequential: omerta.ratings.prequential)."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from omerta.ratings import model
from omerta.ratings.fit import Fit, fit
from omerta.ratings.prequential import (
    Constant,
    OmertaModel,
    Predictor,
    Score,
    TeamElo,
    paired_margin,
    score,
)
from omerta.ratings.records import GameRecord

ELO_KS: tuple[float, ...] = (4.0, 8.0, 12.0, 16.0, 24.0, 32.0)


class TrueSkillModel:
    """The trueskill package with its defaults (team performance = sum);
    win probability by the package documentation's formula."""

    name = "trueskill (default)"

    def __init__(self, package: Any) -> None:
        self.env = package.TrueSkill()
        self.r: dict[str, Any] = {}

    def _teams(self, g: GameRecord) -> tuple[list[Any], list[Any]]:
        new = self.env.create_rating
        return [self.r.get(i) or new() for i in g.red], [self.r.get(i) or new() for i in g.black]

    def predict(self, g: GameRecord) -> float:
        red, black = self._teams(g)
        delta = sum(r.mu for r in red) - sum(r.mu for r in black)
        var = sum(r.sigma**2 for r in red + black)
        p: float = self.env.cdf(delta / math.sqrt(len(red + black) * self.env.beta**2 + var))
        return p

    def update(self, g: GameRecord) -> None:
        ranks = {"red": [0, 1], "black": [1, 0], "draw": [0, 0]}[g.winner]
        new_red, new_black = self.env.rate(list(self._teams(g)), ranks=ranks)
        for i, r in zip(g.red + g.black, list(new_red) + list(new_black)):
            self.r[i] = r


class OpenSkillModel:
    """openskill's PlackettLuce with its defaults (team skill = sum)."""

    name = "openskill PlackettLuce (default)"

    def __init__(self, package: Any) -> None:
        self.m = package.PlackettLuce()
        self.r: dict[str, Any] = {}

    def _teams(self, g: GameRecord) -> list[list[Any]]:
        new = self.m.rating
        return [[self.r.get(i) or new() for i in g.red], [self.r.get(i) or new() for i in g.black]]

    def predict(self, g: GameRecord) -> float:
        p: float = self.m.predict_win(self._teams(g))[0]
        return p

    def update(self, g: GameRecord) -> None:
        ranks = {"red": [0.0, 1.0], "black": [1.0, 0.0], "draw": [0.0, 0.0]}[g.winner]
        new_red, new_black = self.m.rate(self._teams(g), ranks=ranks)
        for i, r in zip(g.red + g.black, list(new_red) + list(new_black)):
            self.r[i] = r


def optional_baselines() -> tuple[list[Callable[[], Predictor]], list[str]]:
    """Factories for the baselines whose packages are installed (the
    ``bench`` extra), and a note for each one that is not."""
    made: list[Callable[[], Predictor]] = []
    notes: list[str] = []
    kinds: tuple[tuple[str, type[TrueSkillModel] | type[OpenSkillModel], str], ...] = (
        ("trueskill", TrueSkillModel, "trueskill"),
        ("openskill.models", OpenSkillModel, "openskill"),
    )
    for module, cls, extra in kinds:
        try:
            package = importlib.import_module(module)
        except ImportError:
            notes.append(
                f"{cls.name}: skipped, {extra} is not installed (pip install 'omerta[bench]')"
            )
            continue
        made.append(partial(cls, package))
    return made, notes


@dataclass(frozen=True)
class Evaluation:
    train_games: int
    test_games: int
    fitted: Fit
    scores: tuple[Score, ...]
    """Ours fitted, ours with the defaults, then the baselines."""
    best_elo: Score
    notes: tuple[str, ...]

    @property
    def margin(self) -> tuple[float, float]:
        """The best team Elo's held-out log-loss minus the fitted model's
        (positive: ours is lower), and its paired standard error."""
        return paired_margin(self.scores[0].losses, self.best_elo.losses)

    def to_dict(self) -> dict[str, object]:
        def one(s: Score) -> dict[str, object]:
            return {
                "model": s.name,
                "games": s.games,
                "log_loss": round(s.log_loss, 5),
                "brier": round(s.brier, 5),
                "calibration": s.calibration_rows(),
            }

        p = self.fitted.params
        return {
            "train_games": self.train_games,
            "test_games": self.test_games,
            "fitted_params": {
                "sigma0": p.sigma0,
                "tau": p.tau,
                "side_sigma0": p.side_sigma0,
                "side_tau": p.side_tau,
            },
            "train_log_loss": self.fitted.log_loss,
            "best_elo": {"model": self.best_elo.name, "log_loss": self.best_elo.log_loss},
            "margin_over_best_elo": {
                "log_loss": self.margin[0],
                "se": None if math.isnan(self.margin[1]) else self.margin[1],
            },
            "models": [one(s) for s in self.scores],
            "notes": list(self.notes),
        }


def evaluate(
    games: Sequence[GameRecord],
    train: float = 0.5,
    ks: Sequence[float] = ELO_KS,
    extra: Sequence[Callable[[], Predictor]] = (),
    notes: Sequence[str] = (),
) -> Evaluation:
    """Fit on the first ``train`` share of the games, score everyone on the rest."""
    if not 0.0 < train < 1.0:
        raise ValueError("the training share must be between 0 and 1")
    start = int(len(games) * train)
    if start < 1 or start >= len(games):
        raise ValueError(f"{len(games)} games cannot be split into a fitting and a held-out part")
    fitted = fit(games[:start])
    predictors: list[Predictor] = [
        OmertaModel(fitted.params, "omerta (fitted on the first part)"),
        OmertaModel(model.DEFAULT_PARAMS, "omerta (default parameters)"),
        Constant(),
    ]
    predictors += [TeamElo(k) for k in ks]
    predictors += [make() for make in extra]
    scores = tuple(score(p, games, start) for p in predictors)
    elo = [s for s in scores if s.name.startswith("team Elo")]
    best = min(elo, key=lambda s: s.log_loss)
    return Evaluation(start, len(games) - start, fitted, scores, best, tuple(notes))


def table(ev: Evaluation) -> str:
    """The scores as a Markdown table, best log-loss first."""
    lines = ["| model | log-loss | Brier |", "|---|---:|---:|"]
    for s in sorted(ev.scores, key=lambda s: s.log_loss):
        lines.append(f"| {s.name} | {s.log_loss:.4f} | {s.brier:.4f} |")
    return "\n".join(lines)


def calibration_table(s: Score) -> str:
    lines = [
        f"calibration of {s.name}:",
        "| predicted red score | games | mean predicted | observed |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {b.lo:.1f}-{b.hi:.1f} | {b.games} | {b.predicted:.3f} | {b.observed:.3f} |"
        for b in s.calibration
    ]
    return "\n".join(lines)
