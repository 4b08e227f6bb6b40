"""Which tables this node runs (issue 17; docs/deploy.md, "Several nodes").

A node runs a table while it holds the table's lease (omerta/store/leases.py):
it takes the lease before it starts the actor, renews all its leases every
`TICK` seconds, and looks for tables nobody holds (their node died, or
handed them over) to adopt its share of them. A lease it no longer holds
stops that table's actor; so does not being able to renew for two lease
periods (the other nodes have adopted its tables meanwhile). What
keeps two nodes from writing one record is the fencing token every record
write carries, checked by the database; this loop only keeps the nodes busy
with the right tables.

One node (`omerta serve` with no options) runs the same code under the
name `local`: it adopts every playing table at start, its own leases
included, so a restart resumes them at once; and it keeps its tables
while the database is out of reach (they stand still, as they always did:
no other node could take them over)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Collection

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from ..store import Database, leases
from ..store.leases import Lease

log = logging.getLogger(__name__)

#: The node name of a single `omerta serve`.
LOCAL = "local"
#: Seconds a lease lasts unless renewed: how long a dead node's tables wait
#: before another node adopts them.
LEASE_SECONDS = 3.0
#: Seconds between two renewals and looks for tables to adopt.
TICK = 0.5
#: Lease periods without one renewal after which a node of a cluster takes
#: itself for cut off and stops its tables (its players reconnect to the
#: nodes that adopted them). Not one: a busy node renews late, and what
#: it lost it learns from the next renewal that goes through.
CUT_OFF_LEASES = 2


class Ownership:
    def __init__(
        self,
        db: Database,
        node: str = LOCAL,
        url: str | None = None,
        lease_seconds: float = LEASE_SECONDS,
    ):
        self.db = db
        self.node = node
        self.url = url
        self.lease_seconds = lease_seconds
        #: the lease token of every table this node holds (the record writer
        #: writes with these)
        self.tokens: dict[int, int] = {}
        self.draining = False
        self._renewed: float | None = None
        #: Postgres: a connection of the renewal's own, kept between renewals,
        #: so a burst of requests waiting for the pool (a lobby filling many
        #: tables, their players signing in) cannot hold the heartbeat past
        #: the lease. (SQLite, one node, renews from the pool: a cancelled
        #: SQLite query can leave its connection's close pending for ever.)
        self._line: AsyncConnection | None = None
        self._stopping = asyncio.Event()

    async def take(self, table_id: int) -> Lease | None:
        """Take table `table_id`'s lease, if nobody else holds it."""
        if self.draining:
            return None
        async with self.db.begin() as s:
            lease = await leases.acquire(s, table_id, self.node, self.lease_seconds)
        if lease is not None:
            self.tokens[table_id] = lease.token
        return lease

    def drop(self, table_id: int) -> int | None:
        """This node no longer runs table `table_id`: its token, if it had one."""
        return self.tokens.pop(table_id, None)

    async def release(self, table_id: int, token: int, handoff_t: float | None) -> None:
        """Give the lease up now: another node adopts the table on its next
        look, and runs its clock on from `handoff_t`."""
        async with self.db.begin() as s:
            await leases.release(s, table_id, token, handoff_t)

    async def renew(self) -> set[int]:
        """Renew every lease this node holds; the tables it lost (another
        node holds them, or renewing failed for CUT_OFF_LEASES lease periods)."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        held = dict(self.tokens)
        try:
            # A database out of reach may not even answer: count it as a failure.
            async with asyncio.timeout(self.lease_seconds), self._renewing() as s:
                await leases.heartbeat(s, self.node, self.url, self.draining)
                kept = await leases.renew(s, self.node, held, self.lease_seconds)
        except Exception as e:
            log.warning("node %s: cannot renew its leases: %r", self.node, e)
            if (
                self.node != LOCAL  # alone, a node keeps its tables through an outage
                and self._renewed is not None
                and loop.time() - self._renewed > CUT_OFF_LEASES * self.lease_seconds
            ):
                return set(self.tokens)  # adopted elsewhere by now: stop writing to them
            return set()
        self._renewed = started
        # A lease handed over (or taken anew) while this renewal ran is not lost.
        return {t for t, token in held.items() if t not in kept and self.tokens.get(t) == token}

    @contextlib.asynccontextmanager
    async def _renewing(self) -> AsyncIterator[AsyncSession]:
        if self.db.engine.dialect.name != "postgresql":
            async with self.db.begin() as s:
                yield s
            return
        if self._line is None:
            self._line = await self.db.engine.connect()
        try:
            async with AsyncSession(self._line, expire_on_commit=False) as s, s.begin():
                yield s
        except BaseException:
            await self._hang_up()  # broken, or cut short by the timeout: a new one next time
            raise

    async def _hang_up(self) -> None:
        line, self._line = self._line, None
        if line is not None:
            with contextlib.suppress(Exception):
                await line.invalidate()  # its query may hang: no rollback on it
                await line.close()

    async def unowned(self, running: Collection[int], restart: bool = False) -> list[int]:
        """The tables this node should adopt now: its share of the tables
        nobody holds and, on a `restart`, those its own name still holds
        (see `leases.claimable`)."""
        async with self.db.begin() as s:
            free = [
                t
                for t in await leases.claimable(s, self.node, restart=restart)
                if t[0] not in running
            ]
            nodes = max(1, await leases.live_nodes(s, self.lease_seconds))
        mine = [table_id for table_id, ours in free if ours]
        others = [table_id for table_id, ours in free if not ours]
        random.shuffle(others)
        return mine + others[: -(-len(others) // nodes)]

    async def keep(
        self,
        running: Callable[[], Collection[int]],
        lost: Callable[[int], None],
        adopt: Callable[[int], Awaitable[None]],
    ) -> None:
        """Every TICK: renew, stop what was lost, adopt a share of the rest
        (in a task of its own: a slow adoption never holds up renewing),
        until `stop`. It stops between two looks, never inside one: a query
        cancelled on SQLite leaves its connection's close pending for ever,
        and the server's exit waits for it."""
        adopting: asyncio.Task[None] | None = None
        try:
            while not self._stopping.is_set():
                for table_id in await self.renew():
                    log.warning("node %s: lost the lease of table %d", self.node, table_id)
                    self.drop(table_id)
                    lost(table_id)
                if not self.draining and (adopting is None or adopting.done()):
                    adopting = asyncio.create_task(self._adopt(running, adopt), name="adopting")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), TICK)
            if adopting is not None:
                await adopting  # draining: it stops between two tables
        finally:
            if adopting is not None and not adopting.done():  # only on an error
                adopting.cancel()
            await self._hang_up()

    def stop(self) -> None:
        """Adopt nothing more, and end `keep` after its current look."""
        self.draining = True
        self._stopping.set()

    async def _adopt(
        self, running: Callable[[], Collection[int]], adopt: Callable[[int], Awaitable[None]]
    ) -> None:
        try:
            found = await self.unowned(running())
        except Exception as e:
            log.warning("node %s: cannot look for tables to adopt: %r", self.node, e)
            return
        for table_id in found:
            if self.draining:
                return
            await adopt(table_id)
