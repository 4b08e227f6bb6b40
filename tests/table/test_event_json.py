"""`Event.to_json` writes exactly what `json.dumps(event.to_dict())` writes,
for every event of random classic and city games."""

from __future__ import annotations

import json

import pytest

from omerta.city_mode import CITY
from omerta.table import CLASSIC, Ruleset
from omerta.table.random_play import random_game


@pytest.mark.parametrize("ruleset", [CLASSIC, CITY], ids=["classic", "city"])
def test_every_event_of_random_games_as_json_is_json_dumps_of_its_dict(ruleset: Ruleset) -> None:
    for seed in range(5):
        _, events, _, _ = random_game(
            seed, {"voting": "open"} if seed % 2 else None, ruleset=ruleset, every_seat=True
        )
        for event in events:
            assert event.to_json() == json.dumps(event.to_dict())
