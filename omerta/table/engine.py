"""The engine's entry points: `new_game`, `apply` and the clock helpers.

`apply(state, action, now) -> (state, events)` is the whole contract. A
timeout is an input like any action; the shell fires it when
`state.next_deadline` has passed."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from . import draw, flow, speeches, technical, voting
from .actions import (Action, Check, EndSpeech, Heal, Interject, Kill, Lift, Nominate, Pick,
                      Shoot, TechCall, TechVote, Timeout, Visit, Vote)
from .errors import BadAction, IllegalAction
from .events import Event
from .ruleset import Ruleset
from .state import State
from .step import Step, require


class ClockError(Exception):
    """The shell broke the clock contract (time ran backwards, or an action
    arrived after a deadline it did not fire). A bug in the caller, not a rule."""


def new_game(ruleset: Ruleset, settings: Mapping[str, Any] | None = None, seed: int | str = 0,
             deal: Mapping[int, str] | None = None, bots=()) -> tuple[State, list[Event]]:
    """Seat a table at t=0: the draw starts, or with a deal the meeting does."""
    parsed = ruleset.parse_settings(settings)
    n = ruleset.seat_count(parsed)
    bots = frozenset(bots)
    for seat in bots:
        if not 1 <= seat <= n:
            raise BadAction(f"bot seat {seat} is not a seat of this table (1-{n})")
    if deal is not None:
        deal = _check_deal(ruleset.deck(parsed), n, deal)
    state = State(ruleset=ruleset, settings=parsed, seed=seed, n=n, bots=bots,
                  roles=(None,) * (n + 1), alive=(False,) + (True,) * n, fouls=(0,) * (n + 1),
                  interjections=(0,) + (speeches.INTERJECTIONS_PER_GAME,) * n,
                  short_next=(False,) * (n + 1))
    ctx = Step(state, 0.0)
    draw.begin(ctx, deal)
    return ctx.state, ctx.events


def _check_deal(deck: list[str], n: int, deal: Mapping[int, str]) -> dict[int, str]:
    rest = list(deck)
    out = {}
    for seat, role in deal.items():
        if not 1 <= seat <= n:
            raise BadAction(f"deal names seat {seat}; seats are 1-{n}")
        if role not in rest:
            known = ", ".join(sorted(set(deck)))
            raise BadAction(f"deal gives seat {seat} the role {role!r}, which the deck has no more"
                            f" of (the deck: {known})")
        rest.remove(role)
        out[seat] = role
    return out


def apply(state: State, action: Action | Timeout, now: float) -> tuple[State, list[Event]]:
    """Apply one action (or the due timeout) at time `now` (seconds since the
    game started, taken to the millisecond). Raises
    IllegalAction naming the rule; the given state is never modified."""
    due = state.next_deadline
    if isinstance(action, Timeout):
        if due is None or now < due:
            raise ClockError(f"no deadline is due at {now}")
        ctx = Step(state.clone(), due)   # the next part starts exactly at the deadline
        _timeout(ctx)
    else:
        now = round(now, 3)     # the engine's clock counts whole milliseconds
        if now < state.now:
            raise ClockError(f"time runs backwards: {now} < {state.now}")
        if due is not None and now > due:
            raise ClockError(f"the deadline at {due} must fire before an action at {now}")
        require(not state.over, "E4", "the game is over")
        _check_seats(state, action)
        ctx = Step(state.clone(), now)
        _dispatch(ctx, action)
    ctx.state.now = ctx.now
    return ctx.state, ctx.events


def advance(state: State, until: float, *, inclusive: bool = False) -> tuple[State, list[Event]]:
    """Fire every deadline before `until` (also at `until` when inclusive)."""
    events: list[Event] = []
    while True:
        due = state.next_deadline
        if due is None or due > until or (due == until and not inclusive):
            return state, events
        state, more = apply(state, Timeout(), due)
        events.extend(more)


def _check_seats(state: State, action: Action) -> None:
    for name in ("seat", "target"):
        seat = getattr(action, name, None)
        if seat is not None and not 1 <= seat <= state.n:
            raise IllegalAction("C1", f"there is no seat {seat} at this table (1-{state.n})")


def _timeout(ctx: Step) -> None:
    stage = ctx.state.stage
    if ctx.state.tech is not None:
        technical.timeout(ctx)
    elif stage == "speech":
        speeches.timeout(ctx)
    elif stage == "vote":
        voting.vote_timeout(ctx)
    elif stage == "lift":
        voting.lift_timeout(ctx)
    elif stage == "night":
        flow.night_timeout(ctx)
    elif stage == "meeting":
        flow.begin_day(ctx, [])
    else:
        draw.timeout(ctx)


def _night(ctx: Step, action: Action) -> None:
    s = ctx.state
    require(s.stage == "night", _NIGHT_RULES[type(action)], f"{action.name} is a night action")
    for event in s.ruleset.night_action(s, action, ctx.now):
        ctx.emit(event)


_NIGHT_RULES = {Shoot: "S1", Check: "S3", Visit: "M5", Kill: "M7", Heal: "M8"}

_HANDLERS: dict[type, Callable[[Step, Any], None]] = {
    Pick: draw.on_pick,
    EndSpeech: speeches.on_end_speech,
    Nominate: speeches.on_nominate,
    Interject: speeches.on_interject,
    Vote: voting.on_vote,
    Lift: voting.on_lift,
    TechCall: technical.on_call,
    TechVote: technical.on_vote,
    **{cls: _night for cls in _NIGHT_RULES},
}


def _dispatch(ctx: Step, action: Action) -> None:
    if ctx.state.tech is not None and not isinstance(action, TechVote):
        raise IllegalAction("T2", "a technical vote is running: only its ballots count now"
                                  " (one technical vote at a time)")
    _HANDLERS[type(action)](ctx, action)
