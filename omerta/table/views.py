"""What one seat may know and who may hear and see whom, derived from state.

Nothing here is stored: a seat's view and the media gate are computed from
the state whenever they are needed, so they can never drift from the rules."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .legal import legal_names
from .state import State

KINDS = ("audio", "video")


@dataclass(frozen=True, slots=True)
class Gate:
    """For each kind, source seat -> the seats that receive it. Sources in
    `public` also reach spectators. Anything not listed is closed."""

    audio: dict[int, frozenset[int]]
    video: dict[int, frozenset[int]]
    public: frozenset[int] = frozenset()

    def allows(self, source: int, receiver: int | None, kind: str) -> bool:
        if receiver is None:
            return source in self.public and source in getattr(self, kind)
        return receiver in getattr(self, kind).get(source, ())

    def to_dict(self) -> dict[str, Any]:
        return {kind: {str(src): sorted(dst) for src, dst in getattr(self, kind).items()}
                for kind in KINDS}

    def hints(self) -> dict[str, dict[int | None, list[int]]]:
        """For each kind, receiving seat (None: spectators) -> the sources
        it receives now, in order: for the UI, which shows who is live
        (enforcement never depends on it). Seats not listed receive nothing."""
        out: dict[str, dict[int | None, list[int]]] = {}
        for kind in KINDS:
            routes = getattr(self, kind)
            receivers: dict[int | None, list[int]] = {}
            for src in sorted(routes):
                for dst in routes[src]:
                    receivers.setdefault(dst, []).append(src)
                if src in self.public:
                    receivers.setdefault(None, []).append(src)
            out[kind] = receivers
        return out


CLOSED = Gate({}, {})


def gate(state: State) -> Gate:
    s = state
    if s.over:
        every = frozenset(s.seats)
        to_all = {src: every - {src} for src in s.seats}
        return Gate(to_all, dict(to_all), every)
    if s.tech is not None or s.stage == "draw":
        return CLOSED                                   # K3; T2 freezes every speech
    if s.stage == "speech":
        speakers = [s.speaker] + ([s.interjector] if s.interjector is not None else [])
        every = frozenset(s.seats)
        to_all = {src: every - {src} for src in speakers}
        return Gate(to_all, dict(to_all), frozenset(speakers))   # D1, D4
    if s.stage == "meeting":
        room = frozenset(s.black_seats())
        sound = s.settings.agreement == "sound"          # N2
        return _room(room, sound)
    turn = s.current_turn()
    if turn is not None and turn.room is not None:
        return _room(*s.ruleset.room(s, turn))
    return CLOSED


def _room(room: frozenset[int], sound: bool) -> Gate:
    among = {src: room - {src} for src in room}
    return Gate(dict(among) if sound else {}, among)


def phase_name(state: State) -> str:
    s = state
    if s.stage == "speech":
        return f"{s.speech_kind}_speech"
    if s.stage == "vote":
        return s.vote_round
    turn = s.current_turn()
    return turn.name if turn is not None else s.stage


def known_roles(state: State, seat: int | None) -> dict[int, str]:
    s = state
    if s.over:
        return {q: s.roles[q] for q in s.seats}           # E4
    if seat is None or s.roles[seat] is None:
        return {}
    known = {seat: s.roles[seat]}                         # C2, K3
    if s.stage != "draw" and s.roles[seat] in s.ruleset.black_roles:
        known.update({q: s.roles[q] for q in s.black_seats()})   # C2, from the first night
    return known


def view(state: State, seat: int | None) -> dict[str, Any]:
    """Everything `seat` may know right now (None: a spectator)."""
    return views(state, (seat,))[seat]


def views(state: State, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """`view` for each of `seats`, sharing what is the same for every seat
    (a live table builds ten views after each step)."""
    s = state
    now_gate = gate(s)
    shared: dict[str, Any] = {
        "ruleset": s.ruleset.name,
        "settings": s.settings.to_dict(),
        "phase": phase_name(s),
        "day": s.day,
        "night": s.night,
        "deadline": s.deadline,
    }
    after = {
        "speaker": s.speaker,
        "speech_kind": s.speech_kind,
        "interjector": s.interjector,
        "interjection_end": s.interjection_end,
        "nominees": list(s.nominees),
        "nominations_closed": s.nominations_closed,
    }
    # Each seat sees the others' roles as unknown, but for those it knows.
    public_seats = [{"seat": q, "alive": s.alive[q], "bot": q in s.bots, "fouls": s.fouls[q],
                     "interjections": s.interjections[q], "role": None} for q in s.seats]
    hints = now_gate.hints()
    out = {}
    for seat in seats:
        seat_list = list(public_seats)
        for q, role in known_roles(s, seat).items():
            seat_list[q - 1] = {**public_seats[q - 1], "role": role}
        out[seat] = {
            "seat": seat,
            **shared,
            "seats": seat_list,
            **after,
            "vote": _vote_view(s, seat),
            "tech": _tech_view(s, seat),
            "checks": {str(t): s.ruleset.reveal(s, seat, t)
                       for t in sorted(s.checked.get(seat, ()))} if seat is not None else {},
            "gate": {kind: list(hints[kind].get(seat, ())) for kind in KINDS},
            "actions": legal_names(s, seat) if seat is not None else [],
            "winner": s.winner,
            "reason": s.reason,
        }
    return out


def _vote_view(s: State, seat: int | None) -> dict[str, Any] | None:
    if s.vote_round is None:
        return None
    public = s.settings.voting == "open"                  # V3
    ballots = {str(v): b for v, b in s.ballots.items() if public or v == seat}
    return {"round": s.vote_round, "candidates": list(s.candidates),
            "calling": s.candidates[s.calling] if public and s.vote_round != "lift" else None,
            "ballots": ballots, "voted": len(s.ballots) if public else None}


def _tech_view(s: State, seat: int | None) -> dict[str, Any] | None:
    t = s.tech
    if t is None:
        return None
    return {"kind": t.kind, "by": t.by, "target": t.target, "end": t.end,
            "your_ballot": t.ballots.get(seat) if seat is not None else None}
