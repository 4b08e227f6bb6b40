"""Who sees and hears whom in city mode (docs/rules.md G1–G5, M13): as in
the classic game by day, role by role at night. Every test also checks all
of G1–G5 after each step (tests/table/gate_rules.py)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from omerta.table.actions import Pick

from ..table.gate_rules import check_gate
from .game import DOCTOR, PUTANA, CityTable, random_city_game

SEATS = range(1, 11)


class Watched(CityTable):
    def _take(self, state, events):
        super()._take(state, events)
        check_gate(state)


def cameras(t):
    g = t.gate()
    return {src for src in SEATS if any(g.allows(src, dst, "video") for dst in (*SEATS, None))}


def mics(t):
    g = t.gate()
    return {src for src in SEATS if any(g.allows(src, dst, "audio") for dst in (*SEATS, None))}


def test_G1_every_camera_and_mic_is_closed_during_the_city_draw():
    t = Watched(deal=None)
    t.do(Pick(4, 3))
    assert not cameras(t) and not mics(t)


def test_G2_each_city_turn_opens_only_to_its_living_role_holders():
    t = Watched(settings={"agreement": "sound"}).wait()
    seen = {}
    t.to_turn("putana")
    while t.state.stage == "night":
        seen[t.phase] = (cameras(t), mics(t))
        t.wait()
    assert seen["mafia"] == ({1, 2, 3}, {1, 2, 3})
    assert all(seen[turn] == (set(), set()) for turn in seen if turn != "mafia")


def test_G3_every_living_camera_reaches_every_seat_during_a_city_speech():
    t = Watched().to_speech(4)
    assert cameras(t) == set(SEATS) and mics(t) == {4}
    assert t.view(None)["gate"] == {"audio": [4], "video": list(SEATS)}


def test_G3_a_player_the_maniac_killed_is_seen_and_heard_in_the_last_word_then_never_again():
    t = Watched().night(kill=9)
    assert (t.state.speaker, t.state.speech_kind) == (9, "last_word")
    assert cameras(t) == set(SEATS) and mics(t) == {9}
    t.wait()
    assert 9 not in cameras(t) and 9 not in mics(t)  # G4


def test_G4_a_departed_role_holder_is_not_in_their_turns_room():
    t = Watched(settings={"agreement": "sound"}).wait().remove(2).to_turn("mafia")
    assert cameras(t) == {1, 3}
    assert t.view(2)["gate"] == {"audio": [], "video": []}


def test_G5_everything_opens_at_the_end_of_a_city_game():
    t = Watched().night(shot=PUTANA, kill=DOCTOR)
    t.run_until(lambda t: t.state.over, limit=3000)
    assert not t.state.alive[PUTANA] and not t.state.alive[DOCTOR]
    g = t.gate()
    assert all(
        g.allows(a, b, kind)
        for a in SEATS
        for b in (*SEATS, None)
        if a != b
        for kind in ("audio", "video")
    )


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    agreement=st.sampled_from(["silent", "sound"]),
    seats=st.sampled_from([10, 11, 12]),
)
def test_G1_to_G5_hold_at_every_step_of_random_city_games(seed, agreement, seats):
    random_city_game(
        seed,
        {"agreement": agreement, "seats": seats},
        on_step=lambda action, state, events: check_gate(state),
    )
