"""What a record carries beyond the winner (issue 20): the Don's and
Sheriff's roles, the first-killed player, days survived.  Each feature is
fitted on the first part of a record and kept only if it predicts the rest
better; a planted effect is found, and no effect is found where there is none."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from omerta.cli import main
from omerta.ratings import model
from omerta.ratings.features import FeatureModel, compare, credit, weights
from omerta.ratings.prequential import OmertaModel
from omerta.ratings.records import GameRecord

RED = ("a", "b", "c", "d", "e", "f", "g")
BLACK = ("x", "y", "z")
GAME = GameRecord(
    RED,
    BLACK,
    "red",
    roles=(("x", "don"), ("c", "sheriff"), ("y", "mafia")),
    first_killed="a",
    days=tuple((p, 0 if p == "a" else 4 if p in "bcx" else 2) for p in RED + BLACK),
)


def test_the_don_and_the_sheriff_count_one_plus_a_times_a_teammate_in_their_team():
    red, black = weights(GAME, 1.0)
    assert red == pytest.approx([1 / 8, 1 / 8, 2 / 8, 1 / 8, 1 / 8, 1 / 8, 1 / 8])
    assert black == pytest.approx([2 / 4, 1 / 4, 1 / 4])
    assert weights(GAME, 0.0) is None


def test_the_first_killed_gets_their_share_of_credit_and_days_scale_everyone():
    assert credit(GAME, "first_killed", 0.5) == ([0.5] + [1.0] * 6, [1.0] * 3)
    red, black = credit(GAME, "days", 1.0) or ([], [])
    assert red == pytest.approx([0.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5])
    assert black == pytest.approx([1.0, 0.5, 0.5])
    assert credit(GAME, "first_killed", 1.0) is None and credit(GAME, "days", 0.0) is None


def test_at_its_neutral_coefficient_every_feature_is_the_model_itself():
    games = [GAME, GameRecord(BLACK + RED[:4], RED[4:], "black"), GAME]
    for feature, neutral in (("roles", 0.0), ("first_killed", 1.0), ("days", 0.0)):
        plain, featured = OmertaModel(), FeatureModel(model.DEFAULT_PARAMS, feature, neutral)
        for g in games:
            assert featured.predict(g) == pytest.approx(plain.predict(g), abs=1e-12)
            plain.update(g)
            featured.update(g)
        assert featured.ratings == plain.ratings


def _strength(team: tuple[str, ...], skill: dict[str, float], heavy: dict[str, float]) -> float:
    w = [heavy.get(p, 1.0) for p in team]
    return sum(wi * skill[p] for wi, p in zip(w, team)) / sum(w)


def _season(effect: float, games: int = 1200, players: int = 60, seed: int = 7) -> list[GameRecord]:
    """Fixed skills N(1500, 200^2); the Don's and Sheriff's skill counts
    (1 + effect) times a teammate's in who wins."""
    rng = random.Random(seed)
    skill = {str(i): rng.gauss(1500.0, 200.0) for i in range(players)}
    out = []
    for _ in range(games):
        ten = [str(i) for i in rng.sample(range(players), 10)]
        red, black = tuple(ten[:7]), tuple(ten[7:])
        don, sheriff = black[0], red[0]
        heavy = {don: 1.0 + effect, sheriff: 1.0 + effect}
        d = _strength(red, skill, heavy) - _strength(black, skill, heavy)
        winner: model.Outcome = "red" if rng.random() < 1 / (1 + 10 ** (-d / 400)) else "black"
        out.append(GameRecord(red, black, winner, roles=((don, "don"), (sheriff, "sheriff"))))
    return out


PARAMS = model.ModelParams(sigma0=200.0, tau=0.5, side_sigma0=50.0, side_tau=0.01)


def test_a_planted_role_effect_is_fitted_on_the_first_half_and_helps_on_the_second():
    (found,) = compare(_season(effect=3.0), params=PARAMS)
    assert found.feature == "roles" and found.games_with_it == 600
    assert found.coef > 1.0
    assert found.helps and found.held_out_gain > 0.0


def test_where_roles_do_not_matter_they_do_not_help_out_of_sample():
    (found,) = compare(_season(effect=0.0), params=PARAMS)
    assert not found.helps


def test_evaluate_command_with_features_reports_each_feature_the_record_carries(
    tmp_path: Path, capsys
):
    path = tmp_path / "games.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {"red": list(g.red), "black": list(g.black), "winner": g.winner}
                | {"roles": dict(g.roles)}
            )
            + "\n"
            for g in _season(effect=0.0, games=40, players=20)
        )
    )
    assert main(["ratings", "evaluate", str(path), "--features", "--json"]) == 0
    (roles,) = json.loads(capsys.readouterr().out)["features"]
    assert (roles["feature"], roles["games_with_it"], roles["neutral"]) == ("roles", 20, 0.0)
    assert set(roles) >= {"coef", "held_out_gain", "se", "helps"}
    assert main(["ratings", "evaluate", str(path), "--features"]) == 0
    assert "| roles | 20 |" in capsys.readouterr().out
