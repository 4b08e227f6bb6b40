"""`whole_ms` rounds floats with float arithmetic: exactly what
`round(t * 1000) / 1000` gives, for every float `round` accepts."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from omerta.table.clock import whole_ms


def _by_round(t: float) -> float:
    return round(t * 1000) / 1000


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_float_rounds_as_round_rounds_it(t: float) -> None:
    if math.isinf(t * 1000):  # round() refuses it; so may whole_ms
        return
    ms = whole_ms(t)
    assert ms == _by_round(t) and math.copysign(1, ms) == math.copysign(1, _by_round(t))


@given(st.integers(-(10**12), 10**12))
def test_halves_of_a_millisecond_go_to_the_even_one(k: int) -> None:
    t = (k + 0.5) / 1000
    assert whole_ms(t) == _by_round(t)


def test_ties_and_the_edges_of_the_fast_way() -> None:
    for t in (0.0005, 0.0015, 0.0025, -0.0005, -0.0015, -0.0, 2.0**41, 2.0**41 + 0.25, 2.0**60):
        assert whole_ms(t) == _by_round(t)
    assert whole_ms(True) == 1.0 and whole_ms(7) == 7 and type(whole_ms(7)) is int
