"""Every refusal carries a stable code and the params a client needs to word
it in the player's language (docs/errors.md), besides its rule and English."""

import ast
import pathlib
import re

from omerta.table.actions import Nominate, Pick, parse_action
from omerta.table.errors import MESSAGES, BadAction, IllegalAction

from .game import Table

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINE = [*(ROOT / "omerta" / "table").glob("*.py"), *(ROOT / "omerta" / "city_mode").glob("*.py")]
#: the callables that refuse, and where their code argument sits
REFUSERS = {"require": 2, "IllegalAction": 1, "BadAction": 0, "refusal": 0}


def _refusals():
    """(file, line, code) for every refusal written in the engine."""
    for path in ENGINE:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in REFUSERS or path.name == "errors.py":
                continue
            where = REFUSERS[name]
            arg = node.args[where] if len(node.args) > where else None
            if isinstance(arg, ast.Name) and arg.id == "code":
                continue  # require() and refusal() pass a code on
            code = arg.value if isinstance(arg, ast.Constant) else None
            yield path.name, node.lineno, code


def test_every_refusal_in_the_engine_has_a_known_code_written_out():
    sites = list(_refusals())
    assert len(sites) > 60
    missing = [(f, line) for f, line, code in sites if code not in MESSAGES]
    assert not missing, f"refusals without a known literal code: {missing}"


def test_every_code_is_used_and_listed_in_docs_errors_md():
    used = {code for _, _, code in _refusals()}
    assert used == set(MESSAGES)
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", (ROOT / "docs" / "errors.md").read_text(), re.M))
    assert listed == set(MESSAGES)


def test_K1_a_taken_card_is_refused_with_its_code_and_counted_from_1_for_people():
    t = Table(deal=None).pick(1, 8)
    refusal = t.refused(Pick(2, 8))
    assert (refusal.rule, refusal.code, refusal.params) == ("K1", "card_taken", {"card": 8})
    assert refusal.message == "card 9 is already taken"


def test_K1_a_card_that_does_not_exist_names_the_cards_as_players_count_them():
    refusal = Table(deal=None).refused(Pick(1, 10))
    assert (refusal.code, refusal.params) == ("no_such_card", {"card": 10, "cards": 10})
    assert refusal.message == "the cards are numbered 1-10"


def test_D2_nominating_a_nominee_again_says_who():
    t = Table().nominations((1, 5)).to_speech(2)
    refusal = t.refused(Nominate(2, 5))
    assert (refusal.rule, refusal.code, refusal.params) == ("D2", "already_nominated", {"seat": 5})
    assert str(refusal) == "D2: seat 5 is already nominated today"


def test_a_malformed_action_is_refused_with_a_protocol_code_quoting_what_was_sent():
    try:
        parse_action({"do": "vote", "seat": 1, "target": "x" * 100})
    except BadAction as e:
        assert (e.rule, e.code) == ("protocol", "bad_integer")
        assert e.params["action"] == "vote" and e.params["key"] == "target"
        assert len(e.params["got"]) <= 40
    else:
        raise AssertionError("accepted")


def test_every_refusal_has_json_params_and_a_message_at_every_step_of_random_games():
    import json
    import random

    from omerta.table import ACTIONS, apply
    from omerta.table.random_play import random_game

    rng = random.Random(7)
    seen = set()

    def step(action, state, events):
        if state.over:
            return
        for _ in range(20):
            raw = {
                "do": rng.choice(sorted(ACTIONS)),
                "seat": rng.randint(1, 10),
                "target": rng.randint(0, 11),
                "card": rng.randint(-1, 10),
                "yes": rng.random() < 0.5,
                "kind": "foul",
                "targets": rng.sample(range(12), rng.randint(0, 4)),
            }
            try:
                apply(state, parse_action(raw), state.now)
            except IllegalAction as e:
                assert e.message and json.loads(json.dumps(e.params)) == e.params
                seen.add(e.code)

    for seed in range(3):
        random_game(seed, {"best_move": seed == 2}, on_step=step)
    assert len(seen) > 20


def test_C1_every_seat_an_action_names_must_be_at_the_table():
    from dataclasses import fields

    from omerta import rulesets  # noqa: F401  (city mode's actions are known once loaded)
    from omerta.table import ACTIONS, apply

    table = Table(deal=None)
    values = {"seat": 1, "target": 2, "targets": (2, 3), "card": 0, "yes": True, "kind": "foul"}
    checked = 0
    for cls in ACTIONS.values():
        names = [f.name for f in fields(cls)]
        for name in {"seat", "target", "targets"} & set(names):
            for wrong in (0, 11):
                given = {key: values[key] for key in names}
                given[name] = (2, wrong) if name == "targets" else wrong
                try:
                    apply(table.state, cls(**given), table.state.now)
                except IllegalAction as e:
                    assert (e.rule, e.code, e.params) == (
                        "C1",
                        "no_such_seat",
                        {"seat": wrong, "seats": 10},
                    ), (cls.name, name)
                else:
                    raise AssertionError(f"{cls.name} with {name} {wrong} was not refused")
                checked += 1
    assert checked >= 2 * (len(ACTIONS) + 9)  # a seat in every action, targets in nine
