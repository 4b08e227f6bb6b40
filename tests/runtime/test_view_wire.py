"""The views a live table sends after each step, written from the parts
every seat shares (`messages.views_json`), are the very text of each seat's
view encoded whole, at every state of random classic and city games."""

from __future__ import annotations

import pytest

from omerta.city_mode import CITY
from omerta.runtime import messages
from omerta.table import CLASSIC
from omerta.table.random_play import random_game
from omerta.table.views import view


@pytest.mark.parametrize(
    "ruleset, settings",
    [(CLASSIC, {}), (CLASSIC, {"best_move": True, "voting": "closed"}), (CITY, {})],
    ids=["classic", "best-move-closed-voting", "city"],
)
def test_every_seats_view_written_from_shared_parts_is_its_whole_view_encoded(
    ruleset, settings
) -> None:
    def step(action, state, events) -> None:
        seats = [*state.seats, None]
        written = messages.views_json(state, seats)
        assert list(written) == seats
        for seat in seats:
            assert written[seat] == messages.view_json(view(state, seat))

    for seed in range(6):
        random_game(seed, settings, ruleset=ruleset, every_seat=True, on_step=step)
