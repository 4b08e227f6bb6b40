"""Speeches, nominations and interjections (D1–D5)."""
from __future__ import annotations

from . import flow
from .actions import EndSpeech, Interject, Nominate
from .events import Interjection, InterjectionEnded, Nominated, Speech, SpeechEnded
from .state import put
from .step import Step, require

SHORT_SECONDS = 30          # D4 after the third interjection, V5 tie, V7 leader
FAREWELL_SECONDS = 60       # V4 farewell, S6 last word
INTERJECTION_SECONDS = 5    # D4
INTERJECTIONS_PER_GAME = 3  # D4


def start_speech(ctx: Step, seat: int, kind: str) -> None:
    s = ctx.state
    if kind == "day":
        seconds = s.ruleset.speech_seconds(s.settings)
        if s.short_next[seat]:
            seconds = SHORT_SECONDS
            s.short_next = put(s.short_next, seat, False)
    elif kind in ("tie", "leader"):
        seconds = SHORT_SECONDS
    else:
        seconds = FAREWELL_SECONDS
    s.stage = "speech"
    s.speaker, s.speech_kind, s.speech_nominated = seat, kind, False
    s.deadline = ctx.after(seconds)
    ctx.emit(Speech(t=ctx.now, seat=seat, seconds=seconds, kind=kind))


def end_speech(ctx: Step, early: bool) -> None:
    s = ctx.state
    end_interjection(ctx)
    ctx.emit(SpeechEnded(t=ctx.now, seat=s.speaker, early=early))
    s.speaker = s.speech_kind = None
    flow.run_queue(ctx)


def end_interjection(ctx: Step) -> None:
    s = ctx.state
    if s.interjector is not None:
        ctx.emit(InterjectionEnded(t=ctx.now, seat=s.interjector))
        s.interjector = s.interjection_end = None


def timeout(ctx: Step) -> None:
    """D5: an interjection ends after 5 s or with the speech, whichever is first."""
    s = ctx.state
    if s.interjector is not None and s.interjection_end < s.deadline:
        end_interjection(ctx)
    else:
        end_speech(ctx, early=False)


def on_end_speech(ctx: Step, action: EndSpeech) -> None:
    s = ctx.state
    require(s.stage == "speech", "D1", "nobody is speaking now")
    require(action.seat == s.speaker, "D1", f"only the speaker (seat {s.speaker}) may end the speech")
    end_speech(ctx, early=True)


def on_nominate(ctx: Step, action: Nominate) -> None:
    s = ctx.state
    require(s.stage == "speech" and s.speech_kind == "day", "D2",
            "nominations are made only during a day speech")
    require(action.seat == s.speaker, "D2", f"only the speaker (seat {s.speaker}) may nominate")
    require(not s.nominations_closed, "T3",
            "a removal has cancelled today's vote: no more nominations today")
    require(not s.speech_nominated, "D2", "one nomination per speech, and it is final")
    require(s.alive[action.target], "D2", f"seat {action.target} is not alive")
    require(action.target not in s.nominees, "D2", f"seat {action.target} is already nominated today")
    s.speech_nominated = True
    s.nominees = s.nominees + (action.target,)
    ctx.emit(Nominated(t=ctx.now, by=action.seat, target=action.target))


def on_interject(ctx: Step, action: Interject) -> None:
    s, seat = ctx.state, action.seat
    require(s.stage == "speech" and s.speech_kind == "day", "D4",
            "interjections are allowed only during a day speech")
    require(s.alive[seat], "D4", "only living players interject")
    require(seat != s.speaker, "D4", "the speaker cannot interject in their own speech")
    require(s.interjections[seat] > 0, "D4", "all 3 interjections of this game are used")
    require(s.interjector is None, "D5", f"seat {s.interjector} is interjecting; one at a time")
    s.interjections = put(s.interjections, seat, s.interjections[seat] - 1)
    if s.interjections[seat] == 0:
        s.short_next = put(s.short_next, seat, True)
    s.interjector = seat
    s.interjection_end = ctx.after(INTERJECTION_SECONDS)
    seconds = min(INTERJECTION_SECONDS, s.deadline - ctx.now)
    ctx.emit(Interjection(t=ctx.now, seat=seat, left=s.interjections[seat], seconds=seconds))
