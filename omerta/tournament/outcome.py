"""A finished tournament game as scoring sees it (`scoring.GameOutcome`),
built by replaying the table's stored record through the engine: the
winner, teams, removals, the technical defeat, the first night's dead and
the best move (B1) all come from the game itself, never from a client."""

from __future__ import annotations

from collections.abc import Sequence

from ..script import replay
from .scoring import GameOutcome, Player, SeatOutcome


class NotFinished(Exception):
    """The record does not replay to a finished game."""


def outcome(
    record: Sequence[str], players: Sequence[Player | None], absent: Sequence[int], round: int
) -> GameOutcome:
    """`record`: the table's record lines; `players[i]`: the scheduled
    player of seat i + 1 (None: a bot the director put there); `absent`: the
    seats a bot played because their player did not come."""
    removed: set[int] = set()
    defeated: set[int] = set()
    first_killed: frozenset[int] = frozenset()
    played = replay("\n".join(record))
    for event in played.events:
        e = event.to_dict()
        kind = e["event"]
        if kind == "morning" and e["dead"] and not first_killed:
            first_killed = frozenset(e["dead"])
        elif kind == "left" and e["cause"] == "removed":
            removed.add(e["seat"])
        elif kind == "tech_vote" and e["kind"] == "defeat" and e["passed"]:
            defeated.add(e["target"])
    state = played.state
    if not state.over or state.winner is None:
        raise NotFinished("the record does not end the game")
    return GameOutcome(
        winner=state.winner,
        seats=[
            SeatOutcome(
                seat,
                players[seat - 1] if seat <= len(players) else None,
                state.team_of(seat),
                removed=seat in removed,
                technical_defeat=seat in defeated,
                absent=seat in absent,
            )
            for seat in state.seats
        ],
        first_killed=first_killed,
        best_moves={seat: list(targets) for seat, targets in state.best_moves.items()},
        round=round,
    )
