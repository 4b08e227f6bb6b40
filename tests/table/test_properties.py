"""Invariants of random legal play (hypothesis)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omerta.script import Header, Player, parse, record_line
from omerta.table import CLASSIC, IllegalAction, Timeout, advance, apply, new_game
from omerta.table.actions import Check
from omerta.table.legal import legal_actions
from omerta.table.random_play import random_game
from omerta.table.views import view

SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "auto_deal": st.booleans(),
        "agreement": st.sampled_from(["silent", "sound"]),
        "voting": st.sampled_from(["closed", "open"]),
        "break_at_zero": st.booleans(),
        "lift_at_zero": st.booleans(),
        "best_move": st.booleans(),
    },
)
SEEDS = st.integers(0, 2**32)
BOTS = st.sets(st.integers(1, 10), max_size=4)
# A bound on deadlines: about 60 per round (speeches, interjections, votes,
# nights) for at most 10 rounds, plus the technical votes the players call.
DEADLINE_BOUND = 700


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, table=SETTINGS, bots=BOTS)
def test_E1_E2_random_legal_play_always_ends_in_a_win_or_a_draw(seed, table, bots):
    state, events, _, deadlines = random_game(seed, table, bots=bots)
    assert state.over and state.winner in ("red", "black", "draw")
    assert deadlines <= DEADLINE_BOUND
    assert events[-1].event == "game_over"


def test_B1_random_play_with_best_move_on_names_one_and_the_end_shows_it():
    state, events, _, _ = random_game(8, {"best_move": True})
    named = [e.to_dict() for e in events if e.event == "best_move"]
    assert named == [{"event": "best_move", "t": 3130.205, "seat": 5, "targets": [2, 8]}]
    assert events[-1].best_move == [{"seat": 5, "targets": [2, 8], "black": [8]}]


def _invariants(action, state, events):
    alive = [s for s in state.seats if state.alive[s]]
    departed = [s for s in state.seats if not state.alive[s]]
    assert len(alive) + len(departed) == 10
    if action is not None and not isinstance(action, Timeout):
        # C1, V2, S1: the dead never act (the last-word speaker only ends it,
        # or names a best move, B1)
        assert state.alive[action.seat] or action.name in ("end_speech", "pick", "best_move")
    # B1: only the first night's dead name a best move, and only living others
    assert set(state.best_moves) <= state.best_move_seats
    for e in events:
        if e.event == "best_move":
            assert e.seat not in e.targets and all(state.alive[q] for q in e.targets)
    # D2: at most one nomination per speech, never a repeat in a day
    assert len(state.nominees) == len(set(state.nominees))
    gone_now = {e.seat for e in events if e.event == "left"}
    for e in events:
        if e.event == "votes" and e.round != "lift":
            assert set(e.ballots.values()) <= set(e.counts)  # V2: nominees only
            assert sorted(e.ballots) == sorted(set(alive) | gone_now)  # every living voter
        if e.event == "check":
            assert e.target != e.by
    for checker, targets in state.checked.items():  # S3
        assert checker not in targets
    if not state.over:
        assert state.next_deadline is not None and state.next_deadline >= state.now


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, table=SETTINGS)
def test_invariants_hold_after_every_step(seed, table):
    seen_checks: set[tuple[int, int]] = set()

    def step(action, state, events):
        _invariants(action, state, events)
        for e in events:
            if e.event == "check":
                assert (e.by, e.target) not in seen_checks  # S3: never repeated
                seen_checks.add((e.by, e.target))
            if e.event == "nominated":
                assert state.alive[e.target] or any(
                    x.event == "left" and x.seat == e.target for x in events
                )

    random_game(seed, table, on_step=step)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, table=SETTINGS, bots=BOTS)
def test_every_listed_legal_action_is_accepted(seed, table, bots):
    rng = random.Random(seed)

    def step(action, state, events):
        if state.over:
            return
        seat = rng.randint(1, state.n)
        for option in rng.sample(
            legal_actions(state, seat), k=min(3, len(legal_actions(state, seat)))
        ):
            apply(state, option, state.now)  # raises if the list lies

    random_game(seed, table, bots=bots, on_step=step)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, table=SETTINGS)
def test_replaying_a_games_record_reproduces_its_events_exactly(seed, table):
    """The record holds every action and every fired timeout with its time
    (a timeout as a wait), as a live table writes it."""
    state, events, played, _ = random_game(seed, table)
    text = "\n".join(
        [json.dumps(Header("classic", table, seed).to_dict())]
        + [json.dumps(record_line(None if isinstance(a, Timeout) else a, t)) for t, a in played]
    )
    player = Player(parse(text).header)
    for line in parse(text).lines:
        player.play(line)
    player.finish()
    assert [e.to_dict() for e in player.events] == [e.to_dict() for e in events]


def _swapped(deal: dict[int, str], a: int, b: int) -> dict[int, str]:
    out = dict(deal)
    out[a], out[b] = deal[b], deal[a]
    return out


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, table=SETTINGS, data=st.data())
def test_no_leak_a_red_seat_sees_the_same_game_whatever_the_hidden_roles(seed, table, data):
    """Two games that differ only in other seats' hidden roles (Don and a
    Mafia swapped, the Sheriff and another civilian swapped) give a civilian
    identical events and views at every step, until the end reveals all (E4)."""
    roles = data.draw(st.permutations(CLASSIC.deck(CLASSIC.parse_settings({}))))
    deal_a = {seat: role for seat, role in enumerate(roles, 1)}
    civilians = [s for s, r in deal_a.items() if r == "civilian"]
    me = data.draw(st.sampled_from(civilians))
    don = next(s for s, r in deal_a.items() if r == "don")
    sheriff = next(s for s, r in deal_a.items() if r == "sheriff")
    mafia = data.draw(st.sampled_from([s for s, r in deal_a.items() if r == "mafia"]))
    other = data.draw(st.sampled_from([c for c in civilians if c != me]))
    deal_b = _swapped(_swapped(deal_a, don, mafia), sheriff, other)
    moves = {don: mafia, mafia: don, sheriff: other, other: sheriff}

    state_a, events_a, played, _ = random_game(seed, table, deal=deal_a)
    state_a, _ = new_game(CLASSIC, table, seed, deal_a)
    state_b, events_b = new_game(CLASSIC, table, seed, deal_b)
    for t, action in played:
        state_a, _ = advance(state_a, t)
        state_b, more = advance(state_b, t)
        events_b.extend(more)
        assert view(state_a, me) == view(state_b, me)
        state_a, _ = apply(state_a, action, t)
        if isinstance(action, Timeout):
            state_b, more = apply(state_b, action, t)
        elif isinstance(action, Check):
            # The same role checks in game B; its holder may be dead there,
            # and a check is private, so nothing public changes either way.
            try:
                state_b, more = apply(
                    state_b, Check(moves.get(action.seat, action.seat), action.target), t
                )
            except IllegalAction:
                more = []
        else:
            state_b, more = apply(state_b, action, t)
        events_b.extend(more)
        if not state_a.over:
            assert view(state_a, me) == view(state_b, me)
    state_b, more = advance(state_b, float("inf"))
    events_b.extend(more)

    def mine(events):
        seen = [e.to_dict() for e in events if e.audience.includes(me)]
        assert seen[-1]["event"] == "game_over"
        seen[-1].pop("roles")
        return seen

    assert mine(events_a) == mine(events_b)
    assert state_b.over


def test_N1_nobody_may_act_at_the_meeting():
    state, _ = new_game(CLASSIC, {"auto_deal": True}, 5)
    assert state.stage == "meeting"
    assert [legal_actions(state, s) for s in state.seats] == [[]] * 10
