"""Coins and experience after a ranked game (docs/ratings.md).

Experience for every finished ranked game, more for a win; coins for a win
(and a little for a draw). A player removed by the table (T3) or whose
technical defeat ended the game (T4) gets nothing: the table judged them
(the engine keeps who in `State.forfeits`). None of this ever touches the
skill rating."""

from __future__ import annotations

from dataclasses import dataclass

EXPERIENCE = {"win": 30, "draw": 20, "loss": 10}
COINS = {"win": 10, "draw": 3, "loss": 0}


@dataclass(frozen=True, slots=True)
class Award:
    coins: int
    experience: int


def award(result: str, forfeit: bool) -> Award:
    if forfeit:
        return Award(0, 0)
    return Award(COINS[result], EXPERIENCE[result])


def team_result(winner: str, team: str) -> str:
    """A seat's result from the game's winner and the seat's team."""
    if winner == "draw":
        return "draw"
    return "win" if winner == team else "loss"
