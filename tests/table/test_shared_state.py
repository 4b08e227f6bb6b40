"""`apply` never changes the state it is given (docs/design.md): a clone
shares every value with its parent (state.py), so a rule that changed a
dict, list or sub-state in place would change the caller's state too."""

from __future__ import annotations

import contextlib
import pickle
import random

import pytest

from omerta.city_mode import CITY
from omerta.table import CLASSIC, IllegalAction, Ruleset, State, Timeout, apply
from omerta.table.legal import legal_actions
from omerta.table.random_play import random_game


def _try_everything(state: State, rng: random.Random) -> None:
    """Every legal action of every seat, and the due timeout, each applied to
    `state` itself; the caller keeps `state` afterwards."""
    for seat in state.seats:
        for action in legal_actions(state, seat, tech_calls=rng.random() < 0.1):
            with contextlib.suppress(IllegalAction):
                apply(state, action, state.now)
    due = state.next_deadline
    if due is not None:
        apply(state, Timeout(), due)


def _states(seed: int, ruleset: Ruleset) -> list[State]:
    """Every state of a random game, from the first to the last."""
    played: list[State] = []

    def keep(_step: object, state: State, _events: object) -> None:
        played.append(state)

    random_game(seed, ruleset=ruleset, every_seat=True, on_step=keep)
    return played


@pytest.mark.parametrize("ruleset", [CLASSIC, CITY], ids=["classic", "city"])
def test_apply_leaves_the_callers_state_as_it_was_at_every_step_of_random_games(
    ruleset: Ruleset,
) -> None:
    rng = random.Random(5)
    for seed in range(4):
        for state in _states(seed, ruleset)[:-1]:
            before = pickle.dumps(state)
            _try_everything(state, rng)
            assert pickle.dumps(state) == before, f"seed {seed}, {state.stage} at {state.now}"
