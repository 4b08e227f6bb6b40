"""Best move (B1): with the `best_move` setting on, the first player shot at
night names up to three other living seats during their last word. The
naming is final and public at once; the end of the game shows which of the
named seats were black (the tournament scores it).

"The first player shot" is whoever leaves at the first dawn that has a
death, from night 2 on. In city mode that is any night death, the Mafia's
shot or the Maniac's kill, and both players when two leave the same night:
the offer must not tell the table how a player died (M11)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from .actions import BestMove
from .events import BestMoveNamed, Cause
from .state import State
from .step import Step, require

MAX_TARGETS = 3


def entitle(state: State, deaths: list[tuple[int, Cause]]) -> None:
    """At dawn: the first night deaths of the game earn a best move."""
    if deaths and not state.best_move_seats and state.settings.best_move:
        state.best_move_seats = frozenset(seat for seat, _ in deaths)


def may_name(state: State, seat: int) -> bool:
    """Whether `seat` may name its best move now (B1)."""
    s = state
    return (
        seat in s.best_move_seats
        and seat not in s.best_moves
        and s.speech_kind == "last_word"
        and s.speaker == seat
    )


def on_best_move(ctx: Step, action: BestMove) -> None:
    s, seat, targets = ctx.state, action.seat, action.targets
    require(s.settings.best_move, "B1", "best_move_off")
    require(seat in s.best_move_seats, "B1", "not_first_shot")
    require(seat not in s.best_moves, "B1", "best_move_final")
    require(s.speech_kind == "last_word" and s.speaker == seat, "B1", "not_last_word")
    require(1 <= len(targets) <= MAX_TARGETS, "B1", "best_move_count", count=len(targets))
    for i, target in enumerate(targets):
        require(target != seat, "B1", "best_move_self")
        require(target not in targets[:i], "B1", "best_move_repeated", seat=target)
        require(s.alive[target], "B1", "not_alive", seat=target)
    s.best_moves = {**s.best_moves, seat: targets}
    ctx.emit(BestMoveNamed(t=ctx.now, seat=seat, targets=list(targets)))


def options(state: State, seat: int) -> list[BestMove]:
    """Every naming `seat` may make now: one to three other living seats."""
    if not may_name(state, seat):
        return []
    others = [q for q in state.living() if q != seat]
    return [
        BestMove(seat, chosen)
        for size in range(1, MAX_TARGETS + 1)
        for chosen in combinations(others, size)
    ]


def reveal(state: State) -> list[dict[str, Any]] | None:
    """For the end of the game (E4): each naming and its black seats."""
    if not state.best_moves:
        return None
    black = set(state.black_seats())
    return [
        {"seat": seat, "targets": list(targets), "black": [t for t in targets if t in black]}
        for seat, targets in sorted(state.best_moves.items())
    ]
