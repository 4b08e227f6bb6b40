"""A client of Janus's WebSocket API (the `janus-protocol`), as much of it
as the VideoRoom plane uses: one connection per Janus server, sessions,
plugin handles, requests matched to their answers by transaction, trickled
candidates and keepalives. Every request carries the deployment's API
secret: Janus refuses anything without it (docs/deploy.md).

A request a plugin answers at once comes back as `success`; one it handles
asynchronously is acknowledged (`ack`) and answered later by an `event` with
the same transaction. `Handle.message` waits for whichever is the answer.
When the connection drops (Janus died, the network failed) every waiting
request fails with `JanusGone` and `Janus.gone` is set."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any

import aiohttp

log = logging.getLogger(__name__)

PROTOCOL = "janus-protocol"
VIDEOROOM = "janus.plugin.videoroom"
#: Seconds between keepalives: well inside Janus's session_timeout (60 s by default).
KEEPALIVE = 15.0
#: Seconds a request may take before the server counts as unhealthy.
TIMEOUT = 5.0

Json = dict[str, Any]


class JanusError(Exception):
    """Janus or its plugin refused a request."""


class JanusGone(JanusError):
    """The connection to Janus is lost: it stopped, or cannot be reached."""


class Janus:
    """One WebSocket connection to one Janus server."""

    def __init__(self, url: str, api_secret: str | None = None, timeout: float = TIMEOUT):
        self.url = url
        self.api_secret = api_secret
        self.timeout = timeout
        self.gone = asyncio.Event()
        self._http: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._pending: dict[str, asyncio.Future[Json]] = {}
        self._later: set[str] = set()  # transactions whose ack is not the answer
        self._handlers: dict[int, Callable[[Json], None]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count()
        self._closing = False

    async def connect(self) -> None:
        self._http = aiohttp.ClientSession()
        try:
            self._ws = await asyncio.wait_for(
                self._http.ws_connect(
                    self.url, protocols=(PROTOCOL,), timeout=aiohttp.ClientWSTimeout(ws_close=1.0)
                ),
                self.timeout,
            )
        except (aiohttp.ClientError, OSError, TimeoutError) as e:
            await self._http.close()
            self.gone.set()
            raise JanusGone(f"cannot reach Janus at {self.url}: {e}") from e
        self._reader = asyncio.create_task(self._read(), name=f"janus {self.url}")

    async def close(self) -> None:
        self._closing = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._ws is not None:
            await self._ws.close()
        if self._http is not None:
            await self._http.close()
        self._lost("closed")

    async def request(self, message: Json, answered_later: bool = False) -> Json:
        """Send a core API request; its answer: `success` (or `ack`), or with
        `answered_later` the plugin's `event` that follows the `ack`. Raises
        JanusError for an `error`."""
        if self.gone.is_set() or self._ws is None:
            raise JanusGone(f"Janus at {self.url} is gone")
        transaction = f"t{next(self._ids)}"
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self._pending[transaction] = future
        if answered_later:
            self._later.add(transaction)
        body = {**message, "transaction": transaction}
        if self.api_secret is not None:
            body["apisecret"] = self.api_secret
        try:
            await self._ws.send_str(json.dumps(body))
            answer = await asyncio.wait_for(future, self.timeout)
        except (ConnectionError, aiohttp.ClientError) as e:
            self._lost(str(e))
            raise JanusGone(f"Janus at {self.url} is gone: {e}") from e
        except TimeoutError as e:
            raise JanusError(f"Janus at {self.url} did not answer {message.get('janus')}") from e
        finally:
            self._pending.pop(transaction, None)
            self._later.discard(transaction)
        if answer.get("janus") == "error":
            error = answer.get("error", {})
            raise JanusError(f"Janus refused {message.get('janus')}: {error.get('reason')}")
        return answer

    async def session(self) -> Session:
        answer = await self.request({"janus": "create"})
        session = Session(self, int(answer["data"]["id"]))
        session.start()
        return session

    async def info(self) -> Json:
        return await self.request({"janus": "info"})

    def on_event(self, handle_id: int, handler: Callable[[Json], None] | None) -> None:
        """`handler(message)` gets what Janus sends about a handle on its own:
        `webrtcup`, `media`, `hangup`, events without a transaction."""
        if handler is None:
            self._handlers.pop(handle_id, None)
        else:
            self._handlers[handle_id] = handler

    async def _read(self) -> None:
        assert self._ws is not None
        reason = "the connection closed"
        try:
            async for frame in self._ws:
                if frame.type != aiohttp.WSMsgType.TEXT:
                    continue
                self._dispatch(json.loads(frame.data))
        except (ConnectionError, aiohttp.ClientError, ValueError) as e:
            reason = str(e)
        finally:
            self._lost(reason)

    def _dispatch(self, message: Json) -> None:
        transaction = message.get("transaction")
        future = self._pending.get(transaction) if isinstance(transaction, str) else None
        if future is not None and not future.done():
            if message.get("janus") != "ack" or transaction not in self._later:
                future.set_result(message)
            return
        handler = self._handlers.get(message.get("sender", 0))
        if handler is not None:
            handler(message)

    def _lost(self, reason: str) -> None:
        if not self.gone.is_set() and not self._closing:
            log.warning("Janus at %s: %s", self.url, reason)
        self.gone.set()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(JanusGone(f"Janus at {self.url} is gone: {reason}"))


class Session:
    """A Janus session, kept alive until destroyed."""

    def __init__(self, janus: Janus, session_id: int):
        self.janus = janus
        self.id = session_id
        self._keepalive: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._keepalive = asyncio.create_task(self._keep(), name=f"janus session {self.id}")

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(KEEPALIVE)
            try:
                await self.janus.request({"janus": "keepalive", "session_id": self.id})
            except JanusError:
                return

    async def attach(self, plugin: str = VIDEOROOM) -> Handle:
        answer = await self.janus.request(
            {"janus": "attach", "session_id": self.id, "plugin": plugin}
        )
        return Handle(self, int(answer["data"]["id"]))

    async def destroy(self) -> None:
        if self._keepalive is not None:
            self._keepalive.cancel()
        with contextlib.suppress(JanusError):
            await self.janus.request({"janus": "destroy", "session_id": self.id})


class Handle:
    """A handle on the VideoRoom plugin: one publisher, one subscriber, or
    the plane's own for room administration."""

    def __init__(self, session: Session, handle_id: int):
        self.session = session
        self.id = handle_id

    @property
    def janus(self) -> Janus:
        return self.session.janus

    async def message(
        self, body: Json, jsep: Json | None = None, answered_later: bool = False
    ) -> tuple[Json, Json | None]:
        """Send the plugin `body` (and `jsep`); its answer's data and JSEP.
        `answered_later`: the plugin acknowledges it and answers with an event."""
        request: Json = {
            "janus": "message",
            "session_id": self.session.id,
            "handle_id": self.id,
            "body": body,
        }
        if jsep is not None:
            request["jsep"] = jsep
        answer = await self.janus.request(request, answered_later)
        data = answer.get("plugindata", {}).get("data", {})
        if "error" in data:
            raise JanusError(f"VideoRoom refused {body.get('request')}: {data['error']}")
        return data, answer.get("jsep")

    async def trickle(self, candidate: Json | None) -> None:
        """A client's ICE candidate (None: it has no more)."""
        await self.janus.request(
            {
                "janus": "trickle",
                "session_id": self.session.id,
                "handle_id": self.id,
                **({"candidate": candidate} if candidate else {"candidate": {"completed": True}}),
            }
        )

    async def detach(self) -> None:
        self.janus.on_event(self.id, None)
        with contextlib.suppress(JanusError):
            await self.janus.request(
                {"janus": "detach", "session_id": self.session.id, "handle_id": self.id}
            )
