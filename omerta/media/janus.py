"""A media plane on Janus VideoRoom: the gate enforced by a C media server
(or several), so that media scales by adding Janus machines.

One room per table, created with a secret and a PIN on the least-loaded
healthy Janus of the deployment (`JanusPool`); one publisher per seat (its
id is the seat) and one multistream subscription per seat. Clients never
talk to Janus's API: the plane holds every session and handle and relays
the JSEP through `signal` and the plane's pushed messages (docs/media.md):

    client -> server  {"op": "attach"}
    server -> client  {"op": "offer-request", "pc": "publish-1", "slots": [...send...], "iceServers": [...]}
    client -> server  {"op": "description", "pc": "publish-1", "description": {"type": "offer", ...}}
    server -> client  {"op": "description", "pc": "publish-1", "description": {"type": "answer", ...}}
    server => client  {"op": "description", "pc": "subscribe-1", "description": {"type": "offer", ...},
                       "slots": [...recv...]}                      (pushed, again when seats publish)
    client -> server  {"op": "description", "pc": "subscribe-1", "description": {"type": "answer", ...}}
    server => client  {"op": "close", "pc": "publish-1"}            (pushed: its Janus died; a new
                                                                     offer-request follows)

The gate (`set_gate`, synchronous) is queued as an ordered difference to
what Janus applies now: first every closing (a publisher stream that reaches
nobody is muted at ingress with `moderate`; a subscriber's stream of a
source it may not get stops with `configure` `send: false`), then every
opening, then a keyframe request to each camera that opened to someone. A
stream is never joined to a subscription before the gate is applied to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from omerta.table.views import CLOSED, KINDS, Gate

from .congestion import INTERVAL
from .ice import IceSettings
from .janus_api import Handle, Janus, JanusError, JanusGone, Json, Session
from .plane import MediaError, MediaPlane, Signal, trickled
from .status import Health

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Room ids are random (several server processes share a Janus).
ROOM_IDS = 2**52


class JanusSettingError(ValueError):
    """A deployment setting for Janus that cannot work."""


@dataclass(frozen=True)
class JanusSettings:
    """Where the deployment's Janus servers are and how to be let in
    (docs/deploy.md, "Janus")."""

    urls: tuple[str, ...]
    api_secret: str | None = None
    admin_key: str | None = None

    @classmethod
    def from_env(cls, urls: Iterable[str] = ()) -> JanusSettings:
        """`urls` (`--janus-url`, repeated) or OMERTA_JANUS_URLS (comma
        separated); OMERTA_JANUS_API_SECRET and OMERTA_JANUS_ADMIN_KEY."""
        chosen = tuple(urls) or tuple(
            u.strip() for u in os.environ.get("OMERTA_JANUS_URLS", "").split(",") if u.strip()
        )
        if not chosen:
            raise JanusSettingError(
                "--media janus needs at least one --janus-url (or OMERTA_JANUS_URLS)"
            )
        for url in chosen:
            if not url.startswith(("ws://", "wss://")):
                raise JanusSettingError(f"{url!r} is not a Janus WebSocket URL (ws:// or wss://)")
        return cls(
            chosen,
            os.environ.get("OMERTA_JANUS_API_SECRET") or None,
            os.environ.get("OMERTA_JANUS_ADMIN_KEY") or None,
        )


class JanusPool:
    """The deployment's Janus servers as one server process sees them: a
    connection to each, and where the next table goes."""

    def __init__(self, settings: JanusSettings):
        self.settings = settings
        self._conns: dict[str, Janus] = {}
        self._admin: dict[str, Handle] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        #: held from counting the rooms to creating one, so that tables
        #: starting together are spread, not all put on the same Janus
        self.placing = asyncio.Lock()

    async def admin(self, url: str) -> Handle:
        """A handle for room administration on `url`, connecting if needed."""
        async with self._locks.setdefault(url, asyncio.Lock()):
            janus = self._conns.get(url)
            if janus is None or janus.gone.is_set():
                if janus is not None:
                    await janus.close()
                janus = Janus(url, self.settings.api_secret)
                await janus.connect()
                self._conns[url] = janus
                self._admin[url] = await (await janus.session()).attach()
            return self._admin[url]

    async def load(self, url: str) -> int:
        """How many rooms `url` holds (every server process's: Janus lists
        private rooms to the admin key). Raises JanusError when unhealthy."""
        handle = await self.admin(url)
        data, _ = await handle.message({"request": "list", "admin_key": self.settings.admin_key})
        return len(data.get("list", []))

    async def place(self, avoid: Iterable[str] = ()) -> Handle:
        """The admin handle of the least-loaded healthy Janus (not in `avoid`)."""
        avoid = set(avoid)
        candidates = [u for u in self.settings.urls if u not in avoid]
        loads = await asyncio.gather(*(self.load(u) for u in candidates), return_exceptions=True)
        healthy = [(load, u) for load, u in zip(loads, candidates) if isinstance(load, int)]
        for load, u in zip(loads, candidates):
            if not isinstance(load, int):
                log.warning("Janus at %s is not healthy: %s", u, load)
        if not healthy:
            raise MediaError("no media server is reachable now")
        return self._admin[min(healthy)[1]]

    async def close(self) -> None:
        for janus in self._conns.values():
            await janus.close()
        self._conns.clear()


@dataclass
class _Publisher:
    handle: Handle
    mids: dict[str, str]  # kind -> the publisher's mid for it
    muted: dict[str, bool] = field(default_factory=dict)  # kind -> as applied on Janus
    live: bool = False  # its connection is up: it can be subscribed to


@dataclass
class _Subscriber:
    handle: Handle
    streams: dict[str, tuple[int, str]] = field(default_factory=dict)  # mid -> (source, kind)
    send: dict[str, bool] = field(default_factory=dict)  # mid -> as applied on Janus
    offered: bool = False  # an offer is out: its answer comes before any update
    stale: bool = False  # a source published meanwhile


def _media_sections(sdp: str) -> list[tuple[str, str | None]]:
    """Each m-line's kind and mid."""
    out = []
    for section in sdp.split("\nm=")[1:]:
        mid = re.search(r"^a=mid:(\S+)", section, re.M)
        out.append((section.split(" ", 1)[0], mid.group(1) if mid else None))
    return out


class JanusPlane(MediaPlane):
    def __init__(
        self,
        seats: Iterable[int],
        pool: JanusPool,
        ice: IceSettings | None = None,
        table: int | None = None,
    ):
        """`table`: the table's id, which names its room; with the admin key
        set, the room's secret and PIN are derived from both, so that a
        server taking the table over can replace a room its last server
        left behind. Without, the room is random."""
        self.ice = IceSettings.from_env() if ice is None else ice
        self.seats = tuple(seats)
        self.pool = pool
        self.generation = 0
        self.url: str | None = None
        self.gate = CLOSED  # as applied on Janus
        self.attached: set[int] = set()
        self._push: Callable[[int, Signal], None] | None = None
        self._lock = asyncio.Lock()  # every request that changes the room, in order
        self._gates: asyncio.Queue[Gate] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._session: Session | None = None
        self._admin: Handle | None = None
        key = pool.settings.admin_key
        if table is not None and key:
            self._room = table
            self._secret, self._pin = (
                hmac.new(
                    key.encode(), f"omerta table {table} {what}".encode(), "sha256"
                ).hexdigest()
                for what in ("secret", "pin")
            )
        else:
            self._room = secrets.randbelow(ROOM_IDS) + 1
            self._secret = secrets.token_urlsafe(24)
            self._pin = secrets.token_urlsafe(24)
        self.pubs: dict[int, _Publisher] = {}
        self.subs: dict[int, _Subscriber] = {}
        self._closed = False
        self._tasks: set[asyncio.Future[None]] = set()
        self.health = Health(self.seats)
        self._links: dict[int, str] = {}  # seat -> its publisher connection's state
        self._receiving: dict[tuple[int, str], bool] = {}  # Janus's `media` events
        self._reports: asyncio.Task[None] | None = None

    # --- MediaPlane -------------------------------------------------------
    def deliver(self, send: Callable[[int, Signal], None]) -> None:
        self._push = send

    def watch(self, tell: Callable[[Signal], None]) -> None:
        """`tell(status)`: each seat's media health, as Janus reports it."""
        self.health.tell = tell

    def set_gate(self, gate: Gate) -> None:
        self._gates.put_nowait(gate)
        if self._worker is None:
            self._worker = asyncio.create_task(self._apply_gates(), name="janus gate")

    async def attach(self, seat: int) -> Signal:
        if seat not in self.seats:
            raise MediaError(f"seat {seat} is not at this table")
        if self._reports is None:  # from the first attach (it needs the running loop)
            self._reports = asyncio.create_task(self._report(), name="janus media reports")
        async with self._lock:
            await self._guarded(seat, self._room_up())
            await self._drop(seat)
            self.attached.add(seat)
            self._links[seat] = "new"
        return self._offer_request(seat)

    async def answer(self, seat: int, message: Signal) -> Signal | None:
        description = message.get("description")
        if not isinstance(description, dict) or not isinstance(description.get("sdp"), str):
            raise MediaError("expected {'description': {'type': ..., 'sdp': ...}}")
        if seat not in self.attached:
            raise MediaError(f"seat {seat} has no media connection: attach first")
        pc, kind = message.get("pc"), description.get("type")
        sdp = self.ice.usable_answer(description["sdp"])
        async with self._lock:
            if pc == self._pc("publish") and kind == "offer":
                return await self._guarded(seat, self._publish(seat, sdp))
            if pc == self._pc("subscribe") and kind == "answer":
                return await self._guarded(seat, self._start(seat, sdp))
        raise MediaError(
            f"expected an offer on {self._pc('publish')!r} or an answer on"
            f" {self._pc('subscribe')!r}, got a {kind!r} on {pc!r}"
        )

    async def add_candidate(self, seat: int, message: Signal) -> None:
        candidate = trickled(message)
        line = candidate.get("candidate")
        if line and self.ice.refuses(line):
            return  # an address Janus may not be sent to check: left out
        pc = message.get("pc")
        holder: _Publisher | _Subscriber | None = None
        if pc == self._pc("publish"):
            holder = self.pubs.get(seat)
        elif pc == self._pc("subscribe"):
            holder = self.subs.get(seat)
        if holder is None:
            raise MediaError(f"seat {seat} has no connection {pc!r}")
        clean = {k: candidate.get(k) for k in ("candidate", "sdpMid", "sdpMLineIndex")}
        with contextlib.suppress(JanusError):  # a lost Janus is handled by the failover
            await holder.handle.trickle(clean if line else None)

    async def detach(self, seat: int) -> None:
        async with self._lock:
            self.attached.discard(seat)
            await self._drop(seat)

    async def close(self) -> None:
        self._closed = True
        for task in (self._worker, self._watcher, self._reports):
            if task is not None:
                task.cancel()
        async with self._lock:
            if self._admin is not None:
                with contextlib.suppress(JanusError):
                    await self._admin.message(
                        {"request": "destroy", "room": self._room, "secret": self._secret}
                    )
            if self._session is not None:
                await self._session.destroy()
            self.pubs.clear()
            self.subs.clear()

    # --- the room -----------------------------------------------------------
    def _pc(self, role: str) -> str:
        return f"{role}-{self.generation}"

    def _offer_request(self, seat: int) -> Signal:
        return {
            "op": "offer-request",
            "pc": self._pc("publish"),
            "slots": [{"seat": seat, "kind": kind, "dir": "send"} for kind in KINDS],
            "iceServers": self.ice.ice_servers(f"seat{seat}", time.time()),
        }

    async def _room_up(self, avoid: Iterable[str] = ()) -> None:
        """Place the table's room on a Janus, once (again after a failover)."""
        if self._session is not None:
            return
        async with self.pool.placing:
            await self._create_room(await self.pool.place(avoid))

    async def _create_room(self, admin: Handle) -> None:
        janus = admin.janus
        session = await janus.session()
        try:
            handle = await session.attach()
            try:
                await handle.message(self._room_settings())
            except JanusError as e:
                if "already exists" not in str(e):
                    raise
                # left by a server that had this table before: ours to replace
                await handle.message(
                    {"request": "destroy", "room": self._room, "secret": self._secret}
                )
                await handle.message(self._room_settings())
        except JanusError:
            await session.destroy()
            raise
        self._session, self._admin = session, handle
        self.url = janus.url
        self.generation += 1
        self._watcher = asyncio.create_task(self._watch(janus), name="janus watch")

    def _room_settings(self) -> Json:
        return {
            "request": "create",
            "room": self._room,
            "admin_key": self.pool.settings.admin_key,
            "secret": self._secret,
            "pin": self._pin,
            "is_private": True,
            "permanent": False,
            "publishers": len(self.seats),
            "audiocodec": "opus",
            "videocodec": "vp8",
            "bitrate": self.ice.max_video_kbps * 1000,
            "notify_joining": False,
            "lock_record": True,
        }

    async def _watch(self, janus: Janus) -> None:
        await janus.gone.wait()
        if not self._closed:
            await self._fail_over(janus.url)

    async def _fail_over(self, dead: str) -> None:
        """The room's Janus is gone: make the room anew on another and have
        every attached client connect to it."""
        async with self._lock:
            old = [self._pc("publish"), self._pc("subscribe")]
            self._session = None
            self.pubs.clear()
            self.subs.clear()
            self._links = {seat: "new" for seat in self.attached}
            self._receiving.clear()
            try:
                await self._room_up(avoid=[dead])
            except (MediaError, JanusError) as e:
                log.error("table media lost with Janus at %s: %s", dead, e)
                return
            log.warning("table media moved from %s to %s", dead, self.url)
            for seat in sorted(self.attached):
                for pc in old:
                    self._tell(seat, {"op": "close", "pc": pc})
                self._tell(seat, self._offer_request(seat))

    def _tell(self, seat: int, message: Signal) -> None:
        if self._push is not None:
            self._push(seat, message)

    async def _guarded(self, seat: int, work: Awaitable[T]) -> T:
        """`work`'s result; Janus's failures as refusals of `seat`'s signal."""
        try:
            return await work
        except JanusGone as e:
            raise MediaError("the media server is gone; media reconnects") from e
        except JanusError as e:
            raise MediaError(f"the media server refused seat {seat}'s signal: {e}") from e

    async def _drop(self, seat: int) -> None:
        pub, sub = self.pubs.pop(seat, None), self.subs.pop(seat, None)
        if pub is not None:  # its feed ends: the others subscribe to its next one
            for other in self.subs.values():
                gone = {mid for mid, (src, _) in other.streams.items() if src == seat}
                other.streams = {m: v for m, v in other.streams.items() if m not in gone}
                other.send = {m: on for m, on in other.send.items() if m not in gone}
        self._links.pop(seat, None)
        self._receiving = {k: on for k, on in self._receiving.items() if k[0] != seat}
        for holder in (pub, sub):
            if holder is not None:
                await holder.handle.detach()

    # --- publishing and subscribing (under the lock) --------------------------
    async def _publish(self, seat: int, sdp: str) -> Signal:
        sections = _media_sections(sdp)
        kinds = [kind for kind, _ in sections]
        if sorted(kinds) != sorted(set(kinds)) or not set(kinds) <= set(KINDS):
            raise MediaError("a publisher offers at most one audio and one video m-line")
        if any(mid is None for _, mid in sections):
            raise MediaError("every m-line of the offer needs a mid")
        assert self._session is not None
        if seat in self.pubs:
            await self._drop(seat)
        self._links[seat] = "connecting"
        handle = await self._session.attach()
        pub = _Publisher(handle, {kind: mid for kind, mid in sections if mid is not None})
        self.pubs[seat] = pub
        data, jsep = await handle.message(
            {
                "request": "joinandconfigure",
                "ptype": "publisher",
                "room": self._room,
                "pin": self._pin,
                "id": seat,
                "display": f"seat {seat}",
            },
            {"type": "offer", "sdp": sdp},
            answered_later=True,
        )
        if jsep is None:
            raise JanusError(f"no answer to the publisher's offer: {data}")
        # Janus has the stream but the client has not its answer yet, so no
        # packet can flow before the gate holds at ingress.
        await self._moderate(seat, pub, self.gate, closing=None)
        # Its feed can be subscribed to once its connection is up.
        handle.janus.on_event(handle.id, lambda event: self._on_publisher(seat, pub, event))
        await self._subscribe(seat)
        return {"op": "description", "pc": self._pc("publish"), "description": jsep}

    async def _report(self) -> None:
        """The seats' media health to the table, twice a second."""
        while True:
            await asyncio.sleep(INTERVAL)
            now = time.monotonic()
            self.health.update(
                now,
                {seat: state for seat, state in self._links.items() if seat in self.attached},
                {key: now for key, on in self._receiving.items() if on},
            )

    def _on_publisher(self, seat: int, pub: _Publisher, event: Json) -> None:
        if self.pubs.get(seat) is not pub:
            return
        kind = event.get("janus")
        if kind == "media" and event.get("type") in KINDS:
            self._receiving[(seat, event["type"])] = bool(event.get("receiving"))
        elif kind == "hangup":
            self._links[seat] = "disconnected"
            self._receiving = {k: on for k, on in self._receiving.items() if k[0] != seat}
        if kind == "webrtcup":
            self._links[seat] = "connected"
            task = asyncio.ensure_future(self._published(seat, pub))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _published(self, seat: int, pub: _Publisher) -> None:
        """`seat`'s feed is live: every other attached seat subscribes to it."""
        async with self._lock:
            if self.pubs.get(seat) is not pub:
                return
            pub.live = True
            for other in sorted(self.attached - {seat}):
                try:
                    await self._subscribe(other)
                except JanusGone:
                    return
                except JanusError as e:
                    log.warning("seat %s cannot subscribe to seat %s: %s", other, seat, e)

    async def _subscribe(self, seat: int) -> None:
        """Subscribe `seat` to every published source it lacks; push the offer."""
        sub = self.subs.get(seat)
        have = {src for src, _ in sub.streams.values()} if sub else set()
        wanted: list[Json] = [
            {"feed": src, "mid": mid}
            for src, pub in sorted(self.pubs.items())
            if src != seat and src not in have and pub.live
            for mid in pub.mids.values()
        ]
        if not wanted:
            return
        if sub is not None and sub.offered:
            sub.stale = True  # updated once the client answers the offer it has
            return
        if sub is None:
            assert self._session is not None
            sub = _Subscriber(await self._session.attach())
            self.subs[seat] = sub
            request = {
                "request": "join",
                "ptype": "subscriber",
                "room": self._room,
                "pin": self._pin,
                "autoupdate": False,
                "use_msid": True,
                "streams": wanted,
            }
            data, jsep = await sub.handle.message(request, answered_later=True)
            self._streams(sub, data)
            await self._configure(seat, sub, self.gate)
        else:
            # The connection may be up: nothing of the new sources may flow
            # to it before its sends are set, so they are held at ingress.
            sources = {int(w["feed"]) for w in wanted}
            await self._hold(sources, True)
            try:
                data, jsep = await sub.handle.message(
                    {"request": "update", "subscribe": wanted}, answered_later=True
                )
                self._streams(sub, data)
                await self._configure(seat, sub, self.gate)
            finally:
                await self._hold(sources, False)
        if jsep is None:
            return
        sub.offered = True
        self._tell(
            seat,
            {
                "op": "description",
                "pc": self._pc("subscribe"),
                "description": jsep,
                "slots": [
                    {"mid": mid, "seat": src, "kind": kind, "dir": "recv"}
                    for mid, (src, kind) in sub.streams.items()
                ],
                "iceServers": self.ice.ice_servers(f"seat{seat}", time.time()),
            },
        )

    @staticmethod
    def _streams(sub: _Subscriber, data: Json) -> None:
        """The subscription's streams as Janus lists them (a source gone is inactive)."""
        streams = {
            str(s["mid"]): (int(s["feed_id"]), str(s["type"]))
            for s in data.get("streams", [])
            if s.get("active", True) and s.get("type") in KINDS and "feed_id" in s
        }
        sub.send = {
            mid: on for mid, on in sub.send.items() if streams.get(mid) == sub.streams.get(mid)
        }
        sub.streams = streams

    async def _start(self, seat: int, sdp: str) -> None:
        sub = self.subs.get(seat)
        if sub is None or not sub.offered:
            raise MediaError(f"seat {seat} has no subscription offer to answer")
        await sub.handle.message(
            {"request": "start", "room": self._room},
            {"type": "answer", "sdp": sdp},
            answered_later=True,
        )
        sub.offered = False
        if sub.stale:
            sub.stale = False
            await self._subscribe(seat)
        return None

    async def _hold(self, sources: set[int], hold: bool) -> None:
        """Mute `sources` at ingress (or give them back to the gate)."""
        for src in sources:
            pub = self.pubs.get(src)
            if pub is not None:
                await self._moderate(src, pub, CLOSED if hold else self.gate, closing=None)

    # --- the gate -------------------------------------------------------------
    async def settled(self) -> None:
        """Until every gate set so far is applied on Janus (tests, benchmark)."""
        await self._gates.join()

    async def _apply_gates(self) -> None:
        while True:
            gate = await self._gates.get()
            async with self._lock:
                try:
                    await self._apply(gate)
                except JanusGone:
                    self.gate = gate  # the failover's new room starts from it
                except Exception:  # a refusal or a bug: the next gate's diff repairs it
                    log.exception("gate change on Janus")
                    self.gate = gate
                finally:
                    self._gates.task_done()

    async def _apply(self, gate: Gate) -> None:
        """Closings first, then openings, then keyframe requests."""
        opened: set[int] = set()
        for closing in (True, False):
            results = await asyncio.gather(
                *(self._moderate(s, pub, gate, closing) for s, pub in self.pubs.items()),
                *(self._configure(r, sub, gate, closing) for r, sub in self.subs.items()),
            )
            for cameras in results:
                opened |= cameras or set()
        self.gate = gate
        await asyncio.gather(*(self._keyframe(src) for src in opened if src in self.pubs))

    async def _moderate(
        self, seat: int, pub: _Publisher, gate: Gate, closing: bool | None
    ) -> set[int]:
        for kind, mid in pub.mids.items():
            mute = not any(gate.allows(seat, r, kind) for r in self.seats if r != seat)
            if pub.muted.get(kind) == mute or (closing is not None and closing != mute):
                continue
            assert self._admin is not None
            await self._admin.message(
                {
                    "request": "moderate",
                    "room": self._room,
                    "secret": self._secret,
                    "id": seat,
                    "mid": mid,
                    "mute": mute,
                }
            )
            pub.muted[kind] = mute
        return set()

    async def _configure(
        self, seat: int, sub: _Subscriber, gate: Gate, closing: bool | None = None
    ) -> set[int]:
        """Set `seat`'s subscription's sends to `gate`; the cameras it opened."""
        changes = {}
        for mid, (src, kind) in sub.streams.items():
            send = gate.allows(src, seat, kind)
            if sub.send.get(mid) != send and (closing is None or closing != send):
                changes[mid] = send
        if changes:
            await sub.handle.message(
                {
                    "request": "configure",
                    "streams": [{"mid": mid, "send": send} for mid, send in changes.items()],
                },
                answered_later=True,
            )
            sub.send.update(changes)
        return {
            sub.streams[mid][0]
            for mid, on in changes.items()
            if on and sub.streams[mid][1] == "video"
        }

    async def _keyframe(self, seat: int) -> None:
        pub = self.pubs[seat]
        mid = pub.mids.get("video")
        if mid is not None:
            await pub.handle.message(
                {"request": "configure", "streams": [{"mid": mid, "keyframe": True}]},
                answered_later=True,
            )


def janus_media(settings: JanusSettings) -> Callable[[int, int], MediaPlane]:
    """Each table's media plane on the deployment's Janus servers
    (`omerta serve --media janus`): one pool of connections for all tables."""
    pool = JanusPool(settings)
    return lambda table_id, seats: JanusPlane(range(1, seats + 1), pool, table=table_id)
