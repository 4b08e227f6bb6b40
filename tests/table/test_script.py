"""Table scripts and `omerta replay` (docs/scripts.md): format, clock, exit codes."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from omerta.cli import main
from omerta.script import ScriptError, replay

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEAL = (
    '{"ruleset": "classic", "seed": 3, "deal": {"1": "don", "2": "mafia", "3": "mafia",'
    ' "4": "sheriff"}}'
)


def script(*lines: str) -> str:
    return "\n".join((DEAL,) + lines) + "\n"


def events(text: str) -> list[dict]:
    return [e.to_dict() for e in replay(text).events]


def run_cli(text: str, capsys) -> tuple[int, list[dict], str]:
    path = ROOT / "var" / "test-script.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


@pytest.mark.parametrize(
    "example", sorted((ROOT / "examples").glob("*.jsonl")), ids=lambda p: p.name
)
def test_every_example_script_replays_to_the_end(example, capsys):
    code, out, err = run_cli(example.read_text(), capsys)
    assert code == 0, err
    assert out[-1]["event"] == "game_over"


def test_required_event_fields_are_present():
    out = events((ROOT / "examples" / "classic-full-game.jsonl").read_text())
    required = {
        "seated": {"roles"},
        "phase": {"phase", "seconds"},
        "speech": {"seat", "seconds", "kind"},
        "nominated": {"by", "target"},
        "left": {"seat", "cause"},
        "game_over": {"winner", "reason", "roles"},
    }
    names = {e["event"] for e in out}
    assert set(required) <= names
    for e in out:
        assert "t" in e
        assert required.get(e["event"], set()) <= set(e)
        if e["event"] == "phase":
            assert ("day" in e) != ("night" in e)


def test_a_deal_fixes_roles_at_time_zero_and_fills_the_rest_by_seed():
    out = events(script())
    seated = next(e for e in out if e["event"] == "seated")
    assert seated["t"] == 0
    assert [seated["roles"][s] for s in "1234"] == ["don", "mafia", "mafia", "sheriff"]
    assert sorted(seated["roles"][str(s)] for s in range(5, 11)) == ["civilian"] * 6


def test_an_action_waits_for_the_deadlines_until_it_is_legal():
    out = events(script('{"seat": 4, "do": "nominate", "target": 9}'))
    nominated = next(e for e in out if e["event"] == "nominated")
    assert nominated == {"event": "nominated", "t": 240, "by": 4, "target": 9}


def test_at_runs_the_clock_to_that_day_first():
    out = events(script('{"seat": 2, "do": "nominate", "target": 9, "at": "day2"}'))
    nominated = next(e for e in out if e["event"] == "nominated")
    assert nominated["t"] == 674  # day 2 opens at 674 with seat 2


def test_wait_seconds_runs_the_clock_inside_a_speech():
    out = events(
        script(
            '{"do": "wait", "at": "day1"}',
            '{"do": "wait", "seconds": 4}',
            '{"seat": 7, "do": "interject"}',
        )
    )
    inter = next(e for e in out if e["event"] == "interjection")
    assert (inter["t"], inter["seat"], inter["left"]) == (124, 7, 2)


def test_t_runs_the_clock_to_exactly_that_time_and_fires_only_earlier_deadlines():
    # Seat 1's speech ends at 120; an action at t=120 still finds seat 1 speaking.
    out = events(script('{"seat": 1, "do": "nominate", "target": 6, "t": 120}'))
    assert next(e for e in out if e["event"] == "nominated")["t"] == 120


def test_after_the_last_line_the_clock_runs_to_the_end_of_the_game():
    out = events(script())
    assert out[-1]["event"] == "game_over" and out[-1]["winner"] == "draw"


@pytest.mark.parametrize(
    "lines, message",
    [
        (("{not json",), "line 2: not valid JSON"),
        (("[1, 2]",), "line 2: each line must be a JSON object"),
        (('{"seat": 1, "do": "fly"}',), "line 2: unknown action 'fly'"),
        (('{"seat": 1, "do": "nominate"}',), "line 2: nominate needs an integer 'target'"),
        (
            ('{"seat": 1, "do": "nominate", "target": 5, "at": "noon"}',),
            "line 2: 'at' must look like",
        ),
        (
            ('{"seat": 1, "do": "nominate", "target": 5, "colour": 1}',),
            "line 2: unknown field(s) colour",
        ),
        (
            ('{"seat": 1, "do": "vote", "target": 5, "at": "day1"}',),
            "line 2: vote by seat 1 never became legal in day1",
        ),
        (
            ('{"seat": 1, "do": "nominate", "target": 5, "t": 3}',),
            "line 2: nominate by seat 1 is not legal at t=3: D2",
        ),
        (
            (
                '{"seat": 1, "do": "nominate", "target": 5, "t": 70}',
                '{"seat": 2, "do": "end_speech", "t": 65}',
            ),
            "line 3: t=65 is before the clock",
        ),
        (
            ('{"seat": 12, "do": "end_speech"}',),
            "line 2: end_speech by seat 12 can never be legal: C1",
        ),
        (
            ('{"seat": 5, "do": "shoot", "target": 1}',),
            "line 2: shoot by seat 5 never became legal before the game ended: S1",
        ),
        (
            (
                '{"seat": 1, "do": "nominate", "target": 5, "at": "day1"}',
                '{"seat": 2, "do": "nominate", "target": 5, "at": "night1"}',
            ),
            "line 3: cannot act at night1: it has already passed",
        ),
    ],
)
def test_bad_scripts_exit_2_with_one_line_naming_the_script_line(lines, message, capsys):
    code, _, err = run_cli(script(*lines), capsys)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "header, message",
    [
        ("", "line 1: the script is empty"),
        ('{"settings": {}}', "line 1: the header needs 'ruleset'"),
        ('{"ruleset": "poker"}', "line 1: unknown ruleset 'poker'"),
        (
            '{"ruleset": "classic", "settings": {"voting": "loud"}}',
            "line 1: setting 'voting' must be one of",
        ),
        (
            '{"ruleset": "classic", "deal": {"1": "wizard"}}',
            "line 1: deal gives seat 1 the role 'wizard'",
        ),
        ('{"ruleset": "classic", "bots": [0]}', "line 1: bot seat 0"),
        (
            '{"ruleset": "classic", "bots": [5], "stand_ins": [6]}',
            "line 1: seat 6 stands in for an absentee but is not a bot seat",
        ),
        (
            '{"ruleset": "classic", "bots": [5], "stand_ins": "5"}',
            "line 1: header 'stand_ins' must be a list of seat numbers",
        ),
        (
            '{"ruleset": "classic", "seed": 1.5}',
            "line 1: header 'seed' must be an integer or a string",
        ),
        (
            '{"ruleset": "classic", "deal": {"x": "don"}}',
            "line 1: deal key 'x' is not a seat number",
        ),
        ('{"ruleset": "classic", "host": "me"}', "line 1: unknown header field(s) host"),
    ],
)
def test_bad_headers_exit_2_naming_line_one(header, message, capsys):
    code, _, err = run_cli(header + "\n", capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_replay_reads_standard_input_and_a_missing_file_is_a_clear_error():
    done = subprocess.run(
        [sys.executable, "-m", "omerta.cli", "replay", "-"],
        input=script(),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1])["event"] == "game_over"
    missing = subprocess.run(
        [sys.executable, "-m", "omerta.cli", "replay", "/nonexistent.jsonl"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_script_errors_carry_the_line_number():
    with pytest.raises(ScriptError) as caught:
        replay(script('{"seat": 1, "do": "pick", "card": 0}'))
    assert caught.value.line == 2
