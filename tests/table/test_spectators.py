"""Spectators (issue 19): a spectator knows what a red player who has left
the table knows (G3–G5), never more. Differential over random games: after
a red seat has left, its stream and its view (less its own card and checks)
are the spectator's; no event a spectator receives is meant for fewer than
everyone. The full reveal (`views.reveal`) is for the delayed stream and
finished games only."""

from __future__ import annotations

from typing import Any

from omerta.city_mode import CITY
from omerta.table import Action, Event, State, Timeout
from omerta.table.random_play import random_game
from omerta.table.views import gate, reveal, spectator_view, view

CLASSIC_SEEDS = range(20)
CITY_SEEDS = range(6)


def _as_spectator(seat_view: dict[str, Any], seat: int) -> dict[str, Any]:
    """`seat`'s view less what is its own: its number, card, checks, and
    the media it receives (compared on its own: a seat is no receiver of itself)."""
    out = {**seat_view, "seat": None, "checks": {}, "gate": None}
    out["seats"] = [
        {**row, "role": None} if row["seat"] == seat and not seat_view["winner"] else row
        for row in seat_view["seats"]
    ]
    return out


class Watch:
    """Plays a random game and checks, after every step, the spectator
    against every red seat that has left."""

    def __init__(self) -> None:
        self.spectator: list[Event] = []
        self.left: dict[int, list[Event]] = {}  # red seat that left -> its events since
        self.since: dict[int, int] = {}  # -> the spectator's events before it left

    def step(self, _: Action | Timeout | None, state: State, events: list[Event]) -> None:
        mine = [e for e in events if e.audience.includes(None)]
        assert all(e.audience.kind == "everyone" for e in mine), [e.to_dict() for e in mine]
        self.spectator += mine
        for seat, log in self.left.items():
            log += [e for e in events if e.audience.includes(seat)]
        for q in state.seats:
            if not state.alive[q] and q not in self.left and state.team_of(q) == "red":
                self.left[q] = []
                self.since[q] = len(self.spectator)
        seen = spectator_view(state)
        assert all(row["role"] is None for row in seen["seats"]) or state.over
        assert seen["actions"] == [] and seen["checks"] == {}
        for q in self.left:
            assert [e.to_dict() for e in self.left[q]] == [
                e.to_dict() for e in self.spectator[self.since[q] :]
            ]
            if q == state.speaker:
                continue  # their last word or farewell: still at the table (G3)
            assert _as_spectator(view(state, q), q) == {**seen, "gate": None}
            hints = gate(state).hints()
            for kind in ("audio", "video"):
                assert hints[kind].get(q, []) == [s for s in hints[kind].get(None, []) if s != q]


def test_G4_a_spectator_sees_what_a_red_player_who_left_sees_classic():
    departures = 0
    for seed in CLASSIC_SEEDS:
        watch = Watch()
        state, *_ = random_game(seed, on_step=watch.step)
        assert state.over
        departures += len(watch.left)
    assert departures > len(CLASSIC_SEEDS)


def test_G4_a_spectator_sees_what_a_red_player_who_left_sees_city():
    departures = 0
    for seed in CITY_SEEDS:
        watch = Watch()
        state, *_ = random_game(seed, ruleset=CITY, every_seat=True, on_step=watch.step)
        assert state.over
        departures += len(watch.left)
    assert departures > 0


def test_the_full_reveal_holds_every_card_ballot_and_check_and_seats_get_no_more():
    seen: list[tuple[State, dict[str, Any]]] = []

    def step(_: Action | Timeout | None, state: State, events: list[Event]) -> None:
        seen.append((state, reveal(state)))

    random_game(3, on_step=step)
    checks = 0
    for state, full in seen:
        assert [row["role"] for row in full["seats"]] == [state.roles[q] for q in state.seats]
        checks += sum(len(v) for v in full["checks"].values())
        if state.vote_round is not None:
            assert full["vote"]["ballots"] == {str(v): b for v, b in state.ballots.items()}
        base = {k: v for k, v in full.items() if k not in ("seats", "vote", "tech", "checks")}
        assert base == {
            k: v
            for k, v in spectator_view(state).items()
            if k not in ("seats", "vote", "tech", "checks")
        }
    assert checks > 0
