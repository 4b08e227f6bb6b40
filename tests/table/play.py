"""Random legal games for the property tests, recorded as (time, action)."""
from __future__ import annotations

import random

from omerta.bots import choose
from omerta.table import CLASSIC, Timeout, apply, new_game

MAX_TECH_CALLS = 3


def random_game(seed: int, settings=None, deal=None, bots=(), on_step=None, max_steps=5000):
    """Play a game of random legal moves at random moments; return the final
    state, all events, every step as (time, action or Timeout) as a live
    table records it, and the number of deadlines fired."""
    rng = random.Random(seed)
    state, events = new_game(CLASSIC, settings or {}, seed, deal, bots)
    if on_step:
        on_step(None, state, events)
    played, deadlines, tech_calls = [], 0, 0
    for _ in range(max_steps):
        if state.over:
            break
        due = state.next_deadline
        now = rng.uniform(state.now, due) if rng.random() < 0.8 else due
        seat = rng.randint(1, state.n)
        action = choose(state, seat, rng)
        if action is not None and action.name == "tech_call":
            tech_calls += 1
            if tech_calls > MAX_TECH_CALLS:
                action = None
        if action is None:
            action, now = Timeout(), due
            deadlines += 1
        played.append((now, action))
        state, new = apply(state, action, now)
        events.extend(new)
        if on_step:
            on_step(action, state, new)
    return state, events, played, deadlines
