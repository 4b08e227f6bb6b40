"""Random legal city games for the property tests, recorded as (time, action).

Unlike tests/table/play.py, which offers each moment to one random seat,
every seat in turn may act before the clock moves on, so the night roles act
in most of their turns and the night rules get exercised."""
from __future__ import annotations

import random

from omerta.bots import choose
from omerta.city_mode import CITY
from omerta.table import Timeout, apply, new_game

MAX_TECH_CALLS = 3
IDLE = 0.2      # how often the clock moves on although someone could act


def random_city_game(seed: int, settings=None, deal=None, bots=(), on_step=None,
                     max_steps=20000):
    """Return the final state, all events, the timed actions and the number
    of deadlines fired."""
    rng = random.Random(seed)
    state, events = new_game(CITY, settings or {}, seed, deal, bots)
    if on_step:
        on_step(None, state, events)
    played, deadlines, tech_calls = [], 0, 0
    for _ in range(max_steps):
        if state.over:
            break
        due = state.next_deadline
        # Whole milliseconds, as a live table's record writes them, and after
        # the previous step: an action at the very moment a deadline fired
        # would replay before it.
        now = min(round(rng.uniform(state.now + 0.001, due), 3), due)
        action = None
        if now > state.now and rng.random() > IDLE:
            for seat in rng.sample(state.seats, state.n):
                action = choose(state, seat, rng)
                if action is not None and action.name == "tech_call":
                    tech_calls += 1
                    action = action if tech_calls <= MAX_TECH_CALLS else None
                if action is not None:
                    break
        if action is None:
            action, now = Timeout(), due
            deadlines += 1
        else:
            played.append((now, action))
        state, new = apply(state, action, now)
        events.extend(new)
        if on_step:
            on_step(action, state, new)
    return state, events, played, deadlines
