"""The benchmark's joint-covariance filter (bench/ratings_joint.py): the same
maths as the rating model, plus the correlations the model forgets."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from omerta.ratings import model

# Loaded from its file, as bench/ratings.py (a script) loads it.
_spec = importlib.util.spec_from_file_location(
    "ratings_joint", Path(__file__).parents[2] / "bench" / "ratings_joint.py"
)
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
JointFilter = _module.JointFilter

# No side drift: the model predicts with the side belief as it stands and
# drifts it only when it learns, the joint filter drifts it right after a game.
PARAMS = replace(model.DEFAULT_PARAMS, sigma0=120.0, tau=3.0, side_sigma0=40.0, side_tau=0.0)


@dataclass(frozen=True)
class Game:
    red: tuple[int, ...]
    black: tuple[int, ...]
    outcome: str


def test_it_predicts_and_learns_like_the_model_while_no_two_players_have_met():
    games = [
        Game((0, 1, 2, 3, 4, 5, 6), (7, 8, 9), "black"),
        Game((10, 11, 12, 13, 14, 15, 16), (17, 18, 19), "red"),
    ]
    joint = JointFilter(20, PARAMS, "joint")
    ratings: dict[int, model.Rating] = {}
    side = model.new_side(PARAMS)
    for g in games:
        red = [ratings.get(i, model.new_rating(PARAMS)) for i in g.red]
        black = [ratings.get(i, model.new_rating(PARAMS)) for i in g.black]
        assert joint.predict(g) == pytest.approx(model.predict(red, black, side), abs=1e-12)
        joint.update(g)
        new_red, new_black, side = model.update(red, black, g.outcome, side, PARAMS)
        # (A later game still moves these players through the side term,
        # which only the joint filter remembers they are tied to.)
        for i, r in zip(g.red + g.black, new_red + new_black):
            ratings[i] = r
            assert joint.rating(i) == pytest.approx(r.mu, abs=1e-9)
            # The joint filter drifts after a game, the model before the next one.
            assert float(joint.cov[i, i]) == pytest.approx(r.sigma**2 + PARAMS.tau**2, rel=1e-12)


def test_it_remembers_that_one_result_ties_teammates_and_opponents_together():
    joint = JointFilter(10, PARAMS, "joint")
    joint.update(Game((0, 1, 2, 3, 4, 5, 6), (7, 8, 9), "red"))
    # Knowing one red player was better than thought explains part of the
    # win, so a teammate (and the opponents' weakness) needs less of it.
    assert joint.cov[0, 1] < 0
    assert joint.cov[7, 8] < 0
    assert joint.cov[0, 7] > 0
