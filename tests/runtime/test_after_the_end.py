"""A player who reconnects after the game ended gets what they missed, the
final view and the close of a finished game, not a refusal (issue 12,
finding 13)."""

from __future__ import annotations

import aiohttp
import pytest

from .players import SeatClient, play, seat_events, seat_table
from .test_full_game import finished, record_of


async def everything(ws: aiohttp.ClientWebSocketResponse) -> tuple[list[dict], int | None]:
    got = []
    async for message in ws:
        got.append(message.json())
    return got, ws.close_code


@pytest.mark.parametrize("time_scale", [1000.0])
async def test_a_player_back_after_the_end_gets_the_end_and_game_over(live):
    [alice, bob] = await live.browsers(2)
    table_id, seats = await seat_table([alice], bots=True)
    client = SeatClient(alice, table_id, seed=2)
    await client.connect(resume=True)
    await play([client])
    await finished(live, table_id)
    record = await record_of(live, table_id)
    mine = seat_events(record, seats[alice.username])

    # Back with the number of the last event before the end: the rest, then the view.
    back = len(mine) - 3
    got, code = await everything(await alice.socket(table_id, last=back))
    assert got[0] == {"type": "hello", "table": table_id, "seat": seats[alice.username]}
    assert [m["event"] for m in got[1:-1]] == mine[back:]
    assert got[-2]["event"]["event"] == "game_over"
    assert got[-1]["type"] == "view" and got[-1]["seq"] == len(mine)
    assert got[-1]["view"]["winner"] == mine[-1]["winner"] and got[-1]["deadline_in"] is None
    assert code == 1000

    # Without a number (a page opened late): the whole story. A spectator: the public one.
    got, code = await everything(await alice.socket(table_id))
    assert [m["event"] for m in got[1:-1]] == mine and code == 1000
    got, code = await everything(await bob.socket(table_id))
    assert got[0]["seat"] is None and [m["event"] for m in got[1:-1]] == seat_events(record, None)
