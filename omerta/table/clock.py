"""The engine's clock counts whole milliseconds: every time in a state, an
event or a record is the float nearest to a whole millisecond, so a record
that writes times with three decimals replays exactly."""

from __future__ import annotations


def whole_ms(t: float) -> float:
    """`t` taken to the nearest millisecond.

    The same as `round(t, 3)` without going through decimal digits, which
    cost more, several times in every step. The two can
    differ only for a `t` within a rounding error of half a millisecond;
    the engine rounds the shell's times with this one function, and the
    shell writes its record with it (`wire_time`), so they always agree.
    Whole seconds given as an integer stay one, as `round` keeps them: the
    events print them as they were given."""
    if type(t) is float:
        ms = t * 1000
        if -_EXACT < ms < _EXACT:  # and not NaN or infinite, which round() refuses
            # Adding and taking away 1.5 * 2**52 leaves the nearest whole
            # number, halves to even, as round() does, in float arithmetic
            # instead of round()'s new int and an int division.
            return ((ms + _ROUNDER) - _ROUNDER) / 1000
    if type(t) is int:
        return t
    return round(t * 1000) / 1000


#: The float whose ulp is 1 in the range ms + _ROUNDER lands in, for any
#: |ms| < _EXACT; both whole numbers are exact floats.
_ROUNDER = 1.5 * 2.0**52
_EXACT = 2.0**51
