"""Every action a seat may take right now: for bots, the UI and property tests.

It mirrors the checks of the handlers; the property tests hold the two
together (each listed action applies, and random actions never break rules)."""

from __future__ import annotations

from . import best_move
from .actions import (
    TECH_KINDS,
    Action,
    EndSpeech,
    Interject,
    Lift,
    Nominate,
    Pick,
    TechCall,
    TechVote,
    Vote,
)
from .state import State
from .technical import DAY_STAGES


def legal_actions(state: State, seat: int, tech_calls: bool = True) -> list[Action]:
    """`tech_calls=False` leaves out technical calls (30 of them by day), for
    callers that decide separately whether to call one."""
    s = state
    if s.over:
        return []
    if s.tech is not None:
        if s.alive[seat] and seat not in s.bots and seat not in s.tech.ballots:
            return [TechVote(seat, True), TechVote(seat, False)]
        return []
    if s.stage == "draw":
        if s.roles[seat] is not None or s.deck is None:
            return []
        return [Pick(seat, i) for i, card in enumerate(s.deck) if card is not None]
    if s.stage == "night":
        return list(s.ruleset.night_options(s, seat))
    out: list[Action] = []
    alive = s.alive[seat]
    if s.stage == "speech":
        day = s.speech_kind == "day"
        if seat == s.speaker:
            out.append(EndSpeech(seat))
            out += best_move.options(s, seat)
            if day and not s.speech_nominated and not s.nominations_closed:
                out += [Nominate(seat, t) for t in s.living() if t not in s.nominees]
        elif day and alive and s.interjections[seat] and s.interjector is None:
            out.append(Interject(seat))
    elif s.stage == "vote" and alive and seat not in s.ballots:
        if s.settings.voting == "open":
            out.append(Vote(seat, s.candidates[s.calling]))
        else:
            out += [Vote(seat, c) for c in s.candidates]
    elif s.stage == "lift" and alive and seat not in s.ballots:
        out += [Lift(seat, True), Lift(seat, False)]
    if tech_calls and may_call_tech(s, seat):
        out += [TechCall(seat, kind, t) for kind in TECH_KINDS for t in s.living()]
    return out


def may_call_tech(state: State, seat: int) -> bool:
    """T1, T2: a living player, by day, while no technical vote runs."""
    return not state.over and state.tech is None and state.alive[seat] and state.stage in DAY_STAGES


def legal_names(state: State, seat: int) -> list[str]:
    """The names of the actions `seat` may take now, sorted: what
    `legal_actions` lists, without building the actions (a view lists names
    for every seat after every step; a test holds the two together)."""
    s = state
    if s.over:
        return []
    if s.tech is not None:
        voter = s.alive[seat] and seat not in s.bots and seat not in s.tech.ballots
        return ["tech_vote"] if voter else []
    if s.stage == "draw":
        if s.roles[seat] is not None or s.deck is None:
            return []
        return ["pick"] if any(card is not None for card in s.deck) else []
    if s.stage == "night":
        return sorted({a.name for a in s.ruleset.night_options(s, seat)})
    names: list[str] = []
    alive = s.alive[seat]
    if s.stage == "speech":
        day = s.speech_kind == "day"
        if seat == s.speaker:
            names.append("end_speech")
            if best_move.may_name(s, seat) and any(q != seat for q in s.living()):
                names.append("best_move")
            if (
                day
                and not s.speech_nominated
                and not s.nominations_closed
                and any(t not in s.nominees for t in s.living())
            ):
                names.append("nominate")
        elif day and alive and s.interjections[seat] and s.interjector is None:
            names.append("interject")
    elif s.stage == "vote" and alive and seat not in s.ballots and s.candidates:
        names.append("vote")
    elif s.stage == "lift" and alive and seat not in s.ballots:
        names.append("lift")
    if may_call_tech(s, seat):
        names.append("tech_call")
    return sorted(names)
