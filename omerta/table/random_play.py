"""Random legal games for the property tests and the replay benchmark
(bench/replay.py), classic and city, recorded as (time, action or Timeout) as
a live table records them."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..bots import choose
from . import CLASSIC, Action, Event, Ruleset, State, Timeout, apply, best_move, new_game

MAX_TECH_CALLS = 3
IDLE = 0.2  # every_seat: how often the clock moves on although someone could act

OnStep = Callable[[Action | Timeout | None, State, list[Event]], None]


def random_game(
    seed: int,
    settings: Mapping[str, Any] | None = None,
    deal: Mapping[int, str] | None = None,
    bots: Iterable[int] = (),
    on_step: OnStep | None = None,
    *,
    ruleset: Ruleset = CLASSIC,
    every_seat: bool = False,
    max_steps: int = 20000,
) -> tuple[State, list[Event], list[tuple[float, Action | Timeout]], int]:
    """Play a game of random legal moves at random moments; return the final
    state, all events, every step as (time, action or Timeout), and the
    number of deadlines fired.

    By default each moment is offered to one random seat. With `every_seat`
    every seat in turn may act before the clock moves on, at whole
    milliseconds, so night roles act in most of their turns (city mode)."""
    rng = random.Random(seed)
    state, events = new_game(ruleset, settings or {}, seed, deal, bots)
    if on_step:
        on_step(None, state, events)
    played: list[tuple[float, Action | Timeout]] = []
    deadlines = tech_calls = 0
    for _ in range(max_steps):
        if state.over:
            break
        due = state.next_deadline
        assert due is not None
        action: Action | None = None
        if every_seat:
            # After the previous step: an action at the very moment a deadline
            # fired would replay before it.
            now = min(round(rng.uniform(state.now + 0.001, due), 3), due)
            if now > state.now and rng.random() > IDLE:
                for seat in rng.sample(list(state.seats), state.n):
                    action = choose(state, seat, rng)
                    if action is not None and action.name == "tech_call":
                        tech_calls += 1
                        action = action if tech_calls <= MAX_TECH_CALLS else None
                    if action is not None:
                        break
        else:
            now = rng.uniform(state.now, due) if rng.random() < 0.8 else due
            seat = rng.randint(1, state.n)
            if state.speaker is not None and best_move.may_name(state, state.speaker):
                # B1: a random seat would rarely hold the moment of the last word
                seat = state.speaker
            action = choose(state, seat, rng)
            if action is not None and action.name == "tech_call":
                tech_calls += 1
                if tech_calls > MAX_TECH_CALLS:
                    action = None
        step: Action | Timeout
        if action is None:
            step, now = Timeout(), due
            deadlines += 1
        else:
            step = action
        played.append((now, step))
        state, new = apply(state, step, now)
        events.extend(new)
        if on_step:
            on_step(step, state, new)
    return state, events, played, deadlines
