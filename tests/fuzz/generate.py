"""Hostile inputs, generated with hypothesis, for the fuzz suites: JSON
values of every shape, messages that look nearly right, and text that is
not JSON at all. `draw(strategy, count, seed)` takes them out of hypothesis
as a list, so an async test can send them to a live server."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as fixed_seed
from hypothesis import strategies as st

T = TypeVar("T")

#: Text of any code point a WebSocket frame can carry (lone surrogates
#: cannot be sent as UTF-8: they come as JSON escapes instead).
TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)
#: Strings inside JSON: anything, lone surrogates and NULs included.
STRINGS = st.text(max_size=40) | st.sampled_from(["\ud800", "a\x00b", "\u202e", "", " " * 70])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | STRINGS
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(STRINGS, inner, max_size=4),
    max_leaves=12,
)


def dumps(value: Any) -> str:
    return json.dumps(value)  # ensure_ascii: lone surrogates go as \ud800 escapes


def draw(strategy: st.SearchStrategy[T], count: int, seed: int) -> list[T]:
    """`count` values of `strategy`, the same ones for the same seed."""
    out: list[T] = []

    @fixed_seed(seed)
    @settings(
        max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(strategy)
    def collect(value: T) -> None:
        out.append(value)

    collect()
    return out[:count]
