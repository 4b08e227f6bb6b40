"""City scripts replay through the ruleset registry (docs/scripts.md)."""

import json
import pathlib

import pytest

from omerta.cli import main
from omerta.script import ScriptError, replay

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "city-12-seats.jsonl"
HEADER = {
    "ruleset": "city",
    "seed": 5,
    "deal": {
        "1": "don",
        "2": "mafia",
        "3": "mafia",
        "4": "commissar",
        "5": "doctor",
        "6": "putana",
        "7": "maniac",
    },
}


def script(*lines, **settings) -> str:
    header = {**HEADER, "settings": settings}
    return "\n".join(json.dumps(x) for x in (header, *lines)) + "\n"


def test_the_12_seat_example_replays_to_reds_win(capsys):
    assert main(["replay", str(EXAMPLE)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert out[0]["event"] == "role" and len([e for e in out if e["event"] == "role"]) == 12
    over = out[-1]
    assert (over["event"], over["winner"], over["reason"]) == (
        "game_over",
        "red",
        "no_black_or_maniac_left",
    )
    mornings = [e["dead"] for e in out if e["event"] == "morning"]
    assert mornings == [[11], [4], [2, 7]]
    actions = {e["action"] for e in out if e["event"] == "night_action"}
    assert actions == {"visit", "shoot", "kill", "heal", "check"}
    # Night 2: the Putana visits the Don, so his check of seat 4 gets no answer.
    assert [(c["by"], c["target"]) for c in out if c["event"] == "check"] == [
        (4, 7),
        (4, 8),
        (2, 5),
    ]


def test_a_city_script_plays_visit_kill_heal_and_check():
    text = script(
        {"seat": 6, "do": "visit", "target": 9, "at": "night2"},
        {"seat": 7, "do": "kill", "target": 10},
        {"seat": 5, "do": "heal", "target": 10},
        {"seat": 4, "do": "check", "target": 7},
        {"seat": 1, "do": "check", "target": 4},
        speech_seconds=30,
    )
    events = [e.to_dict() for e in replay(text).events]
    assert [e["seconds"] for e in events if e["event"] == "speech"][:10] == [30] * 10
    night2 = [(e["t"], e["phase"]) for e in events if e["event"] == "phase" and e.get("night") == 2]
    assert night2 == [
        (360, "putana"),
        (370, "mafia"),
        (380, "maniac"),
        (390, "doctor"),
        (400, "commissar"),
        (410, "don"),
    ]
    assert [(e["by"], e["result"]) for e in events if e["event"] == "check"] == [
        (4, "red"),
        (1, "commissar"),
    ]
    assert next(e for e in events if e["event"] == "morning")["dead"] == []


def test_a_night_action_out_of_its_role_never_becomes_legal():
    text = script({"seat": 8, "do": "heal", "target": 9, "at": "night2"})
    with pytest.raises(ScriptError, match=r"line 2.*M"):
        replay(text)


def test_bad_city_settings_in_the_header_are_a_script_error():
    with pytest.raises(ScriptError, match=r"line 1.*speech_seconds"):
        replay(script(speech_seconds=50))
