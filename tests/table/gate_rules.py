"""The media gate as docs/rules.md G1–G5 state it, checked from the state's
plain facts (stage, who lives, who speaks) rather than from views.gate's own
branches, so a test using it fails when the gate drifts from the rules."""

from __future__ import annotations

from omerta.table.state import State
from omerta.table.views import gate

KINDS = ("audio", "video")
BLACK = ("don", "mafia")


def night_room(state: State) -> tuple[set[int], bool]:
    """G2: who sees each other at night, and whether they also hear (N2,
    S1 in the classic shot, M13 for city turns). Only the living are in it."""
    s = state
    if s.stage == "meeting":
        return {q for q in s.seats if s.roles[q] in BLACK}, s.settings.agreement == "sound"
    turn = s.current_turn()
    assert turn is not None
    if turn.name in ("shot", "mafia"):
        hears = turn.name == "shot" or s.settings.agreement == "sound"
        return {q for q in s.living() if s.roles[q] in BLACK}, hears
    if turn.name == "checks":
        return set(), False
    return {q for q in s.living() if s.roles[q] == turn.name}, True


def expected(state: State) -> dict[str, tuple[set[int], set[int] | None]]:
    """For each kind: (sources, the room they reach, or None for every seat
    and spectators)."""
    s = state
    if s.over:  # G5
        return {kind: (set(s.seats), None) for kind in KINDS}
    if s.stage == "draw":  # G1
        return {kind: (set(), set()) for kind in KINDS}
    if s.stage in ("meeting", "night"):  # G2
        room, hears = night_room(s)
        return {"video": (room, room), "audio": (room if hears else set(), room)}
    # G3 by day; G4 a departed player is no source but while giving a last
    # word or farewell.
    cameras = set(s.living())
    if s.speaker is not None and s.speech_kind in ("last_word", "farewell"):
        cameras.add(s.speaker)
    mics: set[int] = set()
    if s.stage == "speech" and s.tech is None:
        mics = {q for q in (s.speaker, s.interjector) if q is not None}
    return {"video": (cameras, None), "audio": (mics, None)}


def check_gate(state: State) -> None:
    """Assert G1–G5 for every (source, receiver, kind), spectators included."""
    g = gate(state)
    seats = list(state.seats)
    for kind, (sources, room) in expected(state).items():
        for src in seats:
            for dst in (*seats, None):
                if src not in sources or dst == src:
                    want = False
                elif room is None:
                    want = True  # every seat, living or dead, and spectators
                else:
                    want = dst in room
                assert g.allows(src, dst, kind) == want, (
                    f"{kind} {src}->{dst} at {state.stage} (day {state.day}, night"
                    f" {state.night}): gate says {not want}"
                )
