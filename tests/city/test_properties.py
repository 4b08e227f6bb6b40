"""Invariants of random legal city play (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omerta.city_mode import CITY, Heal, Kill, Visit
from omerta.script import Header, Line, Player
from omerta.table import IllegalAction, Timeout, advance, apply, new_game
from omerta.table.actions import Check, Shoot, parse_action
from omerta.table.legal import legal_actions
from omerta.table.views import gate, view

from .game import random_city_game

TURNS = ("putana", "mafia", "maniac", "doctor", "commissar", "don")
TIMERS = st.one_of(st.integers(5, 30), st.dictionaries(st.sampled_from(TURNS), st.integers(5, 30)))
SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "auto_deal": st.booleans(),
        "agreement": st.sampled_from(["silent", "sound"]),
        "voting": st.sampled_from(["closed", "open"]),
        "break_at_zero": st.booleans(),
        "lift_at_zero": st.booleans(),
        "best_move": st.booleans(),
        "seats": st.sampled_from([10, 11, 12]),
        "mafia_count": st.sampled_from([1, 2, 3]),
        "speech_seconds": st.sampled_from([30, 45, 60, 90]),
        "night_turn_seconds": TIMERS,
    },
)
SEEDS = st.integers(0, 2**32)
BOTS = st.sets(st.integers(1, 10), max_size=4)
NIGHT_ACTIONS = (Visit, Shoot, Kill, Heal, Check)
# A bound on deadlines: about 70 per round (12 speeches with interjections,
# six night turns, votes) for at most 13 rounds (a departure, or one of the
# three quiet rounds of E2, in each), plus the technical votes.
DEADLINE_BOUND = 1000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, table=SETTINGS, bots=BOTS)
def test_M12_E2_random_legal_city_games_end_in_a_win_or_a_draw(seed, table, bots):
    state, events, _, deadlines = random_city_game(seed, table, bots=bots)
    assert state.over and state.winner in ("red", "black", "maniac", "draw")
    assert deadlines <= DEADLINE_BOUND
    assert events[-1].event == "game_over"


class Watcher:
    """Checks every step of one game against the night rules, remembering
    what each night's choices were."""

    def __init__(self):
        self.night: dict[str, dict[int, int]] = {}
        self.last: dict[str, tuple[int, int]] = {}
        self.self_heals = 0
        self.checked: set[tuple[int, int]] = set()

    def __call__(self, action, state, events):
        alive = state.living()
        gone_now = {e.seat for e in events if e.event == "left"}
        if action is not None and not isinstance(action, Timeout):
            # the dead never act (a last word or farewell is only ended, or
            # names a best move, B1)
            assert (
                state.alive[action.seat]
                or action.seat in gone_now
                or action.name in ("end_speech", "pick", "best_move")
            )
        assert set(state.best_moves) <= state.best_move_seats  # B1
        assert len(state.nominees) == len(set(state.nominees))  # D2
        for e in events:
            if e.event == "phase" and e.night is not None and e.phase == TURNS[0]:
                self.night = {}
            if e.event == "night_action":
                self._choice(state, e)
            if e.event == "check":
                assert e.by != e.target and (e.by, e.target) not in self.checked  # M9, M10
                assert e.by not in self.night.get("putana", {}).values()  # M5
                self.checked.add((e.by, e.target))
        if any(e.event == "morning" for e in events):
            self._dawn(events)
        else:
            assert not [e for e in events if e.event == "left" and e.cause in ("shot", "killed")]
        self._room(state)
        if state.over:
            self._winner(state, alive)
        else:
            assert state.next_deadline is not None and state.next_deadline >= state.now

    def _choice(self, state, e):
        turn = state.current_turn().name
        self.night.setdefault(turn, {})[e.by] = e.target
        if turn in ("putana", "doctor"):  # M5, M8
            assert self.last.get(turn) != (state.night - 1, e.target)
            self.last[turn] = (state.night, e.target)
        if turn in ("putana", "maniac"):
            assert e.target != e.by  # M5, M7
        if turn == "doctor" and e.target == e.by:
            self.self_heals += 1
            assert self.self_heals <= 1  # M8

    def _dawn(self, events):
        """M11: at most one shot and one kill, seat order, the visited and
        the (unblocked) healed survive."""
        left = [(e.seat, e.cause) for e in events if e.event == "left"]
        assert left == sorted(left)
        assert [e.dead for e in events if e.event == "morning"] == [[s for s, _ in left]]
        causes = [c for _, c in left]
        assert sorted(causes) in ([], ["shot"], ["killed"], ["killed", "shot"])
        visited = set(self.night.get("putana", {}).values())
        healers = self.night.get("doctor", {})
        healed = {t for d, t in healers.items() if d not in visited}
        for seat, _ in left:
            assert seat not in visited and seat not in healed

    def _room(self, state):
        """M13: at night only the turn's living role holders are in the room."""
        turn = state.current_turn()
        if turn is None:
            return
        g = gate(state)
        holders = {"mafia": ("don", "mafia")}.get(turn.name, (turn.name,))
        for src, dst in (*g.audio.items(), *g.video.items()):
            for seat in (src, *dst):
                assert state.alive[seat] and state.roles[seat] in holders

    def _winner(self, state, alive):
        """M12 holds for the living at the end (unless a technical defeat or the draw)."""
        roles = [state.roles[s] for s in alive]
        black = sum(r in ("don", "mafia") for r in roles)
        if state.reason == "maniac_last_two":
            assert "maniac" in roles and len(roles) <= 2
        elif state.reason == "black_parity":
            assert "maniac" not in roles and black >= len(roles) - black
        elif state.reason == "no_black_or_maniac_left":
            assert "maniac" not in roles and black == 0


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, table=SETTINGS)
def test_M4_M13_invariants_hold_after_every_step(seed, table):
    random_city_game(seed, table, on_step=Watcher())


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, table=SETTINGS, bots=BOTS)
def test_every_listed_legal_action_is_accepted(seed, table, bots):
    rng = random.Random(seed)

    def step(action, state, events):
        if state.over:
            return
        for seat in rng.sample(state.seats, 3):
            options = legal_actions(state, seat)
            for option in rng.sample(options, k=min(3, len(options))):
                apply(state, option, state.now)  # raises if the list lies

    random_city_game(seed, table, bots=bots, on_step=step)


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, table=SETTINGS)
def test_replaying_a_city_games_record_reproduces_its_events_exactly(seed, table):
    state, events, played, _ = random_city_game(seed, table)
    player = Player(Header("city", table, seed))
    actions = [(t, action) for t, action in played if not isinstance(action, Timeout)]
    for number, (t, action) in enumerate(actions, 2):  # the player fires the deadlines
        player.play(Line(number, parse_action(action.to_dict()), t=t))
    player.finish()
    assert [e.to_dict() for e in player.events] == [e.to_dict() for e in events]


def _public(events):
    out = []
    for e in events:
        if e.audience.kind == "everyone":
            d = e.to_dict()
            d.pop("roles", None) if d["event"] == "game_over" else None
            out.append(d)
    return out


def _mine(events, me):
    return [
        {k: v for k, v in e.to_dict().items() if e.event != "game_over" or k != "roles"}
        for e in events
        if e.audience.includes(me)
    ]


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, table=SETTINGS, data=st.data())
def test_no_leak_a_civilian_sees_the_same_game_whatever_the_hidden_roles(seed, table, data):
    """Two games that differ only in the roles of two pairs of other seats,
    each role's night actions made by its holder in both, give a civilian
    the same events and views for as long as everything public agrees (the
    public consequences of who holds what may rightly tell the games apart)."""
    parsed = CITY.parse_settings(table)
    deal_a = dict(enumerate(data.draw(st.permutations(CITY.deck(parsed))), 1))
    me = data.draw(st.sampled_from([s for s, r in deal_a.items() if r == "civilian"]))
    a, b, c, d = data.draw(st.permutations([s for s in deal_a if s != me]))[:4]
    swap = {a: b, b: a, c: d, d: c}
    deal_b = {seat: deal_a[swap.get(seat, seat)] for seat in deal_a}

    _, _, played, _ = random_city_game(seed, table, deal=deal_a)
    state_a, events_a = new_game(CITY, table, seed, deal_a)
    state_b, events_b = new_game(CITY, table, seed, deal_b)
    compared = 0
    for t, action in played:
        if isinstance(action, Timeout):
            continue  # each game fires its own deadlines as time goes on
        for run in ("a", "b"):
            state, more = advance(state_a if run == "a" else state_b, t)
            (events_a if run == "a" else events_b).extend(more)
            state_a, state_b = (state, state_b) if run == "a" else (state_a, state)
        if _public(events_a) != _public(events_b):
            break
        assert _mine(events_a, me) == _mine(events_b, me)
        assert view(state_a, me) == view(state_b, me)
        compared += 1
        state_a, more = apply(state_a, action, t)
        events_a.extend(more)
        if isinstance(action, NIGHT_ACTIONS):
            action = type(action)(swap.get(action.seat, action.seat), action.target)
        try:
            state_b, more = apply(state_b, action, t)
            events_b.extend(more)
        except IllegalAction:
            pass  # the other game's holder is dead or already chose
        if _public(events_a) != _public(events_b):
            break
        assert _mine(events_a, me) == _mine(events_b, me)
        if not state_a.over:
            assert view(state_a, me) == view(state_b, me)
    assert compared > 0 or not played
