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
    return t if type(t) is int else round(t * 1000) / 1000
