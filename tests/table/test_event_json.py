"""`Event.to_json` writes exactly what `json.dumps(event.to_dict())` writes,
for every event of random classic and city games."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omerta.city_mode import CITY
from omerta.table import CLASSIC, Ruleset
from omerta.table.events import Event, Speech
from omerta.table.random_play import random_game


@pytest.mark.parametrize("ruleset", [CLASSIC, CITY], ids=["classic", "city"])
def test_every_event_of_random_games_as_json_is_json_dumps_of_its_dict(ruleset: Ruleset) -> None:
    for seed in range(5):
        _, events, _, _ = random_game(
            seed, {"voting": "open"} if seed % 2 else None, ruleset=ruleset, every_seat=True
        )
        for event in events:
            assert event.to_json() == json.dumps(event.to_dict())


def test_an_event_class_made_later_writes_its_own_fields() -> None:
    # Each event class gets its own compiled to_dict at import; a subclass
    # made afterwards must not write its parent's fields only.
    @dataclass(slots=True)
    class LongSpeech(Speech):
        extra: int
        event: ClassVar[str] = "long_speech"

    assert LongSpeech(1.5, 3, 60, "day", 7).to_dict() == {
        "event": "long_speech",
        "t": 1.5,
        "seat": 3,
        "seconds": 60,
        "kind": "day",
        "extra": 7,
    }


#: What a field may hold when a caller gets its type wrong in ways mypy
#: allows (a bool for an int, an int for a float) or does not.
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(0, 10), max_size=3),
    st.dictionaries(st.integers(1, 10), st.one_of(st.integers(), st.text(max_size=3)), max_size=3),
)
_TIMES = st.one_of(st.integers(0, 10**6), st.floats(0, 10**6))
_CLASSES = sorted(Event.__subclasses__(), key=lambda cls: cls.__name__)


@given(st.sampled_from(_CLASSES), _TIMES, st.data())
def test_any_event_as_json_is_json_dumps_of_its_dict_whatever_its_fields_hold(
    cls: type[Event], t: float, data: st.DataObject
) -> None:
    names = [f.name for f in fields(cls) if f.name not in ("t", "audience")]
    event = cls(t, *(data.draw(_VALUES, label=name) for name in names))
    try:
        expected = json.dumps(event.to_dict())
    except (TypeError, ValueError) as e:  # unencodable: both refuse it
        with pytest.raises(type(e)):
            event.to_json()
        return
    assert event.to_json() == expected
