"""What one seat may know and who may hear and see whom, derived from state.

Nothing here is stored: a seat's view and the media gate are computed from
the state whenever they are needed, so they can never drift from the rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .events import Event
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
        return {
            kind: {str(src): sorted(dst) for src, dst in getattr(self, kind).items()}
            for kind in KINDS
        }

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
    """Who sees and hears whom now (docs/rules.md G1–G5)."""
    s = state
    if s.over:
        return _broadcast(s, s.seats, s.seats)  # G5
    if s.stage == "draw":
        return CLOSED  # G1, K3
    if s.stage == "meeting":
        return _room(frozenset(s.black_seats()), s.settings.agreement == "sound")  # G2, N2
    if s.stage == "night":
        turn = s.current_turn()
        if turn is not None and turn.room is not None:
            return _room(*s.ruleset.room(s, turn))  # G2, S1, M13
        return CLOSED
    return _day(s)


def _day(s: State) -> Gate:
    """G3: every living camera, and that of a dead player giving a last word
    or farewell, reaches every seat and spectators; the only open mics are the
    speaker's and an interjector's, and none during a vote or a technical
    vote. G4: anyone else who has left is no source."""
    cameras = [q for q in s.seats if s.alive[q] or q == s.speaker]
    mics: list[int] = []
    if s.stage == "speech" and s.tech is None:
        mics = [q for q in (s.speaker, s.interjector) if q is not None]
    return _broadcast(s, cameras, mics)


def _broadcast(s: State, cameras: Iterable[int], mics: Iterable[int]) -> Gate:
    """Each source to every other seat, dead ones included, and to spectators."""
    every = frozenset(s.seats)
    video = {src: every - {src} for src in cameras}
    audio = {src: video.get(src) or every - {src} for src in mics}
    return Gate(audio, video, frozenset(video) | frozenset(audio))


def _room(room: frozenset[int], sound: bool) -> Gate:
    """Night: the room sees (and hears) each other; nobody else, no spectator."""
    among = {src: room - {src} for src in room}
    return Gate(dict(among) if sound else {}, among)


def phase_name(state: State) -> str:
    s = state
    if s.stage == "speech":
        return f"{s.speech_kind}_speech"
    if s.stage == "vote" and s.vote_round is not None:
        return str(s.vote_round)
    turn = s.current_turn()
    return turn.name if turn is not None else str(s.stage)


def known_roles(state: State, seat: int | None) -> dict[int, str]:
    s = state
    if s.over:
        return {q: s.role(q) for q in s.seats}  # E4
    mine = None if seat is None else s.roles[seat]
    if seat is None or mine is None:
        return {}
    if s.stage != "draw" and mine in s.ruleset.black_roles:
        return {q: s.role(q) for q in s.black_seats()}  # C2, from the first night
    return {seat: mine}  # C2, K3


def view(state: State, seat: int | None) -> dict[str, Any]:
    """Everything `seat` may know right now (None: a spectator)."""
    return views(state, (seat,))[seat]


@dataclass(frozen=True, slots=True)
class Common:
    """The parts of a moment's views that are the same for every seat, in
    the order a view lists them: built once for the ten views of a step
    (the wire encodes each part once too: omerta/runtime/messages.py)."""

    head: dict[str, Any]  # ruleset .. deadline
    rows: list[dict[str, Any]]  # each seat as everyone sees it: no role, "role" last
    after: dict[str, Any]  # speaker .. nominations_closed
    hints: dict[str, dict[int | None, list[int]]]
    end: dict[str, Any]  # winner, reason


def common(state: State) -> Common:
    s = state
    return Common(
        head={
            "ruleset": s.ruleset.name,
            "settings": s.settings.to_dict(),
            "phase": phase_name(s),
            "day": s.day,
            "night": s.night,
            "deadline": s.deadline,
        },
        rows=[
            {
                "seat": q,
                "alive": s.alive[q],
                "bot": q in s.bots,
                "fouls": s.fouls[q],
                "interjections": s.interjections[q],
                "role": None,
            }
            for q in s.seats
        ],
        after={
            "speaker": s.speaker,
            "speech_kind": s.speech_kind,
            "interjector": s.interjector,
            "interjection_end": s.interjection_end,
            "nominees": list(s.nominees),
            "nominations_closed": s.nominations_closed,
        },
        hints=gate(s).hints(),
        end={"winner": s.winner, "reason": s.reason},
    )


def own(state: State, seat: int | None, shared: Common) -> dict[str, Any]:
    """The parts of `seat`'s view after its seats and before `shared.end`
    that differ from seat to seat (its known roles go into the seats)."""
    s = state
    checks: dict[str, Any] = {}
    if seat is not None and (checked := s.checked.get(seat)):
        checks = {str(t): s.ruleset.reveal(s, seat, t) for t in sorted(checked)}
    hints = shared.hints
    return {
        "vote": _vote_view(s, seat),
        "tech": _tech_view(s, seat),
        "checks": checks,
        # Each receiver's list of a step is its own: one seat's view holds it.
        "gate": {"audio": hints["audio"].get(seat, []), "video": hints["video"].get(seat, [])},
        "actions": legal_names(s, seat) if seat is not None else [],
    }


def views(state: State, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """`view` for each of `seats`, sharing what is the same for every seat
    (a live table builds ten views after each step)."""
    s = state
    shared = common(s)
    out = {}
    for seat in seats:
        rows = list(shared.rows)
        for q, role in known_roles(s, seat).items():
            rows[q - 1] = {**rows[q - 1], "role": role}
        out[seat] = {
            "seat": seat,
            **shared.head,
            "seats": rows,
            **shared.after,
            **own(s, seat, shared),
            **shared.end,
        }
    return out


def _vote_view(s: State, seat: int | None) -> dict[str, Any] | None:
    if s.vote_round is None:
        return None
    public = s.settings.voting == "open"  # V3
    ballots = {str(v): b for v, b in s.ballots.items() if public or v == seat}
    return {
        "round": s.vote_round,
        "candidates": list(s.candidates),
        "calling": s.candidates[s.calling] if public and s.vote_round != "lift" else None,
        "ballots": ballots,
        "voted": len(s.ballots) if public else None,
    }


def _tech_view(s: State, seat: int | None) -> dict[str, Any] | None:
    t = s.tech
    if t is None:
        return None
    return {
        "kind": t.kind,
        "by": t.by,
        "target": t.target,
        "end": t.end,
        "your_ballot": t.ballots.get(seat) if seat is not None else None,
    }


def spectator_view(state: State) -> dict[str, Any]:
    """What a spectator may know: what a red player who has left the table
    knows of it (G3–G5), without a card or checks of their own. Never more:
    it is the view of seat None, which knows no role until the game is over."""
    return view(state, None)


def reveal(state: State) -> dict[str, Any]:
    """Everything at the table now: every card dealt, every day ballot
    (closed ones too) and every check; not a technical vote's ballots (T5:
    those are for moderators). For the delayed stream and the replay of a
    finished game only; never sent to a live table."""
    s = state
    out = view(s, None)
    out["seats"] = [
        {**row, "role": s.roles[row["seat"]]} if s.roles[row["seat"]] is not None else row
        for row in out["seats"]
    ]
    if out["vote"] is not None:
        out["vote"] = {**out["vote"], "ballots": {str(v): b for v, b in s.ballots.items()}}
    out["checks"] = {
        str(checker): {str(t): s.ruleset.reveal(s, checker, t) for t in sorted(targets)}
        for checker, targets in sorted(s.checked.items())
    }
    return out


#: Never told to anyone watching or replaying a game, not even after it: the
#: deal's summary (the `role` events tell it) and a technical vote's ballots
#: (T5: for moderators; `tech_vote` tells the result).
NEVER_TOLD = frozenset({"seated", "tech_record", "tech_ballot"})


def told(events: Iterable[Event], seat: int | None = None) -> list[Event]:
    """The events a stream, a finished game's story or a replay shows: as
    `seat` saw them, or (None) all of them, never NEVER_TOLD."""
    return [
        e
        for e in events
        if e.event not in NEVER_TOLD and (seat is None or e.audience.includes(seat))
    ]


def replay_view(state: State, seat: int | None) -> dict[str, Any]:
    """A finished game's table after a step, as `seat` saw it or (None) in
    full; a seat's own technical ballot stays secret even so (T5)."""
    out = reveal(state) if seat is None else view(state, seat)
    if out["tech"] is not None:
        out["tech"] = {**out["tech"], "your_ballot": None}
    return out
