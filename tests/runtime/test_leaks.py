"""Nothing reaches a seat over the wire that the seat may not know: two
games that differ only in hidden roles look the same to a red seat."""

from __future__ import annotations

import json

import pytest

from omerta.script import Header
from omerta.store import tables, users

from .players import SeatClient, check_no_leak, play, steady_play

SETTINGS = {"voting": "closed"}
# The same black team and the same public game; the Don and a Mafia swap
# cards, and so do the Sheriff and a Civilian.
DEAL_A = {1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"}
DEAL_B = {1: "mafia", 2: "don", 3: "mafia", 5: "sheriff"}
CIVILIANS_IN_BOTH = (6, 7, 8, 9, 10)
TIMES = ("t", "now", "deadline", "deadline_in", "interjection_end", "end", "table")


def civilians(deal: dict[int, str]) -> dict[int, str]:
    return {seat: deal.get(seat, "civilian") for seat in range(1, 11)}


async def dealt_table(live, people, deal: dict[int, str]) -> int:
    """A table seated in the order of `people`, with a fixed deal in its
    record's header (the lobby deals by the seed; this test needs control)."""
    async with live.db.begin() as s:
        found = [await users.user_by_name(s, p.username) for p in people]
        ids = [user.id for user in found if user is not None]
        table_id = await tables.create_table(s, ids[0], "classic", SETTINGS, seed=1)
        created = await tables.get_table(s, table_id, lock=True)
        assert created is not None and len(ids) == len(people)
        await tables.add_seats(s, created, ids)
        table = await tables.get_table(s, table_id)
        assert table is not None
        await tables.start_table(s, table, table.seats)
        header = Header("classic", SETTINGS, 1, civilians(deal))
        await tables.append_record(s, table_id, 0, json.dumps(header.to_dict()))
    await live.runtime.start(table_id)
    return table_id


def untimed(value):
    """A message without its clock readings (the two games run at different
    wall times), nor the table's id."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMES}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


async def steady_game(live, people, deal) -> dict[int, SeatClient]:
    table_id = await dealt_table(live, people, deal)
    clients = [SeatClient(person, table_id, steady_play) for person in people]
    for client in clients:
        await client.connect(resume=True)
    await play(clients)
    roles = civilians(deal)
    for client in clients:
        assert client.events[client.last]["event"] == "game_over"
        check_no_leak(client, roles)
    return {client.seat: client for client in clients if client.seat is not None}


# 25: the black team must all shoot within a 7 s window, 0.28 s of wall time
@pytest.mark.parametrize("time_scale", [25.0])
@pytest.mark.slow  # both databases: the README command stays under 8 minutes
async def test_a_red_seat_gets_the_same_stream_whoever_holds_the_hidden_roles(live):
    people = await live.browsers(10)
    first = await steady_game(live, people, DEAL_A)
    second = await steady_game(live, people, DEAL_B)
    for seat in CIVILIANS_IN_BOTH:
        a, b = first[seat].messages, second[seat].messages
        # Up to the end, when every role is revealed (E4), they differ in nothing.
        end_a = next(i for i, m in enumerate(a) if m.get("event", {}).get("event") == "game_over")
        end_b = next(i for i, m in enumerate(b) if m.get("event", {}).get("event") == "game_over")
        assert untimed(a[:end_a]) == untimed(b[:end_b])
        assert a[end_a]["seq"] == b[end_b]["seq"]
    # The games did differ where they should: the checks went to other seats.
    assert any(e["event"] == "check" for e in first[4].events.values())
    assert any(e["event"] == "check" for e in second[5].events.values())
    assert not any(e["event"] == "check" for e in second[4].events.values())
