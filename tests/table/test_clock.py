"""The engine's clock counts whole milliseconds (docs/rules.md, "How the server
decides"). `whole_ms` is the one rounding the engine and the record share;
it must agree with decimal rounding on every time the engine makes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from omerta.script import record_line
from omerta.table import CLASSIC, apply, new_game
from omerta.table.actions import Pick
from omerta.table.clock import whole_ms
from omerta.table.events import wire_time
from omerta.table.step import later

#: whole milliseconds up to MAX_SECONDS (1e9 s), as the floats nearest them
MS = st.integers(0, 10**12).map(lambda k: k / 1000)


@given(MS, MS)
def test_a_deadline_is_the_millisecond_decimal_rounding_gives(t: float, seconds: float) -> None:
    assert later(t, seconds) == round(t + seconds, 3)


@given(MS)
def test_a_time_on_the_clock_stays_where_it_is(t: float) -> None:
    assert whole_ms(t) == t
    assert whole_ms(whole_ms(t) + 0.0) == t


@given(st.floats(0, 1e9))
def test_any_time_lands_on_a_whole_millisecond(t: float) -> None:
    ms = whole_ms(t)
    assert ms == round(ms, 3)
    assert abs(ms - t) <= 0.0005 + 1e-6


def test_whole_seconds_given_as_integers_print_as_integers() -> None:
    assert whole_ms(1663) == 1663 and type(whole_ms(1663)) is int
    assert later(1663, 30) == 1693 and type(later(1663, 30)) is int
    assert wire_time(1663.0) == 1663 and type(wire_time(1663.0)) is int
    assert wire_time(12.3456) == 12.346


def test_an_action_at_half_a_millisecond_is_recorded_where_the_engine_applied_it() -> None:
    # 0.0005 is where rounding methods may part: the record and the engine
    # must take the same millisecond, or the record would not replay.
    state, _ = new_game(CLASSIC, {}, seed=3)
    for now in (0.0005, 1.0005, 2.0015, 7.4445):
        after, events = apply(state, Pick(seat=1, card=0), now)
        line = record_line(Pick(seat=1, card=0), now)
        assert line["t"] == wire_time(after.now) == wire_time(events[0].t)


def test_a_step_at_a_whole_second_given_as_an_integer_keeps_integer_times() -> None:
    # Raw times in events (a technical vote's `called_at`) print as given,
    # as they did before whole_ms: 1663, not 1663.0.
    state, _ = new_game(CLASSIC, {}, seed=3)
    state, events = apply(state, Pick(seat=1, card=0), 5)
    assert type(state.now) is int and all(type(e.t) is int for e in events)
    assert '"t": 5,' in events[0].to_json()
