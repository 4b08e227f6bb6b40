"""`Event.to_json` writes exactly what `json.dumps(event.to_dict())` writes,
for every event of random classic and city games."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import pytest

from omerta.city_mode import CITY
from omerta.table import CLASSIC, Ruleset
from omerta.table.events import Speech
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
