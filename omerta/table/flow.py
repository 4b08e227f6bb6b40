"""How one part of the game leads to the next: the meeting, the night
windows, dawn, the day's speech queue, and nightfall. Every part starts the
moment the one before it ends (docs/rules.md: times are exact).

The parts (draw, speeches, voting, technical) never call what follows them:
they return a `Next` and `proceed` runs it, so only this module knows the
order of the game."""

from __future__ import annotations

from . import best_move, speeches, voting
from .ending import decided, depart, end_game
from .events import EVERYONE, RECORD, Cause, Morning, Phase, Team, to_team
from .step import Next, Step

MEETING_SECONDS = 60  # N1


def proceed(ctx: Step, step: Next | None) -> None:
    """Run what a part of the game said comes next, until a part starts that
    waits for a deadline or an action (or the game ends)."""
    while step is not None:
        if step == "queue":
            step = run_queue(ctx)
        elif step == "end_day":
            end_day(ctx)
            step = None
        else:
            begin_meeting(ctx)
            step = None


def begin_meeting(ctx: Step) -> None:
    s = ctx.state
    s.stage, s.night, s.deadline = "meeting", 1, ctx.after(MEETING_SECONDS)
    ctx.emit(Phase(t=ctx.now, phase="meeting", night=1, seconds=MEETING_SECONDS))
    black = s.black_seats()
    # C2: the black team learns itself at the first night, not at the draw (K3).
    ctx.emit(
        Team(
            t=ctx.now,
            audience=to_team("black", black),
            roles={seat: s.role(seat) for seat in black},
        )
    )


def begin_night(ctx: Step) -> None:
    s = ctx.state
    s.night = s.day + 1
    s.choices = {}
    s.turns = s.ruleset.night_turns(s)
    s.turn = 0
    s.stage = "night"
    _start_turn(ctx)


def _start_turn(ctx: Step) -> None:
    s = ctx.state
    turn = s.turns[s.turn]
    s.deadline = ctx.after(turn.seconds)
    ctx.emit(Phase(ctx.now, turn.name, None, s.night, turn.seconds))  # no day: a night's window


def night_timeout(ctx: Step) -> Next | None:
    """S5: every window runs its full length, whatever was chosen."""
    s = ctx.state
    if s.turn + 1 < len(s.turns):
        s.turn += 1
        _start_turn(ctx)
        return None
    deaths, private = s.ruleset.dawn(s, ctx.now)
    for event in private:
        ctx.emit(event)
    return begin_day(ctx, deaths)


def begin_day(ctx: Step, deaths: list[tuple[int, Cause]]) -> Next | None:
    s = ctx.state
    s.day = s.night
    s.stage = "day"
    s.deadline = None
    s.turns, s.turn = (), 0
    s.nominees, s.nominations_closed, s.tied = (), False, ()
    s.vote_round, s.candidates, s.ballots = None, (), {}
    ctx.emit(Phase(t=ctx.now, phase="day", day=s.day, seconds=None))
    if s.day >= 2:
        ctx.emit(Morning(t=ctx.now, dead=[seat for seat, _ in deaths]))
        best_move.entitle(s, deaths)
    if deaths:
        # The morning event names the dead; the cause stays in the record when
        # the ruleset keeps it secret (M11).
        depart(ctx, deaths, EVERYONE if s.ruleset.public_night_causes else RECORD)
        if decided(ctx):  # E3: before any last word
            return None
    # S6, M11: last words in seat order, then the day speeches.
    s.queue = tuple((seat, "last_word") for seat, _ in sorted(deaths))
    s.then = "opening"
    return "queue"


def run_queue(ctx: Step) -> Next | None:
    """Start the next queued speech, or what follows the queue."""
    s = ctx.state
    if s.queue:
        (seat, kind), s.queue = s.queue[0], s.queue[1:]
        speeches.start_speech(ctx, seat, kind)
        return None
    s.stage = "day"
    s.deadline = None
    then, s.then = s.then, "night"
    if then == "opening":
        return _begin_day_speeches(ctx)
    if then == "verdict":
        return voting.after_speeches(ctx)
    if then == "revote":
        voting.start_revote(ctx)
        return None
    return "end_day"


def _begin_day_speeches(ctx: Step) -> Next:
    """D3: day 1 opens with seat 1; each next day with the next living seat
    after the previous opener, decided now (after any last words)."""
    s = ctx.state
    order = [(s.opener + i) % s.n + 1 for i in range(s.n)] if s.opener else list(s.seats)
    order = [seat for seat in order if s.alive[seat]]
    s.opener = order[0]
    s.queue = tuple((seat, "day") for seat in order)
    s.then = "verdict"
    return "queue"


def end_day(ctx: Step) -> None:
    """E2: the count is taken when a day ends; day 1 (with the meeting) does
    not count. The third quiet round ends the game before the next night."""
    s = ctx.state
    s.stage = "day"
    s.deadline = None
    s.vote_round = None
    if s.day >= 2:
        s.quiet = 0 if s.departed else s.quiet + 1
    s.departed = False
    if s.quiet >= 3:
        end_game(ctx, "draw", "three_quiet_rounds")
        return
    begin_night(ctx)
