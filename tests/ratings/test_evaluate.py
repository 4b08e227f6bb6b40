"""Scoring rating models on a record of games (issue 20): the record's
format, prequential scores checked by hand, and the evaluate command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from omerta.cli import main
from omerta.ratings.prequential import Constant, OmertaModel, TeamElo, paired_margin, score
from omerta.ratings.records import GameRecord, RecordError, parse_lines


def game(red: list[str], black: list[str], winner: str) -> str:
    return json.dumps({"red": red, "black": black, "winner": winner})


RED, BLACK = ["a", "b", "c", "d", "e", "f", "g"], ["x", "y", "z"]
FOUR = [
    game(RED, BLACK, "red"),
    game(RED, BLACK, "red"),
    game(RED, BLACK, "black"),
    game(RED, BLACK, "red"),
]


def test_the_running_red_score_loses_what_a_hand_count_says_on_the_held_out_half():
    games = parse_lines(FOUR)
    s = score(Constant(), games, start=2)
    # Before game 3 it has seen 0.5 (pseudo-game), red, red: 2.5 / 3; before game 4, 2.5 / 4.
    assert s.games == 2
    assert s.log_loss == pytest.approx((math.log(6) + -math.log(0.625)) / 2)
    assert s.brier == pytest.approx(((5 / 6) ** 2 + 0.375**2) / 2)
    assert [(b.lo, b.games, b.observed) for b in s.calibration] == [(0.6, 1, 1.0), (0.8, 1, 0.0)]


def test_team_elo_moves_every_player_by_k_times_the_surprise_and_learns_the_side():
    games = parse_lines([game(["a"], ["b"], "red"), game(["a"], ["b"], "black")])
    elo = TeamElo(16.0)
    s = score(elo, games, start=1)
    # Game 1 is a coin toss: a +8, b -8, side +0.5; game 2 predicts from 16.5 points.
    p = 1 / (1 + 10 ** (-16.5 / 400))
    assert s.log_loss == pytest.approx(-math.log(1 - p))
    assert elo.r == pytest.approx({"a": 1508 - 16 * p, "b": 1492 + 16 * p})


def test_a_draw_scores_half_and_newcomers_with_no_side_known_are_a_coin_toss():
    games = parse_lines([game(RED, BLACK, "draw")])
    s = score(OmertaModel(), games)
    assert s.log_loss == pytest.approx(math.log(2))
    assert s.brier == 0.0


@pytest.mark.parametrize(
    "line, says",
    [
        ("not json", "2: not JSON"),
        ('["a"]', "2: a game must be a JSON object"),
        ('{"red": [], "black": ["x"], "winner": "red"}', "2: 'red' must be a non-empty list"),
        (
            '{"red": ["a"], "black": [true], "winner": "red"}',
            "2: 'black' holds true, not a player id",
        ),
        ('{"red": ["a"], "black": ["a"], "winner": "red"}', "2: a player appears twice"),
        ('{"red": [1], "black": ["1"], "winner": "red"}', "2: a player appears twice"),
        ('{"red": ["a"], "black": ["x"], "winner": "blue"}', "2: 'winner' must be"),
        (
            '{"red": ["a"], "black": ["x"], "winner": "red", "date": 5}',
            "2: 'date' must be a string",
        ),
        ('{"red": ["a"], "black": ["x"], "winner": "red", "roles": 5}', "2: 'roles' must be"),
        (
            '{"red": ["a"], "black": ["x"], "winner": "red", "roles": {"q": "don"}}',
            "2: 'roles' names \"q\", not a player of this game",
        ),
        (
            '{"red": ["a"], "black": ["x"], "winner": "red", "first_killed": "x2"}',
            "2: 'first_killed' names \"x2\"",
        ),
        (
            '{"red": ["a"], "black": ["x"], "winner": "red", "days": {"a": -1}}',
            "2: 'days' gives -1, not a number of days",
        ),
    ],
)
def test_a_bad_line_is_refused_with_its_number_and_what_is_wrong(line, says):
    with pytest.raises(RecordError, match=f"^games.jsonl:{says}"):
        parse_lines([FOUR[0], line], "games.jsonl")


def test_integer_ids_dates_roles_first_killed_days_and_blank_lines_are_read():
    line = json.dumps(
        {
            "red": [1, 2],
            "black": [3],
            "winner": "black",
            "date": "2026-11-30",
            "roles": {"3": "Don", "1": "sheriff"},
            "first_killed": 2,
            "days": {"1": 2, "2": 0, "3": 2},
        }
    )
    assert parse_lines(["", line, "  "]) == [
        GameRecord(
            ("1", "2"),
            ("3",),
            "black",
            "2026-11-30",
            roles=(("3", "don"), ("1", "sheriff")),
            first_killed="2",
            days=(("1", 2), ("2", 0), ("3", 2)),
        )
    ]
    older = json.dumps({"red": [1], "black": [3], "winner": "red", "roles": ["don"]})
    assert parse_lines([older]) == [GameRecord(("1",), ("3",), "red")]


def test_undecodable_bytes_name_their_line():
    with pytest.raises(RecordError, match=r"^g:1: not UTF-8"):
        parse_lines([b"\xff{}"], "g")


def test_evaluate_command_reports_every_model_and_the_best_elo_k(tmp_path: Path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(FOUR * 3) + "\n")
    assert main(["ratings", "evaluate", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["train_games"], report["test_games"]) == (6, 6)
    names = [m["model"] for m in report["models"]]
    assert names[:3] == [
        "omerta (fitted on the first part)",
        "omerta (default parameters)",
        "constant (running red score)",
    ]
    assert "team Elo K=8" in names and report["best_elo"]["model"].startswith("team Elo K=")
    assert all(m["games"] == 6 for m in report["models"])


def test_evaluate_command_gives_the_fitted_models_margin_over_the_best_elo(tmp_path: Path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(FOUR * 3) + "\n")
    assert main(["ratings", "evaluate", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    fitted = report["models"][0]["log_loss"]
    margin = report["margin_over_best_elo"]
    # The models' log-losses are rounded to 5 places in the report.
    assert margin["log_loss"] == pytest.approx(report["best_elo"]["log_loss"] - fitted, abs=1e-5)
    assert margin["se"] > 0


def test_a_paired_margin_is_the_mean_per_game_difference_and_its_standard_error():
    mean, se = paired_margin([0.5, 0.7], [0.6, 1.0])
    # differences 0.1 and 0.3: mean 0.2, sd 0.1414, over sqrt(2) games
    assert (mean, se) == (pytest.approx(0.2), pytest.approx(0.1))
    assert math.isnan(paired_margin([0.5], [0.9])[1])
    with pytest.raises(ValueError):
        paired_margin([0.5, 0.7], [0.6])


def test_evaluate_command_names_the_bad_line_and_exits_2(tmp_path: Path, capsys):
    path = tmp_path / "games.jsonl"
    path.write_text(FOUR[0] + "\n" + '{"red": ["a"], "black": ["x"]}\n')
    assert main(["ratings", "evaluate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}:2: 'winner' must be" in err


def test_evaluate_command_refuses_a_missing_file_or_too_few_games(tmp_path: Path, capsys):
    assert main(["ratings", "evaluate", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    path = tmp_path / "one.jsonl"
    path.write_text(FOUR[0] + "\n")
    assert main(["ratings", "evaluate", str(path)]) == 2
    assert "cannot be split" in capsys.readouterr().err
