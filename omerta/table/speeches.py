"""Speeches, nominations and interjections (D1–D5). A speech that ends
hands on to the speech queue (`"queue"`, run by flow)."""

from __future__ import annotations

from .actions import EndSpeech, Interject, Nominate
from .errors import IllegalAction
from .events import Interjection, InterjectionEnded, Nominated, Speech, SpeechEnded
from .state import SpeechKind, put
from .step import Next, Step

SHORT_SECONDS = 30  # D4 after the third interjection, V5 tie, V7 leader
FAREWELL_SECONDS = 60  # V4 farewell, S6 last word
INTERJECTION_SECONDS = 5  # D4
INTERJECTIONS_PER_GAME = 3  # D4


def start_speech(ctx: Step, seat: int, kind: SpeechKind) -> None:
    s = ctx.state
    seconds: float
    if kind == "day":
        seconds = s.ruleset.speech_seconds(s.settings)
        if s.short_next[seat]:
            seconds = SHORT_SECONDS
            s.short_next = put(s.short_next, seat, False)
    elif kind == "tie" or kind == "leader":
        seconds = SHORT_SECONDS
    else:
        seconds = FAREWELL_SECONDS
    s.stage = "speech"
    s.speaker, s.speech_kind, s.speech_nominated = seat, kind, False
    s.deadline = ctx.after(seconds)
    ctx.emit(Speech(ctx.now, seat, seconds, kind))  # by position: the busiest step


def end_speech(ctx: Step, early: bool) -> Next:
    s = ctx.state
    assert s.speaker is not None
    if s.interjector is not None:
        end_interjection(ctx)
    ctx.emit(SpeechEnded(ctx.now, s.speaker, early))
    s.speaker = s.speech_kind = None
    return "queue"


def end_interjection(ctx: Step) -> None:
    s = ctx.state
    if s.interjector is not None:
        ctx.emit(InterjectionEnded(ctx.now, s.interjector))
        s.interjector = s.interjection_end = None


def timeout(ctx: Step) -> Next | None:
    """D5: an interjection ends after 5 s or with the speech, whichever is first."""
    s = ctx.state
    assert s.deadline is not None
    if s.interjection_end is not None and s.interjection_end < s.deadline:
        end_interjection(ctx)
        return None
    return end_speech(ctx, False)


def on_end_speech(ctx: Step, action: EndSpeech) -> Next:
    s = ctx.state
    if s.stage != "speech":
        raise IllegalAction("D1", "nobody_speaking")
    if action.seat != s.speaker:
        raise IllegalAction("D1", "only_speaker_ends", speaker=s.speaker)
    return end_speech(ctx, early=True)


def on_nominate(ctx: Step, action: Nominate) -> None:
    s = ctx.state
    if s.speech_kind != "day":
        raise IllegalAction("D2", "no_nominations_now")
    if action.seat != s.speaker:
        raise IllegalAction("D2", "only_speaker_nominates", speaker=s.speaker)
    if s.nominations_closed:
        raise IllegalAction("T3", "nominations_cancelled")
    if s.speech_nominated:
        raise IllegalAction("D2", "one_nomination_per_speech")
    if not s.alive[action.target]:
        raise IllegalAction("D2", "not_alive", seat=action.target)
    if action.target in s.nominees:
        raise IllegalAction("D2", "already_nominated", seat=action.target)
    s.speech_nominated = True
    s.nominees = s.nominees + (action.target,)
    ctx.emit(Nominated(ctx.now, action.seat, action.target))


def on_interject(ctx: Step, action: Interject) -> None:
    s, seat = ctx.state, action.seat
    if s.speech_kind != "day":
        raise IllegalAction("D4", "no_interjection_now")
    if not s.alive[seat]:
        raise IllegalAction("D4", "dead_cannot_interject")
    if seat == s.speaker:
        raise IllegalAction("D4", "own_speech")
    if s.interjections[seat] <= 0:
        raise IllegalAction("D4", "no_interjections_left", count=INTERJECTIONS_PER_GAME)
    if s.interjector is not None:
        raise IllegalAction("D5", "someone_interjecting", seat=s.interjector)
    s.interjections = put(s.interjections, seat, s.interjections[seat] - 1)
    if s.interjections[seat] == 0:
        s.short_next = put(s.short_next, seat, True)
    s.interjector = seat
    s.interjection_end = ctx.after(INTERJECTION_SECONDS)
    assert s.deadline is not None
    seconds = min(INTERJECTION_SECONDS, s.deadline - ctx.now)
    ctx.emit(Interjection(ctx.now, seat, s.interjections[seat], seconds))
