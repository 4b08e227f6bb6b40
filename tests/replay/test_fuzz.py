"""Whatever a script holds, `omerta replay` either plays it or refuses it in
one line naming a script line; never a traceback (docs/scripts.md).

The properties run the replay in-process for speed; one test runs the
command itself."""

from __future__ import annotations

import functools
import json
import pathlib
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from omerta.script import (
    ARG_KEYS,
    LINE_KEYS,
    MAX_DEPTH,
    MAX_MESSAGE,
    ScriptError,
    _has_deep_line,
    _has_long_number,
    parse,
    random_script,
    replay,
)
from omerta.table.actions import ACTIONS

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LONG_FUZZ = settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ROLES = [
    "don",
    "mafia",
    "sheriff",
    "civilian",
    "commissar",
    "doctor",
    "putana",
    "maniac",
]
SETTINGS = [
    "auto_deal",
    "agreement",
    "voting",
    "break_at_zero",
    "lift_at_zero",
    "seats",
    "mafia_count",
    "speech_seconds",
    "night_turn_seconds",
    "best_move",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=13),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["on", "off", "open", "sound", "day2", "night3"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=5), inner, max_size=3),
    ),
    max_leaves=8,
)

header = st.fixed_dictionaries(
    {"ruleset": st.one_of(st.sampled_from(["classic", "city"]), values)},
    optional={
        "settings": st.one_of(
            st.dictionaries(st.sampled_from(SETTINGS), values, max_size=3), values
        ),
        "seed": st.one_of(st.integers(min_value=0, max_value=10**6), values),
        "deal": st.one_of(
            st.dictionaries(
                st.sampled_from([str(n) for n in range(14)]),
                st.sampled_from(ROLES),
                max_size=4,
            ),
            values,
        ),
        "bots": st.one_of(st.lists(st.integers(min_value=0, max_value=13), max_size=3), values),
        "stand_ins": st.one_of(
            st.lists(st.integers(min_value=0, max_value=13), max_size=2), values
        ),
    },
)

action = st.fixed_dictionaries(
    {"do": st.one_of(st.sampled_from([*ACTIONS, "wait"]), values)},
    optional={
        "seat": st.one_of(st.integers(min_value=0, max_value=13), values),
        "target": st.one_of(st.integers(min_value=0, max_value=13), values),
        "card": st.one_of(st.integers(min_value=0, max_value=12), values),
        "yes": st.one_of(st.booleans(), values),
        "kind": st.one_of(st.sampled_from(["foul", "defeat", "removal"]), values),
        "targets": st.one_of(st.lists(st.integers(min_value=0, max_value=13), max_size=4), values),
        "at": st.one_of(
            st.sampled_from([f"{k}{n}" for k in ("day", "night") for n in (1, 2, 3)]),
            values,
        ),
        "t": st.one_of(st.floats(min_value=0, max_value=3000), values),
        "seconds": st.one_of(st.floats(min_value=0, max_value=120), values),
    },
)


def dumps(value: object) -> str:
    return json.dumps(value, allow_nan=True)  # NaN and Infinity on purpose


assert {"seat", "do", "at", "t", "seconds"} == LINE_KEYS
ARG_VALUES = {
    "target": st.integers(min_value=1, max_value=12),
    "card": st.integers(min_value=0, max_value=10),
    "yes": st.booleans(),
    "kind": st.sampled_from(["foul", "defeat", "removal"]),
    "targets": st.lists(st.integers(min_value=1, max_value=12), max_size=3),
}
assert set().union(*ARG_KEYS.values()) <= set(ARG_VALUES)

# Hostile fields one by one rarely make an action the reader takes (each
# action refuses the others' fields), so a script of them ends at line 2.
# Well-formed lines (the right fields, seats in range, waits that run the
# clock) get games played into their days and nights, where the engine's
# own refusals are what is tested.
wait = st.fixed_dictionaries(
    {"do": st.just("wait")}, optional={"seconds": st.integers(min_value=0, max_value=60)}
)
well_formed_action = st.one_of(
    wait,
    st.sampled_from(sorted(ACTIONS)).flatmap(
        lambda do: st.fixed_dictionaries(
            {
                "do": st.just(do),
                "seat": st.integers(min_value=1, max_value=12),
                **{key: ARG_VALUES[key] for key in sorted(ARG_KEYS[do])},
            }
        )
    ),
)
well_formed_header = st.fixed_dictionaries(
    {"ruleset": st.sampled_from(["classic", "city"])},
    optional={
        "seed": st.integers(min_value=0, max_value=10**6),
        "settings": st.fixed_dictionaries(
            {},
            optional={
                "voting": st.sampled_from(["closed", "open"]),
                "auto_deal": st.booleans(),
                "best_move": st.booleans(),
            },
        ),
    },
)


@functools.cache
def legal_script(ruleset: str, seed: int) -> tuple[str, ...]:
    return tuple(random_script(ruleset, seed))


@st.composite
def changed_games(draw: st.DrawFn) -> list[str]:
    """A random legal game with a few of its lines replaced by, or followed
    by, other actions: the engine is reached at any moment of a game."""
    lines = list(legal_script(draw(st.sampled_from(["classic", "city"])), draw(st.integers(0, 19))))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        at = draw(st.integers(min_value=1, max_value=len(lines)))
        other = dumps(draw(st.one_of(well_formed_action, action)))
        lines[at : at + draw(st.integers(min_value=0, max_value=1))] = [other]
    return lines


def script_files(lines: int) -> st.SearchStrategy[list[str]]:
    """A header and up to `lines` actions, two in three well-formed; or a
    legal game changed here and there."""
    return st.one_of(
        st.tuples(
            st.one_of(well_formed_header, well_formed_header, header).map(dumps),
            st.lists(
                st.one_of(well_formed_action, well_formed_action, action).map(dumps),
                max_size=lines,
            ),
        ).map(lambda parts: [parts[0], *parts[1]]),
        changed_games(),
    )


raw_lines = st.one_of(
    header.map(dumps),
    action.map(dumps),
    values.map(dumps),
    st.text(max_size=40),
    st.sampled_from(["", "{", "[" * 50_000, '{"a": ' * 3000, "9" * 5000, "NaN", "\ufeff{}"]),
)
scripts = st.one_of(
    st.tuples(
        header.map(dumps),
        st.lists(st.one_of(action.map(dumps), raw_lines), max_size=12),
    ).map(lambda hl: "\n".join([hl[0], *hl[1]])),
    st.lists(raw_lines, max_size=8).map("\n".join),
)


def check(source: str | bytes) -> None:
    """Plays, or is refused in one printable line naming a script line."""
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    count = max(1, len(text.split("\n")))
    try:
        replay(source)
    except ScriptError as e:
        message = str(e)
        assert 1 <= e.line <= count, message
        assert message.startswith(f"line {e.line}: ")
        assert message.isprintable() and len(message) <= MAX_MESSAGE + 20, message


@FUZZ
@given(scripts)
def test_any_text_script_plays_or_is_refused_in_one_line(text):
    check(text)


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_play_or_are_refused_in_one_line(data):
    check(data)


@settings(FUZZ, max_examples=100)  # each example plays a whole game
@given(script_files(12))
def test_any_script_file_plays_or_is_refused_in_one_line(lines):
    check("\n".join(lines).encode())


@pytest.mark.slow
@settings(LONG_FUZZ, max_examples=1000)  # each example plays a whole game
@given(script_files(30))
def test_many_script_files_play_or_are_refused_in_one_line(lines):
    check("\n".join(lines).encode())


@pytest.mark.slow
@LONG_FUZZ
@given(scripts)
def test_many_text_scripts_play_or_are_refused_in_one_line(text):
    check(text)


@pytest.mark.slow
@LONG_FUZZ
@given(st.binary(max_size=2000))
def test_many_byte_strings_play_or_are_refused_in_one_line(data):
    check(data)


def test_the_command_answers_garbage_with_exit_2_and_one_line(tmp_path: pathlib.Path):
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(b'{"ruleset": "classic"}\n{"do": "wait", "t": NaN}\n\xff\n')
    done = subprocess.run(
        [sys.executable, "-m", "omerta.cli", "replay", str(path)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err.startswith(f"omerta replay: {path}: line ") and len(err.splitlines()) == 1, err
    assert "Traceback" not in err and done.stdout == b""


#: runs of characters a number may hold, about as long as the look's 19,
#: between any other text (a lone surrogate included)
NEAR_LONG_NUMBERS = st.lists(
    st.text(alphabet=st.sampled_from(list("0123456789.eE+-")), min_size=15, max_size=23)
    | st.text(alphabet=st.characters() | st.just("\ud800"), max_size=4)
).map("".join)


@FUZZ
@given(NEAR_LONG_NUMBERS)
def test_the_look_for_long_numbers_finds_every_run_of_19_number_characters(text):
    found = _has_long_number(text.encode("utf-8", "surrogatepass"))
    assert found == (re.search(r"[0-9.eE+-]{19,}", text) is not None)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("{[]}\n\u2028é")) | st.characters(), max_size=80))
@example("[{" * 8 + "[")  # 17 on one line
@example("[{" * 8 + "\n[")  # 16 and 1
def test_the_look_for_deep_lines_finds_a_line_of_more_than_16_opening_brackets(text):
    most = max(line.count("{") + line.count("[") for line in text.split("\n"))
    assert _has_deep_line(text.encode("utf-8", "surrogatepass")) == (most > MAX_DEPTH)


def test_a_seed_past_64_bits_is_read_as_the_integer_it_is():
    # orjson would read it as a float, which a header refuses as a seed.
    script = parse('{"ruleset": "classic", "seed": 18446744073709551616}\n')
    assert script.header.seed == 18446744073709551616
