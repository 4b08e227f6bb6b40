"""Technical votes: the table disciplines itself (T1–T5)."""

from __future__ import annotations

from . import speeches
from .actions import TechCall, TechVote
from .ending import decided, depart, end_game
from .errors import IllegalAction
from .events import (
    RECORD,
    Foul,
    TechBallot,
    TechCalled,
    TechRecord,
    TechResult,
    VoteCancelled,
    to_seat,
)
from .state import TechState, put
from .step import Next, Step, later, require

TECH_SECONDS = 30  # T2
FOULS_TO_REMOVE = 2  # T3
DAY_STAGES = ("day", "speech", "vote", "lift")


def on_call(ctx: Step, action: TechCall) -> None:
    s = ctx.state
    require(s.stage in DAY_STAGES, "T1", "not_day")
    require(s.alive[action.seat], "T1", "dead_cannot_call")
    require(s.alive[action.target], "T1", "not_alive", seat=action.target)
    during = s.speech_kind or s.vote_round or s.stage
    s.tech = TechState(
        action.kind, action.seat, action.target, ctx.now, ctx.after(TECH_SECONDS), during
    )
    ctx.emit(
        TechCalled(
            t=ctx.now, kind=action.kind, by=action.seat, target=action.target, seconds=TECH_SECONDS
        )
    )


def on_vote(ctx: Step, action: TechVote) -> None:
    s, tech = ctx.state, ctx.state.tech
    if tech is None:
        raise IllegalAction("T2", "no_technical_vote_now")
    if not s.alive[action.seat]:
        raise IllegalAction("T2", "dead_cannot_vote")
    if action.seat in s.bots:
        raise IllegalAction("T2", "humans_only")
    if action.seat in tech.ballots:
        raise IllegalAction("T2", "ballot_is_final")
    s.tech = tech.with_ballot(action.seat, action.yes)
    ctx.emit(TechBallot(ctx.now, action.seat, action.yes, audience=to_seat(action.seat)))


def timeout(ctx: Step) -> Next | None:
    """T2: passes with yes from more than half of the living humans; the
    frozen clocks resume exactly where they stopped."""
    s, tech = ctx.state, ctx.state.tech
    assert tech is not None
    humans = s.living_humans()
    ballots = {seat: tech.ballots.get(seat, False) for seat in humans}
    yes = sum(ballots.values())
    passed = 2 * yes > len(humans)
    ctx.emit(
        TechResult(
            t=ctx.now,
            kind=tech.kind,
            by=tech.by,
            target=tech.target,
            yes=yes,
            passed=passed,
            needed=len(humans) // 2 + 1,
        )
    )
    ctx.emit(
        TechRecord(
            t=ctx.now,
            audience=RECORD,
            kind=tech.kind,
            by=tech.by,
            target=tech.target,
            ballots=ballots,
            passed=passed,
            phase=tech.during,
            day=s.day,
            called_at=tech.called_at,
        )
    )
    s.tech = None
    if s.deadline is not None:
        s.deadline = later(s.deadline, TECH_SECONDS)
    if s.interjection_end is not None:
        s.interjection_end = later(s.interjection_end, TECH_SECONDS)
    if not passed:
        return None
    if tech.kind == "defeat":
        s.forfeits = s.forfeits | {tech.target}
        end_game(ctx, s.ruleset.defeat_winner(s, tech.target), "technical_defeat")  # T4
        return None
    if tech.kind == "removal":
        return remove(ctx, tech.target)
    s.fouls = put(s.fouls, tech.target, s.fouls[tech.target] + 1)
    ctx.emit(Foul(t=ctx.now, seat=tech.target, count=s.fouls[tech.target]))
    if s.fouls[tech.target] >= FOULS_TO_REMOVE:
        return remove(ctx, tech.target)
    return None


def remove(ctx: Step, seat: int) -> Next | None:
    """T3: the player leaves at once with no last word; the day's vote is
    cancelled; the remaining day speeches go on, then night."""
    s = ctx.state
    s.forfeits = s.forfeits | {seat}
    depart(ctx, [(seat, "removed")])
    if decided(ctx):
        return None
    s.queue = tuple((q, kind) for q, kind in s.queue if q != seat and kind != "tie")
    if s.then == "revote":
        s.then = "night"
    if not s.nominations_closed:
        s.nominations_closed = True
        s.nominees = ()
        ctx.emit(VoteCancelled(t=ctx.now))
    if s.stage == "vote" or s.stage == "lift":
        s.vote_round, s.candidates, s.ballots = None, (), {}
        return "end_day"
    if s.stage == "speech" and (s.speaker == seat or s.speech_kind == "tie"):
        return speeches.end_speech(ctx, early=True)
    return None
