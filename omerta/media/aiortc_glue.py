"""Every use of aiortc's (and aioice's) internals, and nothing else.

Written against aiortc 1.16.0 (pinned in pyproject.toml) and the aioice 0.13
it installs. aiortc offers no API to forward encoded RTP, so the SFU
lets aiortc do SDP, ICE and DTLS-SRTP and then takes the media path over:

- ingress: the aioice connection's `data_received` (called from the socket's
  callback) is replaced per instance: SRTP packets are unprotected there with
  the DTLS transport's `_rx_srtp` and handed to the router at once, so aiortc's
  jitter buffers and decoders never see one; DTLS still takes aiortc's path;
- egress: `_tx_srtp.protect` and the nominated aioice pair's datagram
  transport, called synchronously so a gate change and its PLIs happen in one
  step and a fan-out costs no coroutine per copy;
- aiortc's own senders for the outgoing slots are kept idle (a track that never
  yields) and their RTCP dropped: their reports would describe streams that
  they are not sending (we relay the sources' own reports instead);
- `_stream_id` labels each slot's msid with the seat it carries;
- the negotiated payload types and extension ids are read off the transceiver;
- `bind_ports` replaces the aioice connection's `get_component_candidates`
  per instance, so host candidates bind to the deployment's UDP port range
  (aioice always binds port 0) and ask the STUN server from there;
- `tap` (test and benchmark clients only) wraps the DTLS transport's
  `_handle_rtp_data` and `_send_rtp` to see plaintext RTP both ways.

pylibsrtp (aiortc's SRTP binding) is used through its public `Session` API.

Importing this module with another aiortc version raises ImportError; every
attribute used is also checked when a connection is wired (GlueError), so an
upgrade that moved something fails loudly instead of silently dropping media.
After an upgrade, run tests/media and the browser test, then bump PINNED."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import random
import socket
from collections.abc import Callable
from typing import Any

import aioice.ice
import aioice.turn
import aiortc
import pylibsrtp
from aioice.candidate import Candidate, candidate_foundation, candidate_priority
from aiortc import (
    MediaStreamTrack,
    RTCIceCandidate,
    RTCPeerConnection,
    RTCRtpTransceiver,
)
from aiortc.sdp import candidate_from_sdp

PINNED = "1.16.0"
if aiortc.__version__ != PINNED:
    raise ImportError(
        f"omerta.media.aiortc_glue uses aiortc {PINNED} internals, found "
        f"aiortc {aiortc.__version__}: re-check this module, then bump PINNED"
    )

Handler = Callable[[bytes], None]
log = logging.getLogger(__name__)


class GlueError(RuntimeError):
    """An aiortc/aioice internal this module relies on is missing."""


def _need(obj: Any, *names: str) -> None:
    for name in names:
        if not hasattr(obj, name):
            raise GlueError(
                f"{type(obj).__name__}.{name} is gone (aiortc {aiortc.__version__};"
                f" omerta.media.aiortc_glue was written against {PINNED})"
            )


def _dtls(pc: RTCPeerConnection):
    """The one DTLS transport of a max-bundle connection."""
    dtls = pc.getTransceivers()[0].receiver.transport
    _need(dtls, "_handle_rtp_data", "_send_rtp", "_rx_srtp", "_tx_srtp", "transport")
    _need(dtls.transport, "_connection")
    _need(dtls.transport._connection, "_nominated")
    return dtls


class Wire:
    """Raw RTP/RTCP in and out of one peer connection, below aiortc's media stack."""

    def __init__(self, pc: RTCPeerConnection, on_rtp: Handler, on_rtcp: Handler):
        self._dtls = dtls = _dtls(pc)
        connection = dtls.transport._connection
        _need(connection, "data_received")
        self._nominated = connection._nominated
        self._pair: Any = None
        self._route: tuple[Any, Any] | None = None
        queue = connection.data_received

        def received(data: bytes, component: int) -> None:
            # SRTP is handled in the socket's own callback, not queued for the
            # DTLS transport's task: one event-loop turn less per packet.
            srtp = dtls._rx_srtp
            if srtp is None or len(data) < 12 or not 127 < data[0] < 192:
                queue(data, component)  # DTLS, too early, junk: aiortc's path
                return
            try:
                if 192 <= data[1] <= 223:
                    on_rtcp(srtp.unprotect_rtcp(data))
                else:
                    on_rtp(srtp.unprotect(data))
            except pylibsrtp.Error:
                pass  # forged or replayed: dropped, as aiortc does

        connection.data_received = received

    def send(self, data: bytes) -> None:
        """Protect and send one plaintext RTP or RTCP packet now; dropped when
        the connection is not (or no longer) up."""
        pair = self._nominated.get(1)
        if pair is not self._pair:  # nominated (or gone): look its socket up once
            self._pair = pair
            self._route = None if pair is None else (pair.protocol.transport, pair.remote_addr)
        srtp, route = self._dtls._tx_srtp, self._route
        if srtp is None or route is None or route[0] is None or route[0].is_closing():
            return
        data = srtp.protect_rtcp(data) if 192 <= data[1] <= 223 else srtp.protect(data)
        route[0].sendto(data, route[1])


class _Idle(MediaStreamTrack):
    """A track that never yields a frame: aiortc's sender loop waits on it
    forever instead of polling, while our forwarder uses the sender's SSRC."""

    def __init__(self, kind: str, label: str):
        super().__init__()
        self.kind, self._label = kind, label

    @property
    def id(self) -> str:
        return self._label

    async def recv(self):
        await asyncio.get_running_loop().create_future()


def add_slot(pc: RTCPeerConnection, kind: str, stream_id: str, track_id: str) -> RTCRtpTransceiver:
    """A sendonly transceiver whose media we send ourselves, labelled
    `msid:stream_id track_id` so the client knows whose it is."""
    transceiver = pc.addTransceiver(_Idle(kind, track_id), direction="sendonly")
    sender = transceiver.sender
    _need(sender, "_stream_id", "_send_rtcp", "_ssrc")

    async def drop(packets) -> None:
        pass

    sender._stream_id = stream_id
    sender._send_rtcp = drop  # type: ignore[method-assign]
    return transceiver


def ssrc(transceiver: RTCRtpTransceiver) -> int:
    """The SSRC aiortc put in the SDP for this transceiver's sender (also the
    SSRC its receiver signs feedback with)."""
    return transceiver.sender._ssrc


def negotiated(transceiver: RTCRtpTransceiver) -> tuple[dict[str, int], dict[str, int]]:
    """After the answer: payload type by codec name ("opus", "VP8") and
    header-extension id by URI."""
    _need(transceiver, "_codecs", "_headerExtensions")
    return (
        {c.name: c.payloadType for c in transceiver._codecs if c.payloadType is not None},
        {e.uri: e.id for e in transceiver._headerExtensions},
    )


def candidate(data: dict[str, Any]) -> RTCIceCandidate | None:
    """A browser-style candidate dict ({"candidate", "sdpMid", "sdpMLineIndex"};
    an empty candidate string ends the candidates)."""
    line = (data.get("candidate") or "").removeprefix("candidate:")
    if not line:
        return None
    parsed = candidate_from_sdp(line)
    parsed.sdpMid = data.get("sdpMid")
    parsed.sdpMLineIndex = data.get("sdpMLineIndex")
    return parsed


def bind_ports(pc: RTCPeerConnection, low: int, high: int) -> None:
    """Before the offer is made: gather host candidates on UDP ports in
    [low, high] (one socket per local address, like aioice), and
    server-reflexive ones through the configured STUN server from those."""
    connection = pc.getTransceivers()[0].receiver.transport.transport.iceGatherer._connection
    _need(connection, "get_component_candidates", "_protocols", "stun_server")
    _need(aioice.ice, "StunProtocol", "server_reflexive_candidate")
    _need(aioice.turn, "UDP_SOCKET_BUFFER_SIZE")

    async def gather(component: int, addresses: list[str], timeout: int = 5) -> list[Candidate]:
        candidates: list[Candidate] = []
        protocols = []
        for address in addresses:
            protocol = await _bind(connection, address, low, high)
            if protocol is None:
                continue
            host, port = protocol.transport.get_extra_info("sockname")[:2]
            protocol.local_candidate = Candidate(
                foundation=candidate_foundation("host", "udp", host),
                component=component,
                transport="udp",
                priority=candidate_priority(component, "host"),
                host=host,
                port=port,
                type="host",
            )
            candidates.append(protocol.local_candidate)
            protocols.append(protocol)
        connection._protocols += protocols
        if connection.stun_server:
            tasks = [
                asyncio.ensure_future(
                    aioice.ice.server_reflexive_candidate(p, connection.stun_server)
                )
                for p in protocols
                if ipaddress.ip_address(p.local_candidate.host).version == 4
            ]
            if tasks:
                done, pending = await asyncio.wait(tasks, timeout=timeout)
                candidates += [t.result()[0] for t in done if t.exception() is None]
                for task in pending:
                    task.cancel()
        return candidates

    connection.get_component_candidates = gather  # type: ignore[method-assign]


async def _bind(connection: Any, address: str, low: int, high: int) -> Any:
    """An aioice StunProtocol on a free port of the range, from a random start."""
    loop = asyncio.get_running_loop()
    span = high - low + 1
    start = random.randrange(span)
    for i in range(span):
        port = low + (start + i) % span
        try:
            transport, protocol = await loop.create_datagram_endpoint(
                lambda: aioice.ice.StunProtocol(connection), local_addr=(address, port)
            )
        except OSError:
            continue
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, aioice.turn.UDP_SOCKET_BUFFER_SIZE)
        return protocol
    log.warning("no free UDP port in %d-%d on %s: no media candidate there", low, high, address)
    return None


def tap(
    pc: RTCPeerConnection,
    on_rtp: Handler | None = None,
    on_send: Handler | None = None,
    decode: bool = True,
    on_rtcp: Handler | None = None,
) -> None:
    """For test and benchmark clients: see every plaintext RTP packet a
    connection receives (`on_rtp`) and sends (`on_send`), and the RTCP it
    receives (`on_rtcp`). With decode=False received media stops at the tap,
    sparing a benchmark client its decoders."""
    dtls = _dtls(pc)
    _need(dtls, "_handle_rtcp_data")
    handle, send, handle_rtcp = dtls._handle_rtp_data, dtls._send_rtp, dtls._handle_rtcp_data

    async def control(data: bytes) -> None:
        if on_rtcp is not None:
            on_rtcp(data)
        await handle_rtcp(data)

    async def received(data: bytes, arrival_time_ms: int = 0) -> None:
        if on_rtp is not None:
            on_rtp(data)
        if decode:
            await handle(data, arrival_time_ms=arrival_time_ms)

    async def sent(data: bytes) -> None:
        if on_send is not None and not 192 <= data[1] <= 223:
            on_send(data)
        await send(data)

    dtls._handle_rtp_data = received
    dtls._send_rtp = sent
    dtls._handle_rtcp_data = control


async def send_rtcp(pc: RTCPeerConnection, data: bytes) -> None:
    """For test clients: send a plaintext RTCP packet of our own making."""
    await _dtls(pc)._send_rtp(data)
