"""The engine's entry points: `new_game`, `apply` and the clock helpers.

`apply(state, action, now) -> (state, events)` is the whole contract (a
replay, the only holder of its state, may let it change that state in
place). A timeout is an input like any action; the shell fires it when
`state.next_deadline` has passed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any

from . import best_move, draw, flow, speeches, technical, voting
from .actions import (
    Action,
    BestMove,
    EndSpeech,
    Interject,
    Lift,
    NightAction,
    Nominate,
    Pick,
    TechCall,
    TechVote,
    Timeout,
    Vote,
)
from .clock import whole_ms
from .errors import BadAction, IllegalAction
from .events import Event
from .ruleset import Ruleset
from .state import Stage, State
from .step import Next, Step


class ClockError(Exception):
    """The shell broke the clock contract (time ran backwards, or an action
    arrived after a deadline it did not fire). A bug in the caller, not a rule."""


def new_game(
    ruleset: Ruleset,
    settings: Mapping[str, Any] | None = None,
    seed: int | str = 0,
    deal: Mapping[int, str] | None = None,
    bots: Iterable[int] = (),
    stand_ins: Iterable[int] = (),
) -> tuple[State, list[Event]]:
    """Seat a table at t=0: the draw starts, or with a deal the meeting does.
    `stand_ins`: the bot seats that play for an absent tournament player
    (A1: they leave the table ranked)."""
    parsed = ruleset.parse_settings(settings)
    n = ruleset.seat_count(parsed)
    bot_seats = frozenset(bots)
    for seat in bot_seats:
        if not 1 <= seat <= n:
            raise BadAction("bad_bot_seat", seat=seat, seats=n)
    standing_in = frozenset(stand_ins)
    if not standing_in <= bot_seats:
        raise BadAction("stand_in_not_bot", seat=min(standing_in - bot_seats))
    checked = None if deal is None else _check_deal(ruleset.deck(parsed), n, deal)
    state = State(
        ruleset=ruleset,
        settings=parsed,
        seed=seed,
        n=n,
        bots=bot_seats,
        stand_ins=standing_in,
        roles=(None,) * (n + 1),
        alive=(False,) + (True,) * n,
        fouls=(0,) * (n + 1),
        interjections=(0,) + (speeches.INTERJECTIONS_PER_GAME,) * n,
        short_next=(False,) * (n + 1),
    )
    ctx = Step(state, 0.0)
    flow.proceed(ctx, draw.begin(ctx, checked))
    return ctx.state, ctx.events


def _check_deal(deck: list[str], n: int, deal: Mapping[int, str]) -> dict[int, str]:
    rest = list(deck)
    out = {}
    for seat, role in deal.items():
        if not 1 <= seat <= n:
            raise BadAction("bad_deal_seat", seat=seat, seats=n)
        if role not in rest:
            raise BadAction("bad_deal_role", seat=seat, role=role, deck=sorted(set(deck)))
        rest.remove(role)
        out[seat] = role
    return out


def apply(
    state: State, action: Action | Timeout, now: float, in_place: bool = False
) -> tuple[State, list[Event]]:
    """Apply one action (or the due timeout) at time `now` (seconds since the
    game started, taken to the millisecond). Raises
    IllegalAction naming the rule. The given state is never modified,
    unless `in_place`: then `state` itself becomes the new state and is
    returned, for a caller that holds the only reference to it (a replay:
    a new state a step, and the old one's release, were a twentieth of
    replaying a record). A refused action leaves it as it was either way."""
    due = state.next_deadline
    if isinstance(action, Timeout):
        if due is None or now < due:
            raise ClockError(f"no deadline is due at {now}")
        # the next part starts exactly at the deadline
        ctx = Step(state if in_place else state.clone(), due)
        s = ctx.state
        then = technical.timeout(ctx) if s.tech is not None else _TIMEOUTS[s.stage](ctx)
    else:
        now = whole_ms(now)
        if now < state.now:
            raise ClockError(f"time runs backwards: {now} < {state.now}")
        if due is not None and now > due:
            raise ClockError(f"the deadline at {due} must fire before an action at {now}")
        # Written out here, not with `require` and the `over` property: two
        # calls were a twentieth of a nomination's step.
        if state.stage == "over":
            raise IllegalAction("E4", "game_over")
        seats_check = _SEAT_CHECKS.get(type(action)) or _compile_seat_check(type(action))
        seats_check(action, state.n)  # C1
        if state.tech is not None and not isinstance(action, TechVote):
            raise IllegalAction("T2", "technical_vote_running")
        # Refusals come from the handlers (what follows only moves the game
        # on); one that changed the state in place first must not keep it.
        kept = state.__dict__.copy() if in_place else None
        ctx = Step(state if in_place else state.clone(), now)
        try:
            then = _HANDLERS.get(type(action), _night)(ctx, action)
        except IllegalAction:
            if kept is not None:
                state.__dict__ = kept
            raise
    if then is not None:  # most steps: nothing follows at once
        flow.proceed(ctx, then)
    ctx.state.now = ctx.now
    return ctx.state, ctx.events


_TIMEOUT = Timeout()


def advance(
    state: State, until: float, *, inclusive: bool = False, in_place: bool = False
) -> tuple[State, list[Event]]:
    """Fire every deadline before `until` (also at `until` when inclusive)."""
    events: list[Event] = []
    while True:
        due = state.next_deadline
        if due is None or due > until or (due == until and not inclusive):
            return state, events
        state, more = apply(state, _TIMEOUT, due, in_place=in_place)
        events.extend(more)


#: C1 for each action class met so far, written out for its fields
_SEAT_CHECKS: dict[type[Action], Callable[[Any, int], None]] = {}


def _compile_seat_check(cls: type[Action]) -> Callable[[Any, int], None]:
    """C1 for the seats `cls` names (seat, target, a list of targets), each
    field read by name in the code, as `dataclasses` writes `__init__`: a
    loop reading them with `getattr` was a tenth of a nomination's step.
    Kept in _SEAT_CHECKS, so each class is compiled the first time it is met."""
    lines = ["def check(action, n):"]
    for name in (f.name for f in fields(cls)):
        if name == "targets":
            lines += ["    for seat in action.targets:", "        if not 1 <= seat <= n:"]
            lines.append("            raise refused(seat, n)")
        elif name in ("seat", "target"):
            lines += [
                f"    if not 1 <= action.{name} <= n:",
                f"        raise refused(action.{name}, n)",
            ]
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), {"refused": _no_such_seat}, namespace)
    check: Callable[[Any, int], None] = namespace["check"]
    _SEAT_CHECKS[cls] = check
    return check


def _no_such_seat(seat: int, n: int) -> IllegalAction:
    return IllegalAction("C1", "no_such_seat", seat=seat, seats=n)


def _meeting_timeout(ctx: Step) -> Next | None:
    return flow.begin_day(ctx, [])


#: what the deadline of each stage ends (a technical vote's comes first)
_TIMEOUTS: dict[Stage, Callable[[Step], Next | None]] = {
    "speech": speeches.timeout,
    "vote": voting.vote_timeout,
    "lift": voting.lift_timeout,
    "night": flow.night_timeout,
    "meeting": _meeting_timeout,
    "draw": draw.timeout,
}


def _night(ctx: Step, action: Action) -> None:
    """Every action without a handler of its own is a night choice, which
    the ruleset decides."""
    assert isinstance(action, NightAction)
    s = ctx.state
    if s.stage != "night":
        raise IllegalAction(action.rule, "not_night", action=action.name)
    ctx.events += s.ruleset.night_action(s, action, ctx.now)


_HANDLERS: dict[type[Action], Callable[[Step, Any], Next | None]] = {
    Pick: draw.on_pick,
    EndSpeech: speeches.on_end_speech,
    Nominate: speeches.on_nominate,
    Interject: speeches.on_interject,
    Vote: voting.on_vote,
    Lift: voting.on_lift,
    TechCall: technical.on_call,
    TechVote: technical.on_vote,
    BestMove: best_move.on_best_move,
}
