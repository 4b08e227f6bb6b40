"""The media plane: what the table actor calls to connect players' media and
to apply the gate. The actor knows nothing of SDP, RTP or which backend runs.

Signalling rides the table WebSocket as `{"type": "media", ...}` messages that
the actor hands to `signal` untouched (its answer, if any, goes back to the
same client as a `media` message). Every message names the client connection
it is about (`pc`) and what it is (`op`):

    client -> server  {"op": "attach"}
    server -> client  {"op": "description", "pc": "main",
                       "description": {"type": "offer", "sdp": "v=0..."},
                       "slots": [{"mid": "0", "seat": 4, "kind": "audio", "dir": "send"},
                                 {"mid": "2", "seat": 1, "kind": "audio", "dir": "recv"}, ...]}
    client -> server  {"op": "description", "pc": "main",
                       "description": {"type": "answer", "sdp": "v=0..."}}
    client -> server  {"op": "candidate", "pc": "main",
                       "candidate": {"candidate": "candidate:...", "sdpMid": "0",
                                     "sdpMLineIndex": 0}}      (trickled; "" ends them)
    client -> server  {"op": "detach"}
    server -> client  {"op": "error", "error": "..."}          (the message was refused)

`description` and `candidate` are what a browser's RTCPeerConnection takes and
gives. `slots` says, from the client's side, which m-line carries its own mic
or camera ("send") and which one carries which seat's ("recv").

A backend may open more than one connection per seat and may ask the client
to offer (a Janus VideoRoom publisher must: `{"op": "offer-request", "pc": ...}`)
in its answer to a message (docs/media.md). The in-process SFU uses one
server-offered connection ("main") and never renegotiates. This is the one
`MediaPlane`: the table actor (omerta/runtime) is typed against it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from omerta.table.views import Gate

Signal = dict[str, Any]


class MediaError(Exception):
    """A signal the plane cannot use (unknown seat or connection, bad SDP)."""


def trickled(message: Signal) -> dict[str, Any]:
    """A `candidate` message's candidate, checked for shape: an object whose
    `candidate` and `sdpMid` are strings (or null: the end of candidates)."""
    candidate = message.get("candidate")
    if not isinstance(candidate, dict):
        raise MediaError("expected {'candidate': {'candidate': ..., 'sdpMid': ...}}")
    if not isinstance(candidate.get("candidate"), str | None) or not isinstance(
        candidate.get("sdpMid"), str | None
    ):
        raise MediaError("a candidate's 'candidate' and 'sdpMid' are strings")
    return candidate


class MediaPlane(ABC):
    """One table's media. Seats are fixed when the plane is made; the gate
    starts closed."""

    async def signal(
        self, seat: int | None, message: Signal, viewer: int | None = None
    ) -> Signal | None:
        """One signalling message from `seat`'s client (seat None: from
        spectator connection `viewer`, a number the table socket gives each
        one); returns the answer to send back, if any. Never raises for a bad
        message: says why instead."""
        try:
            if seat is None:
                if viewer is None:
                    raise MediaError("spectators have no media connection")
                return await self.spectate(viewer, message)
            op = message.get("op")
            if op == "attach":
                return await self.attach(seat)
            if op == "description":
                return await self.answer(seat, message)
            if op == "candidate":
                await self.add_candidate(seat, message)
                return None
            if op == "detach":
                await self.detach(seat)
                return None
            raise MediaError(f"unknown media op {op!r}: attach, description, candidate or detach")
        except MediaError as e:
            return {"op": "error", "error": str(e)}

    @abstractmethod
    async def attach(self, seat: int) -> Signal:
        """Connect `seat` (again: a reconnect replaces the old connection).
        Returns the first signal for that seat's client."""

    @abstractmethod
    async def answer(self, seat: int, message: Signal) -> Signal | None:
        """A `description` from `seat`'s client (its answer; or its offer where
        the backend asked for one). Returns a signal to send back, if any."""

    @abstractmethod
    async def add_candidate(self, seat: int, message: Signal) -> None:
        """A trickled ICE candidate from `seat`'s client."""

    @abstractmethod
    async def detach(self, seat: int) -> None:
        """Drop `seat`'s connections: it neither sends nor receives until attached again."""

    async def spectate(self, viewer: int, message: Signal) -> Signal | None:
        """A signalling message from spectator connection `viewer`, which
        only receives: what the gate opens to spectators (`Gate.public`, G3,
        G5). A plane that has no spectator connections refuses."""
        raise MediaError("spectators have no media connection on this server")

    def watch(self, tell: Callable[[Signal], None]) -> None:
        """`tell(message)` sends every client of the table the same message no
        client asked for: each seat's media health, as it changes
        (docs/media.md). A plane that has none ignores it."""
        return None

    def deliver(self, send: Callable[[int, Signal], None]) -> None:
        """`send(seat, message)` sends one seat's clients a signal none of
        their messages asked for (Janus: a subscription's offer when a seat
        publishes, a new connection when the table's Janus died). A plane
        that never needs to, as the in-process SFU, ignores it."""
        return None

    @abstractmethod
    def set_gate(self, gate: Gate) -> None:
        """Apply `gate` now, in the same step as the phase that produced it:
        from the moment this returns no packet goes through a closed pair."""

    @abstractmethod
    async def close(self) -> None:
        """Drop every connection; the plane is unusable afterwards."""
