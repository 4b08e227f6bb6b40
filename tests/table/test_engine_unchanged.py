"""The engine's behaviour, pinned: what the examples and 60 seeded
random games (classic and city) produce, as one digest: every event with its
audience, a seat's view and the next deadline after every step, and the rule
and code of random refused actions. A refactoring must leave it unchanged;
a deliberate rule change updates DIGEST (print it with
`.venv/bin/python -m tests.table.test_engine_unchanged`) and says why in its
commit."""

from __future__ import annotations

import hashlib
import json
import pathlib
import random
from collections.abc import Iterator
from typing import Any

from omerta.city_mode import CITY
from omerta.script import replay
from omerta.table import (
    CLASSIC,
    Action,
    IllegalAction,
    Ruleset,
    Timeout,
    apply,
    new_game,
    parse_action,
)
from omerta.table.actions import ACTIONS, TECH_KINDS
from omerta.table.legal import legal_actions
from omerta.table.views import view

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
GAMES = 30  # seeds per ruleset
# The probes try the actions the engine had when the digest was pinned; best
# move (B1) came later, is off in these games, and has its own tests.
PROBED = sorted(ACTIONS.keys() - {"best_move"})
DIGEST = "d13e4e1abb099d9f42b9c30e00c5ab987202f6a55d22dcec89ea03ffcc483f81"


def _event(e: Any) -> dict[str, Any]:
    return {**e.to_dict(), "audience": e.audience.to_dict()}


def _game(ruleset: Ruleset, seed: int, settings: dict[str, Any]) -> Iterator[Any]:
    rng = random.Random(seed)
    bots = tuple(s for s in range(1, 11) if rng.random() < 0.2)
    state, events = new_game(ruleset, settings, seed, None, bots)
    yield [_event(e) for e in events]
    tech = 0
    while not state.over:
        due = state.next_deadline
        assert due is not None
        now = min(round(rng.uniform(state.now + 0.001, due), 3), due)
        action: Action | Timeout | None = None
        if now > state.now and rng.random() > 0.2:
            for seat in rng.sample(list(state.seats), state.n):
                options = legal_actions(state, seat, tech_calls=rng.random() < 0.02 and tech < 3)
                if options:
                    action = rng.choice(options)
                    tech += action.name == "tech_call"
                    break
            raw = {
                "do": rng.choice(PROBED),
                "seat": rng.randint(0, state.n + 1),
                "target": rng.randint(0, state.n + 1),
                "card": rng.randint(-1, state.n),
                "yes": rng.random() < 0.5,
                "kind": rng.choice(TECH_KINDS),
            }
            try:
                probe = parse_action(raw)
                yield ["ok", probe.to_dict(), [_event(e) for e in apply(state, probe, now)[1]]]
            except IllegalAction as e:
                yield ["no", e.rule, e.code, e.params]
        if action is None:
            action, now = Timeout(), due
        state, events = apply(state, action, now)
        seat = rng.choice([None, *state.seats])
        shown = {k: v for k, v in view(state, seat).items() if k != "gate"}
        yield [
            now,
            action.to_dict() if isinstance(action, Action) else None,
            [_event(e) for e in events],
            shown,
            state.next_deadline,
        ]


def transcript() -> Iterator[str]:
    for example in sorted(EXAMPLES.glob("*.jsonl")):
        player = replay(example.read_text())
        yield json.dumps([example.name, [_event(e) for e in player.events]], sort_keys=True)
    classic: list[dict[str, Any]] = [
        {},
        {"voting": "open", "agreement": "sound"},
        {"break_at_zero": True, "lift_at_zero": True},
    ]
    city: list[dict[str, Any]] = [
        {},
        {"seats": 12, "voting": "open"},
        {"seats": 11, "speech_seconds": 30, "night_turn_seconds": 5},
    ]
    for seed in range(GAMES):
        for ruleset, settings in ((CLASSIC, classic[seed % 3]), (CITY, city[seed % 3])):
            for line in _game(ruleset, seed, settings):
                yield json.dumps(line, sort_keys=True)


def digest() -> str:
    h = hashlib.sha256()
    for line in transcript():
        h.update(line.encode() + b"\n")
    return h.hexdigest()


def test_the_engine_plays_the_examples_and_seeded_games_exactly_as_before():
    assert digest() == DIGEST


if __name__ == "__main__":
    print(digest())
