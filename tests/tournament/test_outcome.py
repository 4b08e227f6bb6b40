"""A tournament game's outcome comes from its stored record, replayed: the
same winner, teams, first night's dead and best move (B1) as the game."""

from __future__ import annotations

import json
from typing import Any

from omerta.script import Header, record_line
from omerta.table import Timeout
from omerta.table.random_play import random_game
from omerta.tournament.outcome import outcome

PLAYERS: list[int | None] = [100 + seat for seat in range(1, 11)]


def _record(seed: int) -> tuple[list[str], Any, list[Any]]:
    settings = {"best_move": True}
    state, events, steps, _ = random_game(seed, settings)
    header = Header("classic", settings, seed)
    lines = [json.dumps(header.to_dict())]
    for t, step in steps:
        lines.append(json.dumps(record_line(None if isinstance(step, Timeout) else step, t)))
    return lines, state, events


def test_B1_the_outcome_of_a_recorded_game_is_the_games_own():
    named = 0
    for seed in range(12):
        record, state, events = _record(seed)
        got = outcome(record, PLAYERS, absent=[3], round=2)
        assert got.winner == state.winner and got.round == 2
        assert [s.team for s in got.seats] == [state.team_of(seat) for seat in state.seats]
        assert [s.absent for s in got.seats] == [seat == 3 for seat in state.seats]
        first = next((e.dead for e in events if e.event == "morning" and e.dead), [])
        assert got.first_killed == frozenset(first)
        assert dict(got.best_moves) == {k: list(v) for k, v in state.best_moves.items()}
        named += bool(got.best_moves)
    assert named > 0  # some random games named a best move
