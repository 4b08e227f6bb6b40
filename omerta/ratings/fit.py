"""Choosing the model's parameters from played games.

The objective is the prequential log-loss: the model runs over the games in
the order they were played, predicting each before it learns its result, so
no game's prediction has seen its own or any later result.  The optimiser
is a pattern search on the log of each parameter: try each parameter times
and divided by a step factor, keep any improvement (and keep going that
way), halve the step's logarithm when nothing improves.  It needs no
gradients, never leaves the bounds, and a few dozen runs over the games
are enough to settle the four parameters to about 3 %.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from omerta.ratings import model
from omerta.ratings.records import GameRecord

# The parameters fitted and the range each may take.  mu0 is only an origin,
# and display_k, provisional_games are policy; daily_drift needs the days
# between a player's games, which the prequential run does not model.
BOUNDS: Mapping[str, tuple[float, float]] = {
    "sigma0": (10.0, 1000.0),
    "tau": (0.01, 100.0),
    "side_sigma0": (1.0, 400.0),
    "side_tau": (0.001, 20.0),
}
FITTED: tuple[str, ...] = tuple(BOUNDS)


def log_loss(games: Sequence[GameRecord], params: model.ModelParams, start: int = 0) -> float:
    """Mean prequential log-loss of the model over games[start:] (having
    learned from all earlier games too)."""
    from omerta.ratings.prequential import OmertaModel, loss

    m = OmertaModel(params)
    total = 0.0
    for t, g in enumerate(games):
        if t >= start:
            total += loss(m.predict(g), model.SCORE[g.winner])
        m.update(g)
    n = len(games) - start
    return total / n if n > 0 else math.nan


@dataclass(frozen=True)
class Fit:
    params: model.ModelParams
    log_loss: float
    start_log_loss: float
    """The log-loss with the parameters the search started from."""
    games: int
    runs: int
    """How many times the search ran the model over the games."""


def fit(
    games: Sequence[GameRecord],
    start: model.ModelParams = model.DEFAULT_PARAMS,
    names: Sequence[str] = FITTED,
    step: float = 2.0,
    min_step: float = 1.03,
) -> Fit:
    """Parameters minimising the prequential log-loss over ``games``."""
    if not games:
        raise ValueError("no games to fit")
    unknown = [n for n in names if n not in BOUNDS]
    if unknown:
        raise ValueError(
            f"cannot fit {', '.join(unknown)}: fitted parameters are {', '.join(FITTED)}"
        )
    runs = 0

    def objective(p: model.ModelParams) -> float:
        nonlocal runs
        runs += 1
        return log_loss(games, p)

    def moved(p: model.ModelParams, name: str, factor: float) -> model.ModelParams:
        lo, hi = BOUNDS[name]
        value: float = getattr(p, name)
        changed: dict[str, float] = {name: min(hi, max(lo, value * factor))}
        # mypy cannot tell a float field from ModelParams' int ones by name.
        return replace(p, **changed)  # type: ignore[arg-type]

    best = start
    best_f = first = objective(best)
    while step >= min_step:
        improved = False
        for name in names:
            for factor in (step, 1.0 / step):
                cand = moved(best, name, factor)
                while cand != best:
                    f = objective(cand)
                    if f >= best_f - 1e-9:
                        break
                    best, best_f, improved = cand, f, True
                    cand = moved(best, name, factor)
        if not improved:
            step = math.sqrt(step)
    return Fit(best, best_f, first, len(games), runs)
