"""A finished table's socket: a player who reconnects after the game ended
(or opens its page late) gets what they missed, the final view and the
close of a game that is over, instead of a refusal (issue 12, finding 13)."""

from __future__ import annotations

from ..script import Player, parse
from ..store import Database, tables
from ..table.views import view
from . import messages
from .fanout import MAX_CATCH_UP
from .streams import Streams


async def final_messages(
    db: Database, table_id: int, user_id: int | None, last: int | None
) -> list[str] | None:
    """What the socket of finished table `table_id` sends `user_id` (their
    seat's share, or a spectator's), from event `last` on (none given: the
    whole stream, the game's story); None if the table is not finished."""
    async with db.begin() as s:
        table = await tables.get_table(s, table_id)
        if table is None or table.status != "finished":
            return None
        seat = next(
            (seat.seat for seat in table.seats if user_id and seat.user_id == user_id), None
        )
        lines = await tables.read_record_lines(s, table_id)
    script = parse("\n".join(line.text for line in lines))
    player = Player(script.header)
    for line in script.lines:
        player.play(line)
    state = player.state
    streams = Streams(state.seats)
    streams.add(player.events)
    newest = streams.last(seat)
    start = last if last is not None and 0 <= last <= newest else 0
    out = [messages.hello(table_id, seat)]
    if newest - start <= MAX_CATCH_UP:
        out += [messages.event(seq, text) for seq, text in streams.since(seat, start)]
    out.append(messages.view(newest, state.now, None, messages.view_json(view(state, seat))))
    return out
