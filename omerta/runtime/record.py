"""A live table's record in the database: loading it, writing each step
through before anything is sent, and storing the game when it ends.

The record is the table's truth: header at line 0 (docs/scripts.md), then every
applied action and fired timeout with its time. A restarted server replays
it to the same state and the same events."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from ..moderation.records import attach_game, record_tech_vote
from ..ratings.awards import team_result
from ..script import Header
from ..store import Database, tables
from ..store.games import PlayerResult, record_game
from ..store.tables import RecordLine
from ..table import State
from ..table.ending import awards
from .writer import GroupWriter, lost_connection

#: Called with (session, game id) inside the transaction that stores a
#: finished game, its last record lines and the table's end: what a hook
#: writes commits together with the game or not at all, so it runs exactly
#: once per game. The ratings issue plugs in here (rating, coins, experience).
GameEndHook = Callable[[AsyncSession, int], Awaitable[Any]]


class NotStored(Exception):
    """A write failed and its lines are not in the record. `reachable`: the
    database answered when asked what it holds, and the write failed with
    an answer of its own rather than a lost connection: it refused it."""

    def __init__(self, error: Exception, reachable: bool):
        super().__init__(f"{error!r}")
        self.error = error
        self.reachable = reachable


class RecordConflict(Exception):
    """The record holds other lines under the numbers this table writes
    next: something else wrote to it. The table cannot go on."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A record line about to be written: docs/scripts.md JSON, and the client
    message id of the action on it, if a client sent it."""

    data: dict[str, Any]
    client_id: str | None = None


@dataclass(frozen=True, slots=True)
class Stored:
    """A table as the database has it when its actor starts."""

    seats: dict[int, int | None]  # seat -> user id (None: a bot)
    lines: list[RecordLine]  # header first
    fresh: bool  # the header was written just now


async def load(db: Database, table_id: int) -> Stored:
    """The table's seats and record; a table the lobby has just started has
    no record yet: its header is written first, from the table's row."""
    async with db.begin() as s:
        table = await tables.get_table(s, table_id)
        if table is None or table.status != "playing":
            raise LookupError(f"table {table_id} is not playing")
        seats = {seat.seat: seat.user_id for seat in table.seats}
        lines = await tables.read_record_lines(s, table_id)
        if lines:
            return Stored(seats, lines, fresh=False)
        bots = tuple(seat for seat, user in seats.items() if user is None)
        stand_ins = tuple(seat.seat for seat in table.seats if seat.stands_in)
        header = Header(
            table.ruleset, tables.game_settings(table), table.seed, None, bots, stand_ins
        )
        first = RecordLine(0, json.dumps(header.to_dict()))
        await tables.append_records(s, table_id, [first])
    return Stored(seats, [first], fresh=True)


class Recorder:
    """Appends one table's record lines, numbering them."""

    def __init__(
        self,
        writer: GroupWriter,
        table_id: int,
        seats: dict[int, int | None],
        next_line: int,
        on_game_end: Sequence[GameEndHook] = (),
    ):
        self.writer = writer
        self.table_id = table_id
        self.seats = seats
        self.next_line = next_line
        self.on_game_end = on_game_end

    async def write(
        self,
        lines: Sequence[Pending],
        state: State,
        tech_votes: Sequence[tuple[int, dict[str, Any]]] = (),
    ) -> None:
        """One committed transaction: the step's lines, the technical votes
        they ended (index into `lines`, the `tech_record` event) for the
        moderators (T5), and, if `state` is over, the finished game.
        Raises NotStored if nothing was written: writing the same lines
        again is then safe (and so is it after a success whose reply was
        lost: `_check_stored`)."""
        rows = [
            RecordLine(self.next_line + i, json.dumps(p.data), p.client_id)
            for i, p in enumerate(lines)
        ]
        votes = [(self.next_line + index, event) for index, event in tech_votes]

        async def more(s: AsyncSession) -> None:
            for line, event in votes:
                await record_tech_vote(s, self.table_id, line, event)
            if state.over:
                await self._finish(s, state)

        try:
            await self.writer.write(self.table_id, rows, more if votes or state.over else None)
        except Exception as e:
            await self._check_stored(rows, e)
        self.next_line += len(rows)

    async def _check_stored(self, rows: list[RecordLine], error: Exception) -> None:
        """A write raised, but its commit may have gone through with only the
        reply lost (a connection cut at the wrong moment): ask the database.
        The lines and the rest of their transaction (a game's end) are all
        there or none is. Returns if they are there, exactly as written."""
        try:
            stored = await self.writer.stored_lines(self.table_id, rows[0].line)
        except Exception as e:
            raise NotStored(error, reachable=False) from e
        if not stored:
            raise NotStored(error, reachable=not lost_connection(error)) from error
        if stored != rows:
            raise RecordConflict(
                f"table {self.table_id}: lines {rows[0].line}.. are stored, but"
                " not as this server wrote them"
            ) from error

    async def abandon(self) -> None:
        """The table cannot go on: it ends `abandoned`, with no game stored
        and so nothing rated. Written like a record line: Fenced if another
        node holds the table now."""

        async def end(s: AsyncSession) -> None:
            await tables.end_table(s, self.table_id, "abandoned")

        await self.writer.write(self.table_id, [], end)

    async def _finish(self, s: AsyncSession, state: State) -> None:
        assert state.winner is not None and state.reason is not None
        out = state.forfeits
        players = [
            PlayerResult(
                seat,
                self.seats[seat],
                state.roles[seat] or "",
                team_result(state.winner, state.team_of(seat)),
                team=state.team_of(seat),
                forfeit=seat in out,
            )
            for seat in state.seats
        ]
        ranked = awards(state)
        game_id = await record_game(s, self.table_id, state.winner, state.reason, ranked, players)
        await tables.end_table(s, self.table_id, "finished")
        await attach_game(s, self.table_id, game_id)
        for hook in self.on_game_end:
            await hook(s, game_id)
