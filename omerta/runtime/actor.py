"""One live table: an asyncio task that owns the game's state and takes the
messages in its queue one at a time.

Each step: fire the deadlines that have passed (each recorded as a wait at
its own time), apply the action, and queue the step's record lines. A
second task writes queued steps in one transaction and only then sends each
connection the events its seat may see, its new view and the answers. So
the table goes on (timers fire on time) while a write is under way, but
nothing reaches a client before the step behind it is stored. If a write
fails, every step not yet written is dropped and the table goes back to
the last stored state. The engine decides what is legal; the actor only
applies, records, filters and sends.

The actor runs while its node holds the table's lease (ownership.py): a
write refused because another node holds it now (`Fenced`) stops the
actor without a word to the record, and its clients reconnect to the new
holder. `hand_over` stops it between two steps, once the last is stored."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..script import record_line
from ..store.leases import Fenced
from ..table import Action, Event, IllegalAction, State, Timeout, apply
from ..table.events import TechRecord
from ..table.views import gate
from . import messages
from .bots import Bots
from .clock import GameClock
from .fanout import Fanout, Peer
from .record import NotStored, Pending, RecordConflict, Recorder
from .stats import Stats

if TYPE_CHECKING:  # aiortc loads only when a table needs media
    from ..media.plane import MediaPlane

log = logging.getLogger(__name__)

#: Refused message ids remembered per table, to answer a repeat the same way
#: (applied ones are all remembered: they are in the record).
REFUSALS_KEPT = 1000
#: Wall seconds between the tries of a record write that failed, the last
#: repeated for as long as the database is out of reach.
RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0, 5.0)
#: Tries the database answers but refuses before the table is given up.
REFUSED_TRIES = 5
#: WebSocket close codes.
GAME_OVER, GOING_AWAY, CANNOT_GO_ON = 1000, 1001, 1011
NOT_RECORDED = "the server could not record your action; nothing was applied, send it again"
PAUSED = (
    "the server cannot record the game right now: the clocks stand still until it can,"
    " then play goes on where it stopped"
)
ABORTED = (
    "this table cannot go on (an error on our side): it is abandoned, and nothing about it is rated"
)


@dataclass(frozen=True, slots=True)
class Act:
    peer: Peer
    client_id: str
    action: Action


@dataclass(frozen=True, slots=True)
class Join:
    peer: Peer
    last: int | None  # the client's newest event number, if it has any
    hello: bool  # a new connection, rather than a resume on an open one


@dataclass(frozen=True, slots=True)
class Leave:
    peer: Peer


@dataclass(frozen=True, slots=True)
class Tick:
    """The armed deadline's time has come (or a failed write's retry)."""


@dataclass(frozen=True, slots=True)
class BotTurn:
    seat: int


@dataclass(frozen=True, slots=True)
class GiveUp:
    """The record cannot be written, and never will be."""

    error: Stuck


@dataclass(frozen=True, slots=True)
class Stop:
    """The game's end is stored and sent."""


@dataclass(frozen=True, slots=True)
class Lost:
    """Another node holds the table's lease now: stop, write nothing."""


@dataclass(frozen=True, slots=True)
class HandOver:
    """Stop once every step is stored; `done` gets the game time the clock
    stood at then (None: a step could not be stored)."""

    done: asyncio.Future[float | None]


Message = Act | Join | Leave | Tick | BotTurn | GiveUp | Stop | Lost | HandOver
_TICK, _STOP, _TIMEOUT, _LOST = Tick(), Stop(), Timeout(), Lost()


class Stuck(Exception):
    """A deadline cannot fire: the table cannot go on."""


class LostLease(Exception):
    """A write was refused: another node holds the table now."""


def _fenced(error: BaseException) -> bool:
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, Fenced):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@dataclass(frozen=True, slots=True)
class Reply:
    peer: Peer
    text: str
    #: set on the answer that applied an action: it is kept once stored
    key: tuple[int | None, str] | None = None


@dataclass(slots=True)
class Entry:
    """A step waiting to be written and sent, with the acks of the actions
    it applied."""

    state: State
    lines: list[Pending]
    events: list[Event]
    started: float
    replies: list[Reply] = field(default_factory=list)


class TableActor:
    def __init__(
        self,
        table_id: int,
        state: State,
        fanout: Fanout,
        recorder: Recorder,
        clock: GameClock,
        applied_ids: dict[tuple[int | None, str], str],
        bots: Bots,
        stats: Stats,
        media: MediaPlane | None = None,
    ):
        self.table_id = table_id
        #: every step applied so far; `stored` is what is written and sent
        self.state = self.stored = state
        self.fanout = fanout
        self.recorder = recorder
        self.clock = clock
        self.bots = bots
        self.stats = stats
        self.media = media
        self._answers: dict[tuple[int | None, str], str] = dict(applied_ids)
        self._refusals: OrderedDict[tuple[int | None, str], None] = OrderedDict()
        self._unstored: dict[tuple[int | None, str], Entry] = {}  # applied, not yet written
        self._outbox: deque[Entry] = deque()
        self._writing: asyncio.Task[None] | None = None
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._timer: asyncio.TimerHandle | None = None
        self._stopped = False
        #: kinds of unexpected error already logged with their traceback
        self._logged: set[str] = set()
        #: a write failed: no time passes and nothing is applied until it lands
        self._paused = False

    # --- called by connections; never blocks --------------------------------

    def seat_of(self, user_id: int) -> int | None:
        return next((seat for seat, user in self.recorder.seats.items() if user == user_id), None)

    def join(self, peer: Peer, last: int | None, hello: bool = True) -> None:
        if self._stopped:  # ended between the socket finding it and joining it
            peer.close(GAME_OVER if self.stored.over else GOING_AWAY, "this table is not live")
            return
        self._inbox.put_nowait(Join(peer, last, hello))

    def act(self, peer: Peer, client_id: str, action: Action) -> None:
        self._inbox.put_nowait(Act(peer, client_id, action))

    def leave(self, peer: Peer) -> None:
        self._inbox.put_nowait(Leave(peer))

    def hand_over(self) -> asyncio.Future[float | None]:
        """Ask the actor to stop between two steps, once everything applied
        is stored: the future gets the game time to run on from."""
        done: asyncio.Future[float | None] = asyncio.get_running_loop().create_future()
        if self._stopped:
            done.set_result(None)
        else:
            self._inbox.put_nowait(HandOver(done))
        return done

    async def signal(
        self, seat: int | None, message: dict[str, Any], viewer: int | None = None
    ) -> dict[str, Any] | None:
        """WebRTC signalling goes straight to the media plane: it changes
        nothing in the game, so it does not wait behind the game's steps.
        `viewer` numbers a spectator's connection (seat None)."""
        if self.media is None:
            return {"op": "error", "error": "this table has no media connections"}
        try:
            return await self.media.signal(seat, message, viewer)
        except Exception as e:
            self._log_once(e, "media signalling")
            return {"op": "error", "error": messages.INTERNAL, "code": "internal"}

    # --- the loop ---------------------------------------------------------------

    async def run(self) -> None:
        if self.media is not None:
            self.media.set_gate(gate(self.stored))
        self._ready()
        try:
            while not isinstance(message := await self._inbox.get(), Stop):
                if isinstance(message, Lost):
                    log.warning("table %d: another node holds it now; stopping", self.table_id)
                    return
                if isinstance(message, HandOver):
                    message.done.set_result(await self._flushed())
                    return
                try:
                    self._handle(message)
                except Stuck as e:
                    await self._abort(e)
                    return
                except Exception as e:
                    self._failed(message, e)
        finally:
            self._stopped = True
            while not self._inbox.empty():  # a hand-over asked for after the end
                if isinstance(message := self._inbox.get_nowait(), HandOver):
                    message.done.set_result(None)
            if self._writing is not None:
                self._writing.cancel()
            self.bots.cancel()
            if self._timer is not None:
                self._timer.cancel()
            if self.stored.over:
                self.fanout.close(GAME_OVER, "the game is over")
            else:
                self.fanout.close(
                    GOING_AWAY, "the server is stopping; reconnect with your last seq"
                )

    async def _flushed(self) -> float | None:
        """Wait until every applied step is stored and sent; the game time
        now, or None if a step could not be stored (the record decides)."""
        while self._writing is not None:
            await self._writing
        if self._outbox or self._paused or self.stored.over:
            return None
        return self.clock.now()

    def _handle(self, message: Message) -> None:
        if isinstance(message, GiveUp):
            raise message.error
        if isinstance(message, Tick):
            if not self._paused:
                self._step(None)
        elif isinstance(message, Act):
            self._on_act(message)
        elif isinstance(message, BotTurn):
            if self._paused:
                return

            action = self.bots.choose(self.state, message.seat)
            if action is not None:
                self._step(action)  # a refused bot move is simply not made
        elif isinstance(message, Join):
            self.fanout.join(message.peer, message.last, message.hello, self.stored)
        elif isinstance(message, Leave):
            self.fanout.leave(message.peer)

    def _failed(self, message: Message, error: Exception) -> None:
        """A bug of ours while handling `message`: the table goes on from the
        state it had; a client that sent it is told, without the details."""
        self._log_once(error, f"handling {type(message).__name__}")
        if isinstance(message, Act):
            message.peer.send(messages.error(messages.INTERNAL, message.client_id, code="internal"))

    def _log_once(self, error: BaseException, doing: str) -> None:
        """The first error of a kind with its traceback, the rest in a line
        (a client that repeats a message must not flood the log)."""
        kind = f"{doing}: {type(error).__name__}"
        first = kind not in self._logged
        self.stats.errors += 1
        self._logged.add(kind)
        log.error(
            "table %d: %s failed: %r",
            self.table_id,
            doing,
            error,
            exc_info=error if first else None,
        )

    async def _abort(self, error: Stuck) -> None:
        """The game cannot go on: the table ends `abandoned` (no game, nothing
        rated) and every connection is told why before it is closed; unless
        another node holds the table now (the end is fenced like a line)."""
        self._stopped = True
        try:
            await self.recorder.abandon()
        except Fenced:
            log.warning("table %d: another node holds it now; stopping", self.table_id)
            return  # run() closes every connection: they reconnect to the holder
        except Exception as e:  # a restart replays the record and ends here again
            log.error("table %d: cannot mark it abandoned: %r", self.table_id, e)
        log.error(
            "table %d cannot go on; it is abandoned",
            self.table_id,
            exc_info=error.__cause__ or error,
        )
        text = messages.error(ABORTED, code="table_aborted")
        self.fanout.tell(text)
        self.fanout.close(CANNOT_GO_ON, "the table cannot go on")

    def _on_act(self, message: Act) -> None:
        peer, key = message.peer, (message.peer.seat, message.client_id)
        if key in self._answers:
            self._reply(Reply(peer, self._answers[key]))
            return
        if key in self._unstored:  # applied, not written yet: answered once it is
            self._unstored[key].replies.append(Reply(peer, messages.ack(message.client_id)))
            return
        if self._paused:
            self._reply(
                Reply(peer, messages.error(NOT_RECORDED, message.client_id, code="not_recorded"))
            )
            return
        refusal, entry = self._step(message.action, message.client_id)
        if refusal is None:
            assert entry is not None
            entry.replies.append(Reply(peer, messages.ack(message.client_id), key))
            self._unstored[key] = entry
            return
        if not isinstance(refusal, IllegalAction):  # our bug, not a rule: may be sent again
            self._reply(
                Reply(peer, messages.error(messages.INTERNAL, message.client_id, code="internal"))
            )
            return
        text = messages.refusal(refusal, message.client_id)
        self.stats.refusals += 1
        self._answers[key] = text
        self._refusals[key] = None
        if len(self._refusals) > REFUSALS_KEPT:
            del self._answers[self._refusals.popitem(last=False)[0]]
        self._reply(Reply(peer, text))

    def _reply(self, reply: Reply) -> None:
        """An answer that applies nothing goes out at once, never behind the
        steps still being written: those may be hidden actions of other seats
        (a shot, a check), and a refusal that waited for them would tell
        their timing (issue 12, finding 4)."""
        reply.peer.send(reply.text)

    # --- one step ---------------------------------------------------------------

    def _step(
        self, action: Action | None, client_id: str | None = None
    ) -> tuple[Exception | None, Entry | None]:
        """Fire what is due, then apply `action` (None: a timer woke us).
        Returns the engine's refusal of `action` (or the error it raised),
        if any, and the step queued for writing, if anything happened.
        Raises Stuck if a deadline cannot fire."""
        started = self.clock.loop.time()
        now = self.clock.now()
        state, lines, events, fired = self.state, [], [], []
        # A deadline due at the very moment of an action fires after it, as
        # `omerta replay` plays a line with that `t`.
        try:
            while (
                not state.over
                and (due := state.next_deadline) is not None
                and (due < now or (due == now and action is None))
            ):
                state, new = apply(state, _TIMEOUT, due)
                lines.append(Pending(record_line(None, due)))
                events += new
                fired.append(due)
        except Exception as e:
            raise Stuck("a deadline cannot fire") from e
        refusal: Exception | None = None
        if action is not None:
            try:
                after, new = apply(state, action, now)
                line = Pending(record_line(action, now), client_id)
            except IllegalAction as e:
                refusal = e
            except Exception as e:  # the deadlines before it still stand
                self._log_once(e, f"applying {type(action).__name__}")
                refusal = e
            else:
                state = after
                lines.append(line)
                events += new
        if not lines:
            if action is None:
                self._arm()  # woke a hair before the deadline: wait for it again
            return refusal, None
        self.stats.lateness.extend(started - self.clock.wall(due) for due in fired)
        self.state = state
        entry = Entry(state, lines, events, started)
        self._outbox.append(entry)
        if self._writing is None:
            self._writing = asyncio.create_task(self._write())
        self._ready()
        return refusal, entry

    def _ready(self) -> None:
        """After a step: the timer for the next deadline, and the bots that
        have something to do."""
        self._arm()
        if not self.state.over:
            self.bots.schedule(
                self.state, self.clock, lambda seat: self._inbox.put_nowait(BotTurn(seat))
            )

    def _arm(self, at: float | None = None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due = self.state.next_deadline
        if at is None and due is not None:
            at = self.clock.wall(due)
        if at is not None:
            self._timer = self.clock.loop.call_at(at, self._inbox.put_nowait, _TICK)

    # --- writing, then sending --------------------------------------------------

    async def _write(self) -> None:
        """Write whatever is queued in one transaction, send it, repeat."""
        try:
            while self._outbox:
                batch = list(self._outbox)
                lines = [line for entry in batch for line in entry.lines]
                # T5: each technical vote with the record line of the step that ended it.
                votes, count = [], 0
                for entry in batch:
                    count += len(entry.lines)
                    votes += [
                        (count - 1, e.to_dict()) for e in entry.events if isinstance(e, TechRecord)
                    ]
                try:
                    resumed = await self._store(lines, batch[-1].state, votes)
                except Stuck as e:
                    self._inbox.put_nowait(GiveUp(e))
                    return
                except LostLease:
                    self._inbox.put_nowait(_LOST)
                    return
                for _ in batch:
                    entry = self._outbox.popleft()
                    try:
                        self._send(entry)
                    except Exception as e:  # the step is stored: the table goes on from it
                        self._log_once(e, "sending a step")
                if resumed:
                    self._resume()
        finally:
            self._writing = None

    async def _store(
        self, lines: list[Pending], state: State, votes: list[tuple[int, dict[str, Any]]]
    ) -> bool:
        """Write `lines` until they are stored; True if the table stood still
        meanwhile. The same lines are written again: they were legal when
        applied, and nobody has heard of them yet. Raises Stuck if the
        database keeps refusing them while it answers, or holds others."""
        tries = refused = 0
        while True:
            try:
                await self.recorder.write(lines, state, votes)
                return self._paused
            except RecordConflict as e:
                if _fenced(e):
                    raise LostLease() from e
                raise Stuck("the record holds lines this table did not write") from e
            except NotStored as e:
                if _fenced(e):
                    raise LostLease() from e
                refused = refused + 1 if e.reachable else 0
                if refused >= REFUSED_TRIES:
                    raise Stuck("the database refuses the table's record") from e
                if not self._paused:
                    self._pause(e)
                else:
                    log.warning(
                        "table %d: still cannot write its record (%r)", self.table_id, e.error
                    )
                await asyncio.sleep(RETRY_SECONDS[min(tries, len(RETRY_SECONDS) - 1)])
                tries += 1

    def _pause(self, error: NotStored) -> None:
        """The first failed write: stop the clock where it stands, so no
        deadline passes unheard and nobody's speech is cut by the outage
        (docs/api.md, "Persistence and restarts")."""
        log.error(
            "table %d: cannot write its record (%r); it stands still until it can",
            self.table_id,
            error.error,
            exc_info=None if isinstance(error.error, OSError) else error.error,
        )
        self._paused = True
        self._set_clock(self.clock.stopped())
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.bots.cancel()
        self.fanout.tell(messages.error(PAUSED, code="record_paused"))

    def _resume(self) -> None:
        """The record is written again: the clock runs on from where it
        stopped, and everyone gets their view with the time left."""
        self._paused = False
        self._set_clock(GameClock.starting(self.clock.loop, self.clock.scale, at=self.clock.now()))
        self.fanout.refresh(self.stored)
        if not self.state.over:
            self._ready()

    def _set_clock(self, clock: GameClock) -> None:
        self.clock = self.fanout.clock = clock

    def _send(self, entry: Entry) -> None:
        self.stored = entry.state
        try:
            if self.media is not None:  # the gate changes with the phase, before anyone hears of it
                self.media.set_gate(gate(entry.state))
            self.fanout.publish(entry.state, entry.events)
            self.stats.steps.append(self.clock.loop.time() - entry.started)
        finally:  # the step is stored whatever went wrong in sending it: answer, end the game
            for reply in entry.replies:
                reply.peer.send(reply.text)
                if reply.key is not None:
                    self._answers[reply.key] = reply.text
                    self._unstored.pop(reply.key, None)
            if entry.state.over:
                self._inbox.put_nowait(_STOP)
