"""Who watches a live table (issue 19): the spectators' places per table
(`OMERTA_LIMIT_SPECTATORS_PER_TABLE`), who may watch, and the delayed
streams of this process's tables (runtime/spectators.py). The sockets are
in table_ws.py (spectators) and watch.py (streams)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator

from aiohttp import web

from ..runtime.actor import GAME_OVER, GOING_AWAY, TableActor
from ..runtime.fanout import Fanout
from ..runtime.spectators import Broadcast, WatchSettings
from ..store import tables
from ..store.models import GameTable, User
from .keys import DB
from .ratelimit import Occupancy
from .wire import ApiError

#: Wall seconds between two looks at what each stream may release.
TICK = 0.2


class Broadcasts:
    """The delayed streams of this process's live tables, each started when
    its first viewer comes and kept until its game's end is released."""

    def __init__(self, per_table: int, live: Callable[[int], bool]):
        #: live spectators and stream viewers of each table (OMERTA_LIMIT_SPECTATORS_PER_TABLE)
        self.watchers = Occupancy(per_table)
        #: whether a table's actor still runs in this process
        self._live = live
        self._all: dict[int, tuple[Broadcast, Fanout]] = {}
        self._ticker: asyncio.Task[None] | None = None

    def get(self, table_id: int) -> Broadcast | None:
        found = self._all.get(table_id)
        return found[0] if found else None

    def start(self, actor: TableActor, delay: float) -> Broadcast:
        """The table's stream, begun now if it has none: what the table had
        so far waits the whole delay (its times are not known here)."""
        found = self._all.get(actor.table_id)
        if found is not None:
            return found[0]
        fanout = actor.fanout
        broadcast = Broadcast(
            actor.table_id, delay, lambda: fanout.clock.now(), actor.stored, fanout.streams.told()
        )
        fanout.watchers.append(broadcast.publish)
        self._all[actor.table_id] = (broadcast, fanout)
        if self._ticker is None:
            self._ticker = asyncio.create_task(self._tick(), name="streams")
        return broadcast

    def counted(self, table_id: int) -> None:
        """Tell the table's players how many watch its stream now."""
        found = self._all.get(table_id)
        if found is not None:
            broadcast, fanout = found
            fanout.stream_viewers = broadcast.viewers
            fanout.watching_changed()

    async def _tick(self) -> None:
        try:
            while self._all:
                await asyncio.sleep(TICK)
                for table_id, (broadcast, _) in list(self._all.items()):
                    broadcast.release()
                    if broadcast.done:
                        broadcast.close(GAME_OVER, "the game is over")
                        del self._all[table_id]
                    elif not broadcast.held and not self._live(table_id):
                        # Abandoned, or moved to another process: nothing more comes here.
                        broadcast.close(GOING_AWAY, "this table is not played here any more")
                        del self._all[table_id]
        finally:
            self._ticker = None

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        for broadcast, _ in self._all.values():
            broadcast.close(GOING_AWAY, "the server is stopping")
        self._all.clear()


BROADCASTS = web.AppKey("broadcasts", Broadcasts)


async def watch_settings(request: web.Request, table_id: int) -> tuple[GameTable, WatchSettings]:
    async with request.app[DB].begin() as s:
        table = await tables.get_table(s, table_id)
    if table is None:
        raise ApiError(404, f"no table {table_id}")
    return table, WatchSettings.parse(tables.watch_settings(table))


async def may_watch(request: web.Request, table_id: int, user: User | None) -> None:
    """Refuse a visitor who may not watch table `table_id` live."""
    _, settings = await watch_settings(request, table_id)
    if user is None and settings.spectators != "anyone":
        raise ApiError(401, "sign in first (POST /api/login): this table is watched signed in")


@contextlib.contextmanager
def watcher_slot(request: web.Request, table_id: int) -> Iterator[None]:
    """Hold one of the table's watching places while the block runs; 429
    when it has none left."""
    watchers = request.app[BROADCASTS].watchers
    if not watchers.take(str(table_id)):
        raise ApiError(
            429,
            f"table {table_id} has {watchers.ceiling} spectators already: try again later",
            headers={"Retry-After": "30"},
        )
    try:
        yield
    finally:
        watchers.give_back(str(table_id))
