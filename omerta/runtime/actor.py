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
applies, records, filters and sends."""
from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..script import record_line
from ..table import Action, Event, IllegalAction, State, Timeout, apply
from ..table.views import Gate, gate
from . import wire
from .bots import Bots
from .clock import GameClock
from .fanout import Fanout, Peer
from .record import Pending, Recorder
from .stats import Stats

log = logging.getLogger(__name__)

#: Refused message ids remembered per table, to answer a repeat the same way
#: (applied ones are all remembered: they are in the record).
REFUSALS_KEPT = 1000
#: Wall seconds before steps whose record write failed are tried again.
RETRY_SECONDS = 1.0
#: WebSocket close codes.
GAME_OVER, GOING_AWAY = 1000, 1001
NOT_RECORDED = "the server could not record your action; nothing was applied, send it again"


class MediaPlane(Protocol):
    """The media side of one table (omerta/media). It may also have
    `async def signal(seat, message) -> dict | None`: WebRTC signalling,
    answered to that client as a `media` message."""

    def set_gate(self, gate: Gate) -> None: ...


@dataclass(frozen=True, slots=True)
class Act:
    peer: Peer
    client_id: str
    action: Action


@dataclass(frozen=True, slots=True)
class Join:
    peer: Peer
    last: int | None   # the client's newest event number, if it has any
    hello: bool        # a new connection, rather than a resume on an open one


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
class Stop:
    """The game's end is stored and sent."""


Message = Act | Join | Leave | Tick | BotTurn | Stop
_TICK, _STOP, _TIMEOUT = Tick(), Stop(), Timeout()


@dataclass(frozen=True, slots=True)
class Reply:
    peer: Peer
    text: str
    #: set on the answer that applied an action: it is kept once stored
    key: tuple[int | None, str] | None = None
    #: the client message id of an ack, which becomes a "not recorded"
    #: error if the write fails
    ack_id: str | None = None


@dataclass(slots=True)
class Entry:
    """A step waiting to be written and sent (or only answers, kept in
    order behind the steps before them)."""
    state: State
    lines: list[Pending]
    events: list[Event]
    started: float
    replies: list[Reply] = field(default_factory=list)


class TableActor:
    def __init__(self, table_id: int, state: State, fanout: Fanout, recorder: Recorder,
                 clock: GameClock, applied_ids: dict[tuple[int, str], str], bots: Bots,
                 stats: Stats, media: MediaPlane | None = None):
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
        self._unstored: dict[tuple[int | None, str], Entry] = {}   # applied, not yet written
        self._outbox: deque[Entry] = deque()
        self._writing: asyncio.Task[None] | None = None
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._timer: asyncio.TimerHandle | None = None
        self._stopped = False

    # --- called by connections; never blocks --------------------------------

    def seat_of(self, user_id: int) -> int | None:
        return next((seat for seat, user in self.recorder.seats.items() if user == user_id), None)

    def join(self, peer: Peer, last: int | None, hello: bool = True) -> None:
        if self._stopped:   # ended between the socket finding it and joining it
            peer.close(GAME_OVER if self.stored.over else GOING_AWAY, "this table is not live")
            return
        self._inbox.put_nowait(Join(peer, last, hello))

    def act(self, peer: Peer, client_id: str, action: Action) -> None:
        self._inbox.put_nowait(Act(peer, client_id, action))

    def leave(self, peer: Peer) -> None:
        self._inbox.put_nowait(Leave(peer))

    async def signal(self, seat: int | None, message: dict[str, Any]) -> dict[str, Any] | None:
        """WebRTC signalling goes straight to the media plane: it changes
        nothing in the game, so it does not wait behind the game's steps."""
        signal = getattr(self.media, "signal", None)
        if signal is None:
            return {"op": "error", "error": "this table has no media connections"}
        return await signal(seat, message)

    # --- the loop ---------------------------------------------------------------

    async def run(self) -> None:
        if self.media is not None:
            self.media.set_gate(gate(self.stored))
        self._ready()
        try:
            while not isinstance(message := await self._inbox.get(), Stop):
                self._handle(message)
        finally:
            self._stopped = True
            if self._writing is not None:
                self._writing.cancel()
            self.bots.cancel()
            if self._timer is not None:
                self._timer.cancel()
            if self.stored.over:
                self.fanout.close(GAME_OVER, "the game is over")
            else:
                self.fanout.close(GOING_AWAY, "the server is stopping; reconnect with your last seq")

    def _handle(self, message: Message) -> None:
        if isinstance(message, Tick):
            self._step(None)
        elif isinstance(message, Act):
            self._on_act(message)
        elif isinstance(message, BotTurn):
            action = self.bots.choose(self.state, message.seat)
            if action is not None:
                self._step(action)   # a refused bot move is simply not made
        elif isinstance(message, Join):
            self.fanout.join(message.peer, message.last, message.hello, self.stored)
        elif isinstance(message, Leave):
            self.fanout.leave(message.peer)

    def _on_act(self, message: Act) -> None:
        peer, key = message.peer, (message.peer.seat, message.client_id)
        if key in self._answers:
            self._reply(Reply(peer, self._answers[key]))
            return
        if key in self._unstored:   # applied, not written yet: answered once it is
            self._unstored[key].replies.append(
                Reply(peer, wire.ack(message.client_id), ack_id=message.client_id))
            return
        refusal, entry = self._step(message.action, message.client_id)
        if refusal is None:
            assert entry is not None
            entry.replies.append(Reply(peer, wire.ack(message.client_id), key, message.client_id))
            self._unstored[key] = entry
            return
        text = wire.error(refusal.message, message.client_id, refusal.rule)
        self._answers[key] = text
        self._refusals[key] = None
        if len(self._refusals) > REFUSALS_KEPT:
            del self._answers[self._refusals.popitem(last=False)[0]]
        self._reply(Reply(peer, text))

    def _reply(self, reply: Reply) -> None:
        """Send now, or after the steps still being written (in order)."""
        if not self._outbox:
            reply.peer.send(reply.text)
        elif self._outbox[-1].lines:
            self._outbox.append(Entry(self.state, [], [], self.clock.loop.time(), [reply]))
        else:
            self._outbox[-1].replies.append(reply)

    # --- one step ---------------------------------------------------------------

    def _step(self, action: Action | None, client_id: str | None = None
              ) -> tuple[IllegalAction | None, Entry | None]:
        """Fire what is due, then apply `action` (None: a timer woke us).
        Returns the engine's refusal of `action`, if any, and the step
        queued for writing, if anything happened."""
        started = self.clock.loop.time()
        now = self.clock.now()
        state, lines, events, fired = self.state, [], [], []
        # A deadline due at the very moment of an action fires after it, as
        # `omerta replay` plays a line with that `t`.
        while not state.over and (due := state.next_deadline) is not None and (
                due < now or (due == now and action is None)):
            state, new = apply(state, _TIMEOUT, due)
            lines.append(Pending(record_line(None, due)))
            events += new
            fired.append(due)
        refusal = None
        if action is not None:
            try:
                state, new = apply(state, action, now)
                lines.append(Pending(record_line(action, now), client_id))
                events += new
            except IllegalAction as e:
                refusal = e
        if not lines:
            if action is None:
                self._arm()   # woke a hair before the deadline: wait for it again
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
            self.bots.schedule(self.state, self.clock,
                               lambda seat: self._inbox.put_nowait(BotTurn(seat)))

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
                    votes += [(count - 1, e.to_dict()) for e in entry.events
                              if e.event == "tech_record"]
                if lines:
                    last = batch[-1].state
                    public: list[dict[str, Any]] = []
                    if last.over:   # the whole game's public events, for the forfeits
                        public = self.fanout.streams.public() + [
                            e.to_dict() for entry in batch for e in entry.events
                            if e.audience.includes(None)]
                    try:
                        await self.recorder.write(lines, last, public, votes)
                    except Exception as e:
                        self._drop(e)
                        return
                for _ in batch:
                    self._send(self._outbox.popleft())
        finally:
            self._writing = None

    def _send(self, entry: Entry) -> None:
        if entry.lines:
            self.stored = entry.state
            if self.media is not None:   # the gate changes with the phase, before anyone hears of it
                self.media.set_gate(gate(entry.state))
            self.fanout.publish(entry.state, entry.events)
            self.stats.steps.append(self.clock.loop.time() - entry.started)
        for reply in entry.replies:
            reply.peer.send(reply.text)
            if reply.key is not None:
                self._answers[reply.key] = reply.text
                self._unstored.pop(reply.key, None)
        if entry.lines and entry.state.over:
            self._inbox.put_nowait(_STOP)

    def _drop(self, error: Exception) -> None:
        """A write failed: nothing queued happened. Back to the stored state;
        deadlines that passed fire again on the retry."""
        log.error("table %d: cannot write its record (%s); retrying in %s s",
                  self.table_id, error, RETRY_SECONDS, exc_info=not isinstance(error, OSError))
        for entry in self._outbox:
            for reply in entry.replies:
                reply.peer.send(reply.text if reply.ack_id is None
                                else wire.error(NOT_RECORDED, reply.ack_id))
        self._outbox.clear()
        self._unstored.clear()
        self.state = self.stored
        self._ready()
        self._arm(self.clock.loop.time() + RETRY_SECONDS)
