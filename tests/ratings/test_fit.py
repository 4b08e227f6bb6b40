"""Fitting the model's parameters by prequential likelihood (issue 20)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from omerta.cli import main
from omerta.ratings import model
from omerta.ratings.fit import fit, log_loss
from omerta.ratings.records import GameRecord


def world(
    spread: float, games: int, players: int, seed: int, side: float = -40.0
) -> list[GameRecord]:
    """Games of fixed hidden skills N(1500, spread^2), played the way the model assumes."""
    rng = random.Random(seed)
    skill = [rng.gauss(1500.0, spread) for _ in range(players)]
    out = []
    for _ in range(games):
        ten = rng.sample(range(players), 10)
        d = sum(skill[i] for i in ten[:7]) / 7 - sum(skill[i] for i in ten[7:]) / 3 + side
        red_wins = rng.random() < 1 / (1 + 10 ** (-d / 400))
        out.append(
            GameRecord(
                tuple(map(str, ten[:7])), tuple(map(str, ten[7:])), "red" if red_wins else "black"
            )
        )
    return out


def test_fit_recovers_the_skill_spread_of_a_known_world():
    games = world(150.0, 1000, 80, seed=4)
    start = replace(model.DEFAULT_PARAMS, sigma0=400.0, tau=0.01, side_tau=0.01)
    result = fit(games, start, names=("sigma0",), step=1.5, min_step=1.1)
    assert 100.0 < result.params.sigma0 < 225.0
    assert result.log_loss < result.start_log_loss
    assert result.log_loss == pytest.approx(log_loss(games, result.params))


def test_fit_stays_within_its_bounds_and_refuses_unknown_parameters():
    games = world(0.0, 60, 20, seed=1, side=0.0)
    result = fit(games, names=("sigma0",), step=4.0, min_step=1.5)
    assert 10.0 <= result.params.sigma0 < model.DEFAULT_PARAMS.sigma0
    with pytest.raises(ValueError, match="cannot fit mu0"):
        fit(games, names=("mu0",))
    with pytest.raises(ValueError, match="no games"):
        fit([])


def test_fit_command_on_a_file_reports_the_parameters_and_stores_nothing(tmp_path: Path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text(
        "".join(
            json.dumps({"red": list(g.red), "black": list(g.black), "winner": g.winner}) + "\n"
            for g in world(100.0, 40, 20, seed=2)
        )
    )
    assert main(["ratings", "fit", "--games", str(path)]) == 0
    out = capsys.readouterr().out
    assert "fitted on 40 ranked games" in out and "sigma0" in out and "not stored" in out
    path.write_text("{}\n")
    assert main(["ratings", "fit", "--games", str(path)]) == 2
    assert f"{path}:1:" in capsys.readouterr().err


def test_the_logistic_scale_needs_no_fitting_as_scaling_it_with_every_spread_changes_nothing(
    monkeypatch,
):
    games = world(120.0, 300, 40, seed=5)
    p = replace(model.DEFAULT_PARAMS, sigma0=120.0, tau=3.0, side_sigma0=40.0, side_tau=0.3)
    before = log_loss(games, p)
    monkeypatch.setattr(model, "ELO_SCALE", 2.0 * model.ELO_SCALE)
    doubled = replace(p, sigma0=240.0, tau=6.0, side_sigma0=80.0, side_tau=0.6)
    assert log_loss(games, doubled) == pytest.approx(before, rel=1e-12)
    # ...and only together: the scale alone does change the predictions.
    assert log_loss(games, p) != pytest.approx(before, rel=1e-6)
