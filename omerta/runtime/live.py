"""The live tables of one server process: an actor per playing table,
started when the lobby fills a table and rebuilt from the record at start."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Sequence

from ..script import Player, parse
from ..store import Database, tables
from ..store.ratings import apply_game
from . import wire
from .actor import MediaPlane, TableActor
from .bots import Bots
from .clock import GameClock
from .fanout import Fanout
from .record import GameEndHook, Recorder, load
from .stats import Stats, watch_loop
from .writer import GroupWriter
from .streams import Streams

log = logging.getLogger(__name__)

#: Wall seconds a resumed table's clock stands still, so its players can
#: reconnect before anything runs on (docs/api.md, "Restarts").
GRACE_SECONDS = 3.0


def sfu_media(table_id: int, seats: int) -> MediaPlane:
    """The default media plane: an in-process SFU per table (omerta/media)."""
    from ..media import Sfu    # aiortc loads only when a table needs media
    return Sfu(range(1, seats + 1))


class LiveTables:
    """The `TableRuntime` of `omerta serve`."""

    def __init__(self, db: Database, time_scale: float, *, grace: float = GRACE_SECONDS,
                 media: Callable[[int, int], MediaPlane | None] | None = None,
                 on_game_end: Sequence[GameEndHook] = (apply_game,)):
        self.db = db
        self.time_scale = time_scale
        self.grace = grace
        self.media = media
        self.on_game_end = on_game_end
        self.stats = Stats()
        self.writer = GroupWriter(db, self.stats)
        self._actors: dict[int, TableActor] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._watch: asyncio.Task[None] | None = None

    async def start(self, table_id: int) -> None:
        if table_id in self._actors:
            return
        stored = await load(self.db, table_id)
        if table_id in self._actors:   # started by another caller while this one loaded
            return
        script = parse("\n".join(line.text for line in stored.lines))
        player = Player(script.header)
        for line in script.lines:
            player.play(line)
        streams = Streams(player.state.seats)
        streams.add(player.events)
        applied = {(line.action.seat, row.client_id): wire.ack(row.client_id)
                   for row, line in zip(stored.lines[1:], script.lines)
                   if row.client_id is not None and line.action is not None}
        clock = GameClock.starting(asyncio.get_running_loop(), self.time_scale,
                                   at=player.state.now, grace=0.0 if stored.fresh else self.grace)
        actor = TableActor(
            table_id, player.state, Fanout(table_id, streams, clock),
            Recorder(self.writer, table_id, stored.seats, len(stored.lines), self.on_game_end),
            clock, applied, Bots(script.header.bots, script.header.seed), self.stats,
            self.media(table_id, player.state.n) if self.media is not None else None)
        self._actors[table_id] = actor
        task = asyncio.create_task(actor.run(), name=f"table-{table_id}")
        self._tasks[table_id] = task
        task.add_done_callback(lambda done: self._ended(table_id, done))

    def _ended(self, table_id: int, task: asyncio.Task[None]) -> None:
        actor = self._actors.pop(table_id, None)
        close = getattr(actor.media, "close", None) if actor is not None else None
        if close is not None:      # the table's media connections end with its game
            asyncio.ensure_future(close())
        self._tasks.pop(table_id, None)
        if not task.cancelled() and task.exception() is not None:
            # A bug, not a rule: the record is intact, a restart resumes the table.
            log.error("table %d stopped on an error", table_id, exc_info=task.exception())

    async def resume_all(self) -> None:
        self._watch = asyncio.create_task(watch_loop(self.stats), name="loop-lag")
        async with self.db.begin() as s:
            playing = [table.id for table in await tables.tables_with_status(s, "playing")]
        for table_id in playing:
            try:
                await self.start(table_id)
            except Exception:
                log.exception("table %d cannot be resumed from its record", table_id)

    async def shutdown(self) -> None:
        tasks = [*self._tasks.values(), *([self._watch] if self._watch else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.writer.close()

    def table(self, table_id: int) -> TableActor | None:
        return self._actors.get(table_id)

    def snapshot(self, reset: bool = False) -> dict[str, Any]:
        out = self.stats.snapshot(len(self._actors))
        if reset:
            self.stats.reset()
        return out
