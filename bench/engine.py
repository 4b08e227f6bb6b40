"""Engine benchmark: random full classic games on the virtual clock.

    .venv/bin/python bench/engine.py --games 2000

Prints games/s (with the random players' own choosing), engine-only games/s
and steps/s (time inside `apply` alone), and bytes of state per table (the
pickled state mid-game). One process, one core."""

from __future__ import annotations

import argparse
import pickle
import random
import statistics
import time

from omerta.bots import choose
from omerta.table import CLASSIC, Action, Timeout, apply, new_game


def play(seed: int, clock=time.perf_counter) -> tuple[int, float, int]:
    """One random game; returns (steps, seconds inside apply, state bytes)."""
    rng = random.Random(seed)
    state, _ = new_game(CLASSIC, {}, seed)
    steps, inside, size = 0, 0.0, 0
    while not state.over:
        chosen = choose(state, rng.randint(1, state.n), rng)
        action: Action | Timeout
        if chosen is None or chosen.name == "tech_call":
            deadline = state.next_deadline
            assert deadline is not None, "a game that is not over waits for a deadline"
            action, now = Timeout(), deadline
        else:
            action, now = chosen, state.now
        start = clock()
        state, _ = apply(state, action, now)
        inside += clock() - start
        steps += 1
        if steps == 60:
            size = len(pickle.dumps(state))
    return steps, inside, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    steps, inside = 0, 0.0
    sizes = []
    start = time.perf_counter()
    for i in range(args.games):
        n, t, size = play(args.seed * 1_000_003 + i)
        steps, inside = steps + n, inside + t
        sizes.append(size)
    total = time.perf_counter() - start
    print(f"games                       {args.games}")
    print(f"games/s (with random play)  {args.games / total:,.0f}")
    print(f"games/s (engine only)       {args.games / inside:,.0f}")
    print(f"engine steps/s              {steps / inside:,.0f}")
    print(f"steps per game              {steps / args.games:.1f}")
    print(f"state bytes per table       {statistics.median(sizes):,.0f} (median, pickled)")


if __name__ == "__main__":
    main()
