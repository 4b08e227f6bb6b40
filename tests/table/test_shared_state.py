"""`apply` never changes the state it is given (docs/design.md): a clone
shares every value with its parent (state.py), so a rule that changed a
dict, list or sub-state in place would change the caller's state too.
With `in_place` (replays) it changes that state into the one `apply`
returns, and a refused action leaves it as it was."""

from __future__ import annotations

import contextlib
import pickle
import random
from dataclasses import replace

import pytest

from omerta.city_mode import CITY
from omerta.table import CLASSIC, IllegalAction, Ruleset, State, Timeout, apply, new_game
from omerta.table.actions import Action, NightAction, Shoot
from omerta.table.classic import Classic
from omerta.table.events import Event
from omerta.table.legal import legal_actions
from omerta.table.random_play import random_game


def _attempts(state: State, rng: random.Random) -> list[Action | Timeout]:
    """Every legal action of every seat, each also by another seat (mostly
    refused, by the handlers), and the due timeout."""
    tried: list[Action | Timeout] = []
    for seat in state.seats:
        for action in legal_actions(state, seat, tech_calls=rng.random() < 0.1):
            tried += [action, replace(action, seat=rng.choice(state.seats))]
    if state.next_deadline is not None:
        tried.append(Timeout())
    return tried


def _at(state: State, action: Action | Timeout) -> float:
    """When `action` may be applied to `state`: a timeout when it is due."""
    due = state.next_deadline
    return due if isinstance(action, Timeout) and due is not None else state.now


def _try_everything(state: State, rng: random.Random) -> None:
    """Every attempt, each applied to `state` itself; the caller keeps
    `state` afterwards."""
    for action in _attempts(state, rng):
        with contextlib.suppress(IllegalAction):
            apply(state, action, _at(state, action))


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


@pytest.mark.parametrize("ruleset", [CLASSIC, CITY], ids=["classic", "city"])
def test_apply_in_place_leaves_the_state_apply_returns_and_a_refusal_leaves_it_as_it_was(
    ruleset: Ruleset,
) -> None:
    rng = random.Random(7)
    refused = 0
    for seed in range(3):
        for state in _states(seed, ruleset)[:-1]:
            for action in _attempts(state, rng):
                now = _at(state, action)
                mine = state.clone()
                try:
                    expected, events = apply(state, action, now)
                except IllegalAction as e:
                    with pytest.raises(IllegalAction) as raised:
                        apply(mine, action, now, in_place=True)
                    assert (raised.value.rule, raised.value.code) == (e.rule, e.code)
                    assert pickle.dumps(mine) == pickle.dumps(state)
                    refused += 1
                    continue
                got, in_place = apply(mine, action, now, in_place=True)
                assert got is mine and pickle.dumps(mine) == pickle.dumps(expected)
                assert in_place == events
    assert refused > 100  # the refusals were tried, not only legal actions


class ChangesThenRefuses(Classic):
    """A ruleset whose night choice changes the state, then refuses."""

    def night_action(self, state: State, action: NightAction, now: float) -> list[Event]:
        state.quiet += 1
        state.choices = {"shot": {action.seat: action.target}}
        raise IllegalAction("S1", "wrong_turn", action=action.name, turns=[], turn="shot")


def test_a_refusal_in_place_undoes_what_the_rule_changed_before_it_refused() -> None:
    state, _ = new_game(ChangesThenRefuses(), {}, 1, deal={1: "don", 2: "mafia", 3: "mafia"})
    while state.stage != "night":
        due = state.next_deadline
        assert due is not None
        state, _ = apply(state, Timeout(), due)
    before = pickle.dumps(state)
    with pytest.raises(IllegalAction):
        apply(state, Shoot(1, 5), state.now, in_place=True)
    assert pickle.dumps(state) == before
