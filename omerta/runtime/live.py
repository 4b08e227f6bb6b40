"""The live tables of one server process (a node): an actor per playing
table it holds the lease of (ownership.py), started when the lobby fills
a table, rebuilt from the record when the node adopts one (at start, or
when another node died or handed it over), and handed over between two
steps when the node stops."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..league import apply_game
from ..script import Player, parse
from ..store import Database
from ..tournament.rounds import game_ended as tournament_game_ended
from . import messages
from .actor import TableActor
from .bots import Bots
from .clock import GameClock
from .fanout import Fanout
from .ownership import LOCAL, Ownership
from .record import GameEndHook, Recorder, Stored, load
from .stats import Stats, watch_loop
from .streams import Streams
from .writer import GroupWriter

if TYPE_CHECKING:
    from ..media.plane import MediaPlane

log = logging.getLogger(__name__)

#: Wall seconds a resumed table's clock stands still, so its players can
#: reconnect before anything runs on (docs/api.md, "Restarts").
GRACE_SECONDS = 3.0
#: Wall seconds a stopping node waits for its tables' last writes.
HAND_OVER_SECONDS = 10.0


def sfu_media(table_id: int, seats: int) -> MediaPlane:
    """The default media plane: an in-process SFU per table (omerta/media)."""
    from ..media import Sfu  # aiortc loads only when a table needs media

    return Sfu(range(1, seats + 1))


class LiveTables:
    """The `TableRuntime` of `omerta serve`."""

    def __init__(
        self,
        db: Database,
        time_scale: float,
        *,
        grace: float = GRACE_SECONDS,
        media: Callable[[int, int], MediaPlane | None] | None = None,
        on_game_end: Sequence[GameEndHook] = (tournament_game_ended, apply_game),
        node: str = LOCAL,
        url: str | None = None,
    ):
        self.db = db
        self.time_scale = time_scale
        self.grace = grace
        self.media = media
        self.on_game_end = on_game_end
        self.stats = Stats()
        self.writer = GroupWriter(db, self.stats)
        self.ownership = Ownership(db, node, url)
        self.writer.tokens = self.ownership.tokens  # every write is fenced by its lease
        self._actors: dict[int, TableActor] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        #: tables being taken and loaded, and those that failed to (not retried)
        self._starting: set[int] = set()
        self._broken: set[int] = set()
        self._watch: asyncio.Task[None] | None = None
        self._keep: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Future[None]] = set()

    async def start(self, table_id: int) -> None:
        """Run table `table_id` here, if this node can take its lease (else
        the node holding it runs it, or another adopts it)."""
        if table_id in self._actors or table_id in self._starting:
            return
        self._starting.add(table_id)
        try:
            lease = await self.ownership.take(table_id)
            if lease is None:
                return
            try:
                self._run(table_id, await load(self.db, table_id), lease.handoff_t)
            except BaseException:
                self.ownership.drop(table_id)
                raise
        finally:
            self._starting.discard(table_id)

    def _run(self, table_id: int, stored: Stored, handoff_t: float | None) -> None:
        script = parse("\n".join(line.text for line in stored.lines))
        player = Player(script.header)
        for line in script.lines:
            player.play(line)
        streams = Streams(player.state.seats)
        streams.add(player.events)
        applied: dict[tuple[int | None, str], str] = {
            (line.action.seat, row.client_id): messages.ack(row.client_id)
            for row, line in zip(stored.lines[1:], script.lines)
            if row.client_id is not None and line.action is not None
        }
        # Handed over by a node that stopped: the clock runs on from where
        # that node stopped it (it has stood still since). Else from the
        # record's last line: the outage is added to every clock.
        at = player.state.now if handoff_t is None else max(handoff_t, player.state.now)
        clock = GameClock.starting(
            asyncio.get_running_loop(),
            self.time_scale,
            at=at,
            grace=0.0 if stored.fresh else self.grace,
        )
        actor = TableActor(
            table_id,
            player.state,
            Fanout(table_id, streams, clock),
            Recorder(self.writer, table_id, stored.seats, len(stored.lines), self.on_game_end),
            clock,
            applied,
            Bots(script.header.bots, script.header.seed),
            self.stats,
            self.media(table_id, player.state.n) if self.media is not None else None,
        )
        if actor.media is not None:  # each seat's media health, to every client: not game state
            actor.media.watch(lambda status: actor.fanout.tell(messages.media(status)))
            # and the signals a plane sends one seat unasked (Janus: offers)
            actor.media.deliver(lambda seat, m: actor.fanout.tell_seat(seat, messages.media(m)))
        self._actors[table_id] = actor
        task = asyncio.create_task(actor.run(), name=f"table-{table_id}")
        self._tasks[table_id] = task
        task.add_done_callback(lambda done: self._ended(table_id, done))

    def _ended(self, table_id: int, task: asyncio.Task[None]) -> None:
        self.ownership.drop(table_id)
        actor = self._actors.pop(table_id, None)
        if actor is not None and actor.media is not None:  # its media end with its game
            closing = asyncio.ensure_future(actor.media.close())
            self._closing.add(closing)  # kept until done: the loop holds tasks weakly
            closing.add_done_callback(self._closing.discard)
        self._tasks.pop(table_id, None)
        if not task.cancelled() and task.exception() is not None:
            # A bug, not a rule: the record is intact, a restart resumes the table.
            log.error("table %d stopped on an error", table_id, exc_info=task.exception())

    async def resume_all(self) -> None:
        """Adopt this node's tables (its own, and its share of those nobody
        holds) before the server takes requests; then keep doing so."""
        self._watch = asyncio.create_task(watch_loop(self.stats), name="loop-lag")
        await self.ownership.renew()  # this node's heartbeat: it counts in the shares
        for table_id in await self.ownership.unowned(self._running(), restart=True):
            await self._adopt(table_id)
        self._keep = asyncio.create_task(
            self.ownership.keep(self._running, self._lost, self._adopt), name="leases"
        )

    def _running(self) -> set[int]:
        return {*self._actors, *self._starting, *self._broken}

    async def _adopt(self, table_id: int) -> None:
        try:
            await self.start(table_id)
        except Exception:
            self._broken.add(table_id)
            log.exception("table %d cannot be resumed from its record", table_id)

    def _lost(self, table_id: int) -> None:
        """Another node holds the table now: stop its actor, writing nothing."""
        task = self._tasks.get(table_id)
        if task is not None:
            task.cancel()

    async def drain(self) -> None:
        """Hand every table over between two steps: each actor stops once
        its last step is stored, and its lease is released with the game
        time it stopped at, for the node that adopts it. The clocks stand
        still meanwhile: no player sees one jump. This node adopts nothing
        more."""
        self.ownership.draining = True
        handing = [asyncio.ensure_future(self._hand_over(t)) for t in list(self._actors)]
        if handing:
            await asyncio.wait(handing, timeout=HAND_OVER_SECONDS)

    async def shutdown(self) -> None:
        await self.drain()
        # The lease keeper ends between two looks (see Ownership.keep); what
        # is left of the actors (those that could not hand over in time)
        # and the lag watcher are cancelled.
        self.ownership.stop()
        if self._keep is not None:
            await asyncio.gather(self._keep, return_exceptions=True)
        tasks = [*self._tasks.values(), *([self._watch] if self._watch else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.writer.close()

    async def _hand_over(self, table_id: int) -> None:
        actor, task = self._actors.get(table_id), self._tasks.get(table_id)
        token = self.ownership.tokens.get(table_id)
        if actor is None or task is None or token is None:
            return
        handoff_t = await actor.hand_over()
        await asyncio.gather(task, return_exceptions=True)
        if handoff_t is not None:
            try:
                await self.ownership.release(table_id, token, handoff_t)
            except Exception as e:  # the lease runs out instead: adopted from the record
                log.warning("table %d: cannot release its lease: %r", table_id, e)

    def actors(self) -> list[TableActor]:
        return list(self._actors.values())

    def table(self, table_id: int) -> TableActor | None:
        return self._actors.get(table_id)

    def snapshot(self, reset: bool = False) -> dict[str, Any]:
        out = self.stats.snapshot(len(self._actors))
        if reset:
            self.stats.reset()
        return out
