"""A bot that plays random legal moves, for practice tables, the benchmark
and the property tests. It decides nothing the rules do not allow: it only
chooses among `legal_actions`."""

from __future__ import annotations

import random

from .table.actions import Action
from .table.legal import legal_actions
from .table.state import State

# How often a bot uses each kind of move when it may; technical calls are rare
# so random play still covers them, and speeches usually run a while.
WEIGHTS = {"tech_call": 0.01, "interject": 0.05, "end_speech": 0.3}


def choose(state: State, seat: int, rng: random.Random, tech_calls: bool = True) -> Action | None:
    """A random legal action for `seat`, or None to let the clock run.
    `tech_calls=False` never calls a technical vote: the bots at a table
    with people, whose random fouls and removals would freeze every clock
    and fill the moderators' queue."""
    wants_call = rng.random() < WEIGHTS["tech_call"]
    options = legal_actions(state, seat, tech_calls=tech_calls and wants_call)
    if not options:
        return None
    names = sorted({a.name for a in options})
    name = rng.choice(names)
    if name != "tech_call" and rng.random() > WEIGHTS.get(name, 1.0):
        return None
    return rng.choice([a for a in options if a.name == name])
