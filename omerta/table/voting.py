"""Votes after the day speeches (V1–V7). A vote that ends hands on to the
speech queue or to nightfall (`Next`, run by flow)."""

from __future__ import annotations

from .actions import Lift, Vote
from .ending import decided, depart
from .errors import IllegalAction
from .events import EVERYONE, Audience, Ballot, Calling, Phase, Votes, to_seat
from .state import Round
from .step import Next, Step, require

VOTE_SECONDS = 10  # V3 closed
CALL_SECONDS = 5  # V3 open, per candidate
LIFT_SECONDS = 10  # V6


def _zero_day(ctx: Step) -> bool:
    """V7: on day 1 nobody leaves by vote unless `break_at_zero` is on."""
    return ctx.state.day == 1 and not ctx.state.settings.break_at_zero


def after_speeches(ctx: Step) -> Next | None:
    s = ctx.state
    if s.nominations_closed or not s.nominees:
        return "end_day"  # V1 (or T3: the vote is cancelled)
    if len(s.nominees) == 1:
        if _zero_day(ctx):
            return "end_day"  # V7: a single nominee stays
        return _eliminate(ctx, s.nominees[0])  # V1: leaves without a vote
    start_vote(ctx, "vote", s.nominees)
    return None


def start_revote(ctx: Step) -> None:
    """V5: the vote again, among the tied players only."""
    start_vote(ctx, "revote", ctx.state.tied)


def start_vote(ctx: Step, round_: Round, candidates: tuple[int, ...]) -> None:
    s = ctx.state
    s.stage, s.vote_round = "vote", round_
    s.candidates, s.ballots = tuple(candidates), {}
    if s.settings.voting == "open":
        s.calling = 0
        s.deadline = ctx.after(CALL_SECONDS)
        ctx.emit(Phase(t=ctx.now, phase=round_, day=s.day, seconds=CALL_SECONDS * len(candidates)))
        ctx.emit(Calling(t=ctx.now, candidate=candidates[0], seconds=CALL_SECONDS))
    else:
        s.deadline = ctx.after(VOTE_SECONDS)
        ctx.emit(Phase(t=ctx.now, phase=round_, day=s.day, seconds=VOTE_SECONDS))


def _ballot_audience(ctx: Step, voter: int) -> Audience:
    """V3: open votes are public as cast; closed ones only after the count."""
    return EVERYONE if ctx.state.settings.voting == "open" else to_seat(voter)


def on_vote(ctx: Step, action: Vote) -> Next | None:
    s, seat = ctx.state, action.seat
    if s.stage != "vote":
        raise IllegalAction("V2", "no_vote_now")
    if not s.alive[seat]:
        raise IllegalAction("V2", "dead_cannot_vote")
    if seat in s.ballots:
        raise IllegalAction("V2", "vote_is_final")
    if action.target not in s.candidates:
        raise IllegalAction("V2", "not_a_candidate", candidates=list(s.candidates))
    if s.settings.voting == "open":
        called = s.candidates[s.calling]
        if action.target != called:
            raise IllegalAction("V3", "not_called", seat=called)
    assert s.vote_round is not None
    s.ballots = {**s.ballots, seat: action.target}
    ctx.emit(
        Ballot(ctx.now, s.vote_round, seat, action.target, audience=_ballot_audience(ctx, seat))
    )
    if s.settings.voting == "closed" and len(s.ballots) == s.living_count():
        return _count(ctx)  # V3: ends early once all have voted
    return None


def vote_timeout(ctx: Step) -> Next | None:
    s = ctx.state
    if s.settings.voting == "open" and s.calling + 1 < len(s.candidates):
        s.calling += 1
        s.deadline = ctx.after(CALL_SECONDS)
        ctx.emit(Calling(t=ctx.now, candidate=s.candidates[s.calling], seconds=CALL_SECONDS))
        return None
    return _count(ctx)


def _count(ctx: Step) -> Next | None:
    s = ctx.state
    round_ = s.vote_round
    assert round_ is not None
    last = s.candidates[-1]  # V2, V5: the last in nomination order
    ballots = {voter: s.ballots.get(voter, last) for voter in s.living()}
    counts = {c: 0 for c in s.candidates}
    for target in ballots.values():
        counts[target] += 1
    ctx.emit(Votes(t=ctx.now, round=round_, ballots=ballots, counts=counts))
    top = max(counts.values())
    leaders = [c for c in s.candidates if counts[c] == top]
    s.vote_round, s.candidates, s.ballots, s.deadline = None, (), {}, None
    s.stage = "day"
    if len(leaders) == 1:
        if _zero_day(ctx):
            s.queue, s.then = ((leaders[0], "leader"),), "night"  # V7
            return "queue"
        return _eliminate(ctx, leaders[0])  # V4
    if round_ == "vote":
        s.tied = tuple(leaders)  # V5
        s.queue, s.then = tuple((seat, "tie") for seat in leaders), "revote"
        return "queue"
    if s.day == 1 and not s.settings.lift_at_zero:
        return "end_day"  # V7: no lift on day 1
    _start_lift(ctx, leaders)  # V6
    return None


def _eliminate(ctx: Step, seat: int) -> Next | None:
    depart(ctx, [(seat, "vote")])
    if decided(ctx):  # E3: before the farewell
        return None
    s = ctx.state
    s.queue, s.then = ((seat, "farewell"),), "night"
    return "queue"


def _start_lift(ctx: Step, tied: list[int]) -> None:
    s = ctx.state
    s.stage, s.vote_round = "lift", "lift"
    s.candidates, s.ballots = tuple(tied), {}
    s.deadline = ctx.after(LIFT_SECONDS)
    ctx.emit(Phase(t=ctx.now, phase="lift", day=s.day, seconds=LIFT_SECONDS))


def on_lift(ctx: Step, action: Lift) -> None:
    s, seat = ctx.state, action.seat
    require(s.stage == "lift", "V6", "no_lift_vote_now")
    require(s.alive[seat], "V6", "dead_cannot_vote")
    require(seat not in s.ballots, "V2", "vote_is_final")
    s.ballots = {**s.ballots, seat: action.yes}
    ctx.emit(
        Ballot(
            t=ctx.now,
            audience=_ballot_audience(ctx, seat),
            round="lift",
            voter=seat,
            yes=action.yes,
        )
    )


def lift_timeout(ctx: Step) -> Next | None:
    """V6: always run in full; non-voters count as no; more than half of the
    living must say yes; everyone in the tie leaves, with no farewell."""
    s = ctx.state
    living = s.living()
    ballots = {voter: s.ballots.get(voter, False) for voter in living}
    yes = sum(ballots.values())
    ctx.emit(
        Votes(
            t=ctx.now, round="lift", ballots=ballots, counts={"yes": yes, "no": len(living) - yes}
        )
    )
    tied = s.candidates
    s.vote_round, s.candidates, s.ballots, s.deadline = None, (), {}, None
    s.stage = "day"
    if 2 * yes > len(living):
        depart(ctx, [(seat, "lift") for seat in tied])
        if decided(ctx):
            return None
    return "end_day"
