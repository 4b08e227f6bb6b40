"""The live tables: one asyncio actor per table that is playing.

The HTTP lobby only decides *when* a table starts; everything after that
belongs to the runtime, which the server reaches through `TableRuntime`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..store import Database

if TYPE_CHECKING:
    from .actor import TableActor


class TableRuntime(Protocol):
    async def start(self, table_id: int) -> None:
        """The lobby has just filled table `table_id`: it is stored with status
        `playing`, its seats numbered 1..n (at random, C1) with bots marked,
        and no record yet. Begin its game: write the record header, run it."""

    async def resume_all(self) -> None:
        """Called once at server start: pick up every `playing` table from
        its record (or start it, if it has no header yet)."""

    async def shutdown(self) -> None:
        """Called once at server stop: stop every actor. Nothing is lost: the
        records already hold every applied action."""

    def table(self, table_id: int) -> TableActor | None:
        """The actor running table `table_id`, if it is live in this process
        (the table WebSocket joins it)."""

    def snapshot(self, reset: bool = False) -> dict[str, Any]:
        """Measurements for the load benchmark (`--debug-stats` only)."""


#: Builds the runtime once the database is open: (database, time_scale),
#: where a time_scale of 10 makes every game timer run 10 times faster.
RuntimeFactory = Callable[[Database, float], TableRuntime]
