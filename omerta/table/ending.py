"""Departures and the end of the game (E1–E4)."""

from __future__ import annotations

from collections.abc import Sequence

from . import best_move
from .events import EVERYONE, Audience, Cause, GameOver, Left
from .state import State, put
from .step import Step


def depart(ctx: Step, leaving: Sequence[tuple[int, Cause]], audience: Audience = EVERYONE) -> None:
    """Seats leave together; any departure breaks the quiet-round count (E2)."""
    s = ctx.state
    for seat, cause in leaving:
        s.alive = put(s.alive, seat, False)
        s.departed = True
        if s.interjector == seat:
            s.interjector = None
            s.interjection_end = None
        ctx.emit(Left(t=ctx.now, audience=audience, seat=seat, cause=cause))


def decided(ctx: Step) -> bool:
    """E3: one win check after a batch of departures; ends the game if won."""
    result = ctx.state.ruleset.winner(ctx.state)
    if result is None:
        return False
    end_game(ctx, *result)
    return True


def awards(state: State) -> bool:
    """A1: whether the finished game awards rating, coins and experience.
    A ranked table's game does, unless bots stood in for absentees and the
    people left all played one team: the rating sets one team's people
    against the other's, and then there is nobody to set them against."""
    if not state.ruleset.ranked(state.settings, state.bots, state.stand_ins):
        return False
    if not state.stand_ins:
        return True
    teams = {state.team_of(seat) for seat in state.seats if seat not in state.bots}
    return len(teams) > 1


def end_game(ctx: Step, winner: str, reason: str) -> None:
    s = ctx.state
    s.stage = "over"
    s.winner, s.reason = winner, reason
    s.deadline = None
    s.interjector = s.interjection_end = None
    s.speaker = s.speech_kind = None
    s.tech = None
    s.queue = ()
    s.vote_round = None
    roles = {seat: s.role(seat) for seat in s.seats}
    ctx.emit(
        GameOver(
            t=ctx.now,
            winner=winner,
            reason=reason,
            roles=roles,
            best_move=best_move.reveal(s),  # B1
        )
    )  # E4
