"""`omerta replay` refuses every malformed script with exit status 2 and one
line on standard error naming the script line, never a traceback
(docs/scripts.md; issue 12, finding 16)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from omerta.cli import main

HEADER = (
    '{"ruleset": "classic", "seed": 3, "deal": {"1": "don", "2": "mafia", "3": "mafia",'
    ' "4": "sheriff"}}'
)


def run(data: bytes, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Replay `data` from a file; the exit status and standard error."""
    path = tmp_path / "script.jsonl"
    path.write_bytes(data)
    code = main(["replay", str(path)])
    return code, capsys.readouterr().err


def refused(
    data: bytes | str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    line: int,
) -> str:
    """Assert the script is refused naming `line`, in one line; the message."""
    code, err = run(data.encode() if isinstance(data, str) else data, tmp_path, capsys)
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    assert f": line {line}: " in err, err
    return err


def lines(*rest: str) -> str:
    return "\n".join((HEADER, *rest)) + "\n"


# --- strict JSON: no NaN, no Infinity ------------------------------------


def test_t_nan_is_refused_before_anything_is_played(tmp_path, capsys):
    err = refused(
        lines('{"seat": 1, "do": "nominate", "target": 5, "t": NaN}'),
        tmp_path,
        capsys,
        2,
    )
    assert "NaN" in err
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "line",
    [
        '{"ruleset": "classic", "seed": NaN}',
        '{"ruleset": "classic", "settings": {"voting": Infinity}}',
        '{"ruleset": "classic", "seed": -Infinity}',
    ],
)
def test_nan_and_infinity_in_the_header_are_refused(line, tmp_path, capsys):
    refused(line + "\n", tmp_path, capsys, 1)


@pytest.mark.parametrize(
    "line",
    [
        '{"seat": 1, "do": "nominate", "target": Infinity}',
        '{"do": "wait", "seconds": Infinity}',
        '{"do": "wait", "seconds": -Infinity}',
        '{"do": "wait", "seconds": NaN}',
        '{"do": "wait", "t": 1e999}',
        '{"seat": 1, "do": "nominate", "target": 5, "t": 1e400}',
    ],
)
def test_nan_and_infinity_in_a_line_are_refused(line, tmp_path, capsys):
    refused(lines(line), tmp_path, capsys, 2)


# --- absurd nesting and numbers ---------------------------------------------


def test_a_header_nested_100000_deep_is_refused(tmp_path, capsys):
    deep = "[" * 100_000 + "]" * 100_000
    err = refused(
        '{"ruleset": "classic", "settings": {"voting": ' + deep + "}}\n",
        tmp_path,
        capsys,
        1,
    )
    assert "nest" in err


def test_a_line_nested_100000_deep_is_refused(tmp_path, capsys):
    deep = '{"a": ' * 100_000 + "1" + "}" * 100_000
    refused(lines('{"do": "wait"}', deep), tmp_path, capsys, 3)


def test_a_line_nested_deeper_than_any_script_needs_is_refused(tmp_path, capsys):
    deep = "[" * 200 + "]" * 200
    refused(
        lines('{"seat": 1, "do": "nominate", "target": ' + deep + "}"),
        tmp_path,
        capsys,
        2,
    )


def test_a_5000_digit_seed_is_refused(tmp_path, capsys):
    err = refused('{"ruleset": "classic", "seed": ' + "7" * 5000 + "}\n", tmp_path, capsys, 1)
    assert len(err) < 400


@pytest.mark.parametrize(
    "line",
    [
        '{"seat": 1, "do": "nominate", "target": ' + "9" * 5000 + "}",
        '{"seat": ' + "1" * 5000 + ', "do": "end_speech"}',
        '{"do": "wait", "seconds": ' + "1" * 5000 + "}",
        '{"do": "wait", "seconds": 1' + "0" * 400 + ".5}",
    ],
)
def test_a_5000_digit_number_in_a_line_is_refused(line, tmp_path, capsys):
    refused(lines(line), tmp_path, capsys, 2)


def test_a_huge_at_number_is_refused(tmp_path, capsys):
    refused(lines('{"do": "wait", "at": "day' + "9" * 5000 + '"}'), tmp_path, capsys, 2)


# --- at and t ----------------------------------------------------------------


@pytest.mark.parametrize("at", ["day1\\n", "day1\\r", "\\nday1", " day1", "day1 ", "day\\u0661"])
def test_at_must_be_exactly_day_or_night_and_a_number(at, tmp_path, capsys):
    err = refused(
        lines('{"seat": 1, "do": "end_speech", "at": "' + at + '"}'),
        tmp_path,
        capsys,
        2,
    )
    assert "'at' must look like" in err


def test_a_t_before_its_at_period_has_begun_is_refused(tmp_path, capsys):
    # Day 2 begins at 674; at t=100 seat 1 speaks on day 1.
    err = refused(
        lines('{"seat": 2, "do": "nominate", "target": 9, "t": 100, "at": "day2"}'),
        tmp_path,
        capsys,
        2,
    )
    assert "day2" in err and "t=100" in err


def test_a_t_after_its_at_period_is_refused(tmp_path, capsys):
    err = refused(
        lines('{"seat": 2, "do": "nominate", "target": 9, "t": 700, "at": "day1"}'),
        tmp_path,
        capsys,
        2,
    )
    assert "day1" in err


def test_a_t_inside_its_at_period_is_played_at_exactly_t(tmp_path, capsys):
    code, err = run(
        lines('{"seat": 2, "do": "nominate", "target": 9, "t": 700, "at": "day2"}').encode(),
        tmp_path,
        capsys,
    )
    assert code == 0, err


def test_a_wait_with_t_before_its_at_period_is_refused(tmp_path, capsys):
    refused(lines('{"do": "wait", "t": 5, "at": "night2"}'), tmp_path, capsys, 2)


# --- bytes that are not UTF-8 ------------------------------------------------


def test_invalid_utf8_in_a_file_names_its_line(tmp_path, capsys):
    data = (HEADER + "\n" + '{"do": "wait"}' + "\n").encode() + b'{"do": "wa\xffit"}\n'
    err = refused(data, tmp_path, capsys, 3)
    assert "UTF-8" in err


def test_invalid_utf8_on_standard_input_names_its_line():
    data = (HEADER + "\n").encode() + b'{"seat": 1, "do": "end_\xc3"}\n'
    done = subprocess.run(
        [sys.executable, "-m", "omerta.cli", "replay", "-"],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 2 and ": line 2: " in err and len(err.splitlines()) == 1, err


# --- the message is one line, whatever the script holds -------------------------


@pytest.mark.parametrize(
    "line",
    [
        '{"seat": 1, "do": ["nominate"]}',
        '{"seat": 1, "do": {"x": 1}}',
        '{"seat": 1, "do": "end_speech", "evil\\nfield": 1}',
        '{"seat": 1, "do": "end_speech", "evil\\u2028field": 1}',
        '{"seat": 1, "do": "bad\\ud800"}',
    ],
)
def test_unusual_values_give_one_line_not_a_traceback(line, tmp_path, capsys):
    refused(lines(line), tmp_path, capsys, 2)


@pytest.mark.parametrize(
    "header",
    [
        '{"ruleset": ["classic"]}',
        '{"ruleset": "classic", "deal": {"1\\n2": "don"}}',
        '{"ruleset": "classic", "deal": {"1": ["don"]}}',
        '{"ruleset": "classic", "deal": {"\\u0661": "don"}}',
        '{"ruleset": "classic", "settings": {"night\\nmare": 1}}',
        '{"ruleset": "city", "settings": {"night_turn_seconds": {"x\\ny": 5}}}',
    ],
)
def test_unusual_header_values_give_one_line_not_a_traceback(header, tmp_path, capsys):
    refused(header + "\n", tmp_path, capsys, 1)


def test_a_line_separator_inside_a_json_string_does_not_split_the_line(tmp_path, capsys):
    # U+2028 is legal inside a JSON string; the refusal is about the action's
    # name, on line 2, not a broken line.
    err = refused(lines('{"seat": 1, "do": "x\u2028y"}'), tmp_path, capsys, 2)
    assert "unknown action" in err


def test_a_header_after_blank_lines_is_named_by_its_own_line(tmp_path, capsys):
    refused(
        '\n\n{"ruleset": "classic", "settings": {"voting": "loud"}}\n',
        tmp_path,
        capsys,
        3,
    )


def test_a_file_name_with_a_newline_still_gives_one_line(tmp_path, capsys):
    path = tmp_path / "two\nlines.jsonl"
    path.write_text('{"ruleset": "poker"}\n')
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "two\\nlines.jsonl: line 1: " in err
    assert main(["replay", str(tmp_path / "no\nfile")]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
