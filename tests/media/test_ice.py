"""ICE for deployments: what the server's offer shows, which addresses a
player can make the server send to (issue 12, finding 14), the UDP port
range, and TURN credentials that coturn accepts (docs/deploy.md)."""

from __future__ import annotations

import asyncio
import random
import re
import time
from pathlib import Path

import aioice.stun
import aioice.turn
import pytest
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

from omerta.media import Sfu
from omerta.media.ice import IceSettingError, IceSettings, internal, turn_credential
from omerta.table.views import Gate
from tests.media.peers import LOOPBACK, Client
from tests.media.turn import coturn

SEATS = range(1, 11)
CANDIDATE = re.compile(
    r"^a=candidate:\S+ \d+ \w+ \d+ (\S+) (\d+) typ (\w+)(?: raddr (\S+))?", re.MULTILINE
)


def addresses(sdp: str) -> set[str]:
    """Every address an SDP names: candidates, their bases, default addresses."""
    found = {m.group(1) for m in CANDIDATE.finditer(sdp)}
    found |= {m.group(4) for m in CANDIDATE.finditer(sdp) if m.group(4)}
    return found | set(re.findall(r"^c=IN IP[46] (\S+)", sdp, re.MULTILINE))


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.8.8",
        "::1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.9.9",
        "fe80::1",
        "fd00::2",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.251",
        "::ffff:192.168.0.1",
        "printer.local",
        "example.org",
    ],
)
def test_loopback_link_local_private_and_named_addresses_are_internal(address):
    assert internal(address)


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888"])
def test_global_addresses_are_not_internal(address):
    assert not internal(address)


def test_an_offer_names_no_internal_address_and_maps_hosts_to_the_public_one():
    sdp = "\r\n".join(
        [
            "v=0",
            "m=audio 40001 UDP/TLS/RTP/SAVPF 96",
            "c=IN IP4 192.168.1.5",
            "a=candidate:aaa 1 udp 2130706431 192.168.1.5 40001 typ host",
            "a=candidate:bbb 1 udp 2130706431 fd00::5 40002 typ host",
            "a=candidate:ccc 1 udp 1694498815 8.8.4.4 40001 typ srflx raddr 192.168.1.5 rport 40001",
            "a=end-of-candidates",
            "",
        ]
    )
    hidden = IceSettings().public_offer(sdp)
    assert addresses(hidden) == {"8.8.4.4", "0.0.0.0"}  # raddr scrubbed
    assert "m=audio 40001 " in hidden and "c=IN IP4 8.8.4.4" in hidden
    mapped = IceSettings(public_ip="203.0.113.7").public_offer(sdp)
    assert addresses(mapped) == {"203.0.113.7", "8.8.4.4", "0.0.0.0"}
    assert "203.0.113.7 40001 typ host" in mapped
    assert "c=IN IP4 203.0.113.7" in mapped
    lan = IceSettings(allow_private=True).public_offer(sdp)
    assert {"192.168.1.5", "fd00::5"} <= addresses(lan)
    assert (
        IceSettings().public_offer(sdp.replace("a=candidate:ccc", "a=x")).count("c=IN IP4 0.0.0.0")
        == 1
    )


async def test_the_servers_offer_shows_none_of_its_internal_addresses_14():
    sfu = Sfu(SEATS, IceSettings())
    lan = Sfu(SEATS, LOOPBACK)
    try:
        shown = addresses((await sfu.signal(1, {"op": "attach"}))["description"]["sdp"])
        real = addresses((await lan.signal(1, {"op": "attach"}))["description"]["sdp"])
    finally:
        await sfu.close()
        await lan.close()
    assert [a for a in shown if internal(a) and a != "0.0.0.0"] == []
    assert any(internal(a) for a in real)  # this machine has some to hide


class _Listener(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.stun: list[bytes] = []

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        if len(data) >= 20 and data[4:8] == bytes.fromhex("2112a442"):
            self.stun.append(data)


async def _name_loopback_candidates(
    sfu: Sfu,
) -> tuple[_Listener, _Listener, list[asyncio.DatagramTransport]]:
    """Seat 1 answers naming one loopback address in its answer and trickles
    another; returns who listens at each (and what to close)."""
    loop = asyncio.get_running_loop()
    in_answer, trickled = _Listener(), _Listener()
    in_answer_t, _ = await loop.create_datagram_endpoint(lambda: in_answer, ("127.0.0.1", 0))
    trickled_t, _ = await loop.create_datagram_endpoint(lambda: trickled, ("127.0.0.1", 0))
    offer = await sfu.signal(1, {"op": "attach"})
    assert offer is not None
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    await pc.setRemoteDescription(RTCSessionDescription(**offer["description"]))
    await pc.setLocalDescription(await pc.createAnswer())
    answer = pc.localDescription.sdp
    await pc.close()  # so that only the named addresses are left to check
    port = in_answer_t.get_extra_info("sockname")[1]
    named = f"a=candidate:1 1 udp 2130706431 127.0.0.1 {port} typ host"
    sdp = re.sub(r"a=candidate:[^\r]*\r\n", "", answer)
    sdp = sdp.replace("a=ice-ufrag:", named + "\r\na=ice-ufrag:")  # aiortc reads the last m-line's
    assert (
        await sfu.signal(
            1, {"op": "description", "pc": "main", "description": {"type": "answer", "sdp": sdp}}
        )
        is None
    )
    port = trickled_t.get_extra_info("sockname")[1]
    assert (
        await sfu.signal(
            1,
            {
                "op": "candidate",
                "pc": "main",
                "candidate": {
                    "candidate": f"candidate:2 1 udp 2130706431 127.0.0.1 {port} typ host",
                    "sdpMid": "0",
                    "sdpMLineIndex": 0,
                },
            },
        )
        is None
    )
    return in_answer, trickled, [in_answer_t, trickled_t]


async def test_the_server_sends_no_checks_to_internal_addresses_a_player_names_14():
    guarded, open_ = Sfu(SEATS, IceSettings()), Sfu(SEATS, LOOPBACK)
    closing: list = []
    try:
        *refused, more = await _name_loopback_candidates(guarded)
        closing += more
        *allowed, more = await _name_loopback_candidates(open_)
        closing += more
        # The control: where the deployment allows it, checks come at once.
        for _ in range(1000):
            if all(listener.stun for listener in allowed):
                break
            await asyncio.sleep(0.01)
        assert all(listener.stun for listener in allowed)
        await asyncio.sleep(1.0)  # ICE has sent several rounds by now
        assert [listener.stun for listener in refused] == [[], []]
    finally:
        for transport in closing:
            transport.close()
        await guarded.close()
        await open_.close()


async def test_media_uses_only_the_configured_udp_ports():
    low = random.randrange(41000, 48000)
    sfu = Sfu(SEATS, IceSettings(allow_private=True, ports=(low, low + 20)))
    sent: dict = {}
    one, two = Client(1, sent), Client(2, sent)
    try:
        offer = await sfu.signal(3, {"op": "attach"})
        ports = {int(m.group(2)) for m in CANDIDATE.finditer(offer["description"]["sdp"])}
        assert ports and all(low <= p <= low + 20 for p in ports), ports
        await one.join(sfu)
        await two.join(sfu)
        await asyncio.wait_for(asyncio.gather(one.connected(), two.connected()), 10)
        sfu.set_gate(Gate({1: frozenset({2})}, {1: frozenset({2})}))
        for _ in range(500):
            if {a.kind for a in two.arrivals} == {"audio", "video"}:
                break
            await asyncio.sleep(0.01)
        assert {a.kind for a in two.arrivals if a.source == 1} == {"audio", "video"}
    finally:
        await one.close()
        await two.close()
        await sfu.close()


def test_settings_come_from_the_environment_and_bad_ones_are_named(tmp_path: Path):
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    ice = IceSettings.from_env(
        {
            "OMERTA_ICE_PUBLIC_IP": "203.0.113.7",
            "OMERTA_ICE_PORTS": "40000-40999",
            "OMERTA_ICE_STUN": "stun:stun.example.org:3478",
            "OMERTA_ICE_TURN": "turn:turn.example.org:3478?transport=udp,"
            " turns:turn.example.org:5349?transport=tcp",
            "OMERTA_ICE_TURN_SECRET_FILE": str(secret),
            "OMERTA_ICE_TURN_TTL": "3600",
            "OMERTA_ICE_ALLOW_PRIVATE": "0",
            "OMERTA_MEDIA_MAX_VIDEO_KBPS": "800",
        }
    )
    assert ice == IceSettings(
        "203.0.113.7",
        (40000, 40999),
        ("stun:stun.example.org:3478",),
        ("turn:turn.example.org:3478?transport=udp", "turns:turn.example.org:5349?transport=tcp"),
        "s3cret",
        3600,
        max_video_kbps=800,
    )
    assert IceSettings.from_env({}) == IceSettings()
    for env, named in [
        ({"OMERTA_ICE_PUBLIC_IP": "my.host"}, "PUBLIC_IP"),
        ({"OMERTA_ICE_PORTS": "40000"}, "PORTS"),
        ({"OMERTA_ICE_PORTS": "50000-40000"}, "PORTS"),
        ({"OMERTA_ICE_STUN": "turn:x:1"}, "STUN"),
        ({"OMERTA_ICE_TURN": "turn:x:1"}, "TURN_SECRET"),
        ({"OMERTA_ICE_TURN_TTL": "1d"}, "TURN_TTL"),
        ({"OMERTA_ICE_ALLOW_PRIVATE": "maybe"}, "ALLOW_PRIVATE"),
        ({"OMERTA_MEDIA_MAX_VIDEO_KBPS": "50"}, "MAX_VIDEO"),
        ({"OMERTA_MEDIA_MAX_VIDEO_KBPS": "fast"}, "MAX_VIDEO"),
    ]:
        with pytest.raises(IceSettingError, match=named):
            IceSettings.from_env(env)


async def test_the_offer_hands_players_stun_and_turn_with_fresh_credentials():
    ice = IceSettings(
        stun=("stun:stun.example.org",),
        turn=("turn:turn.example.org",),
        turn_secret="s",
        turn_ttl=600,
        allow_private=True,
    )
    sfu = Sfu(SEATS, ice)
    try:
        before = time.time()
        servers = (await sfu.signal(4, {"op": "attach"}))["iceServers"]
    finally:
        await sfu.close()
    assert servers[0] == {"urls": ["stun:stun.example.org"]}
    expiry, user = servers[1]["username"].split(":")
    assert user == "seat4" and int(before) + 600 <= int(expiry) <= time.time() + 600
    assert (servers[1]["username"], servers[1]["credential"]) == turn_credential(
        "s", "seat4", int(expiry)
    )


async def test_coturn_accepts_our_turn_credentials_until_they_expire(tmp_path: Path):
    with coturn(tmp_path) as turn:
        fresh = turn_credential(turn.secret, "seat1", time.time() + 60)
        transport, _ = await aioice.turn.create_turn_endpoint(
            asyncio.DatagramProtocol, (turn.host, turn.port), *fresh
        )
        assert transport.get_extra_info("sockname")[0] == "127.0.0.1"  # a relay address
        transport.close()
        expired = turn_credential(turn.secret, "seat1", time.time() - 1)
        with pytest.raises(aioice.stun.TransactionFailed, match="401"):
            await aioice.turn.create_turn_endpoint(
                asyncio.DatagramProtocol, (turn.host, turn.port), *expired
            )
