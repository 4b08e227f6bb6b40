"""One full video table through the media plane, against Janus as the reference.

    .venv/bin/python bench/media.py [--seconds 10] [--warmup 3] [--loads day,night,open]
                                    [--video 320x240@15:500]
    .venv/bin/python bench/media.py --gate-latency [--flips 30]

Ten aiortc clients send Opus (20 ms frames) and VP8 (320x240 at 15 fps,
500 kbit/s by default) all the time, as browsers do whatever the gate says,
under the gate of a table's moment (docs/rules.md G1-G5):

* day: a speech, the normal day: every camera reaches the nine others, only
  the speaker's mic (seat 1) is open;
* night: the shot: the three black players (seats 1-3) see and hear each
  other, nobody else receives anything;
* open: everything to everyone (the end of the game; the all-open worst case).

For each load the same clients run twice, each run bounded in time (RUN_LIMIT):

* through the Omerta SFU (omerta.media.Sfu) in a server process of its own,
  signalled over loopback HTTP: one peer connection per client;
* through Janus VideoRoom (Debian's `janus`, started and stopped here, its
  HTTP API on 127.0.0.1 only, no STUN, no other plugin or transport): a
  publisher and a multistream subscriber connection per client, subscribed
  to exactly the streams the gate opens to it (a client the gate opens
  nothing to has no subscriber connection: Janus cannot subscribe to nothing).

The clients live in three worker processes (a Python process cannot take
in ten clients' ~10 000 packets a second by itself): seats 1-2, which also
measure latency, then 3-6 and 7-10 at nice 10, so that on a 2-core machine the
load generator yields to the server under test, in both runs alike. Opus is encoded live (noise, so every packet
is unique); VP8 is a clip encoded once like aiortc's encoder does (500 kbps
CBR, realtime) with a keyframe every second, replayed in real time, because
ten live encoders would starve the clients. Clients never decode: received
media stops at the tap (omerta.media.aiortc_glue.tap), for both servers.

Reported over the measured window: server CPU seconds per second (utime +
stime of the server process, all threads, from /proc); RTP packets per second
the clients sent, the SFU forwarded (its own count) and the clients received
(fewer when a starved client drops some: not the server's doing); one-way
audio latency between seats 1 and 2 (send and receive taps on plaintext RTP,
one process, one clock). "Added" subtracts the median of the same measure on
a direct client-to-client connection in that process: the clients' own share
(SRTP, sockets, event loop). Tables per 2-core machine: the SFU is one Python
thread, so one server process per core kept under HEADROOM; Janus is
multi-threaded, so both cores kept under HEADROOM.

`--gate-latency` measures how long a gate change takes to hold on each
plane, the Omerta planes themselves (omerta.media.Sfu and JanusPlane on a
Janus started here, over its WebSocket API), with four in-process clients
(tests/media/peers.py) while the gate flips between seat 1's speech, seat
2's speech and the night (every camera, one mic; nothing). From the engine's
step (`set_gate` called) to: the change applied (Janus: its API round trips
done); a closed mic's first packet dropped (the first one sent after the
step that never arrives); an opened mic's first packet received; an opened
camera's first whole keyframe received."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import aiohttp
import av
from aiohttp import web
from aiortc import (
    RTCBundlePolicy,
    RTCConfiguration,
    RTCPeerConnection,
    RTCSessionDescription,
)

from omerta.media import Sfu
from omerta.media import aiortc_glue as glue
from omerta.media.ice import IceSettings
from omerta.media.synthetic import MovingVideo, NoiseAudio, Paced, header_length
from omerta.table.views import Gate

SEATS = range(1, 11)
WORKERS = ((1, 2), (3, 4, 5, 6), (7, 8, 9, 10))  # the first measures latency (1 -> 2)
ROOM = 1234
CONNECT_TIMEOUT = 30  # s for every connection of a run to come up
RUN_LIMIT = 120  # s: a run that takes longer is abandoned
HEADROOM = 0.8  # share of a core a table server may use before latency suffers


def gate(load: str) -> Gate:
    """The gate of a table's moment (see the module's docstring)."""
    everyone = frozenset(SEATS)
    if load == "day":
        return Gate({1: everyone - {1}}, {s: everyone - {s} for s in SEATS})
    if load == "night":
        black = frozenset({1, 2, 3})
        return Gate({s: black - {s} for s in black}, {s: black - {s} for s in black})
    return Gate({s: everyone - {s} for s in SEATS}, {s: everyone - {s} for s in SEATS})


def video_format(text: str) -> tuple[int, int, int, int]:
    """ "320x240@15:500" -> width, height, fps, kbit/s."""
    size, rest = text.split("@")
    fps, kbps = rest.split(":")
    width, height = size.split("x")
    return int(width), int(height), int(fps), int(kbps)


def config() -> RTCConfiguration:
    return RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- clients (in worker processes) ---------------------------------------------


async def vp8_clip(width: int, height: int, fps: int, kbps: int) -> list[bytes]:
    """Two seconds of the test picture in VP8, a keyframe every second."""
    codec = av.CodecContext.create("libvpx", "w")
    codec.width, codec.height, codec.pix_fmt = width, height, "yuv420p"
    rate = str(kbps * 1000)
    codec.bit_rate, codec.gop_size, codec.time_base = kbps * 1000, fps, Fraction(1, fps)
    codec.options = {
        "deadline": "realtime",
        "cpu-used": "-6",
        "lag-in-frames": "0",
        "minrate": rate,
        "maxrate": rate,
        "bufsize": rate,
    }
    source = MovingVideo(1, width, height, fps)
    source.period = 0  # no pacing while encoding
    frames = []
    for n in range(2 * fps):
        frame = await source.recv()
        frame.pts, frame.time_base = n, Fraction(1, fps)
        frames += [bytes(p) for p in codec.encode(frame)]
    return frames + [bytes(p) for p in codec.encode(None)]


class Clip(Paced):
    """Replays encoded VP8 frames in real time; aiortc only packetizes them."""

    kind = "video"

    def __init__(self, frames: list[bytes], fps: int) -> None:
        super().__init__()
        self.frames, self.fps, self.period = frames, fps, 1 / fps

    async def recv(self) -> av.Packet:
        n = await self._tick()
        packet = av.Packet(self.frames[n % len(self.frames)])
        packet.pts, packet.time_base = n * 90000 // self.fps, Fraction(1, 90000)
        return packet


class Meter:
    """Counts packets sent and received and times audio from send to receive."""

    def __init__(self) -> None:
        self.sent: dict[bytes, float] = {}  # audio payload -> send time, this process only
        self.on = False
        self.out = self.got = 0
        self.delays: list[float] = []

    def watch(self, pc: RTCPeerConnection, send: bool, receive: bool) -> None:
        audio = {
            pt
            for t in pc.getTransceivers()
            if t.kind == "audio"
            for pt in glue.negotiated(t)[0].values()
        }

        def sent(data: bytes) -> None:
            self.out += self.on
            if data[1] & 0x7F in audio:
                self.sent[data[header_length(data) :]] = time.monotonic()

        def received(data: bytes) -> None:
            if not self.on:
                return
            self.got += 1
            if data[1] & 0x7F in audio:
                when = self.sent.get(data[header_length(data) :])
                if when is not None:
                    self.delays.append(time.monotonic() - when)

        glue.tap(
            pc, on_rtp=received if receive else None, on_send=sent if send else None, decode=False
        )


def publisher(seat: int, clip: Clip) -> RTCPeerConnection:
    pc = RTCPeerConnection(config())
    pc.addTrack(NoiseAudio(seat))
    pc.addTrack(clip)
    return pc


async def connected(pcs: list[RTCPeerConnection]) -> None:
    async def one(pc):
        while pc.connectionState != "connected":
            if pc.connectionState == "failed":
                raise RuntimeError("a client connection failed")
            await asyncio.sleep(0.05)

    await asyncio.wait_for(asyncio.gather(*map(one, pcs)), CONNECT_TIMEOUT)


async def direct_pair(meter: Meter) -> list[RTCPeerConnection]:
    """Two clients connected to each other, audio only: the latency baseline."""
    a, b = RTCPeerConnection(config()), RTCPeerConnection(config())
    a.addTrack(NoiseAudio(99))
    await a.setLocalDescription(await a.createOffer())
    await b.setRemoteDescription(a.localDescription)
    await b.setLocalDescription(await b.createAnswer())
    await a.setRemoteDescription(b.localDescription)
    meter.watch(a, send=True, receive=False)
    meter.watch(b, send=False, receive=True)
    return [a, b]


async def join_sfu(http: aiohttp.ClientSession, url: str, seats, clip, meter: Meter, load: str):
    pcs = []

    async def signal(seat: int, message: dict):
        async with http.post(f"{url}/{seat}", json=message) as r:
            return await r.json()

    for seat in seats:
        offer = await signal(seat, {"op": "attach"})
        pc = publisher(seat, clip())
        pcs.append(pc)
        await pc.setRemoteDescription(RTCSessionDescription(**offer["description"]))
        await pc.setLocalDescription(await pc.createAnswer())
        meter.watch(pc, send=True, receive=True)
        reply = await signal(
            seat,
            {
                "op": "description",
                "pc": offer["pc"],
                "description": {"type": "answer", "sdp": pc.localDescription.sdp},
            },
        )
        if reply is not None:
            raise RuntimeError(f"the SFU refused seat {seat}'s answer: {reply}")
    return pcs


async def join_janus(http: aiohttp.ClientSession, url: str, seats, clip, meter: Meter, load: str):
    janus = Janus(http, url)
    await janus.start()
    pcs = []
    opened = gate(load)
    for seat in seats:
        pc = publisher(seat, clip())
        pcs.append(pc)
        await pc.setLocalDescription(await pc.createOffer())
        jsep = await janus.message(
            await janus.attach(),
            {"request": "joinandconfigure", "room": ROOM, "ptype": "publisher", "id": seat},
            pc,
        )
        await pc.setRemoteDescription(RTCSessionDescription(jsep["sdp"], jsep["type"]))
        meter.watch(pc, send=True, receive=False)
    await connected(pcs)
    for seat in seats:
        # the publishers' m-lines: audio "0", video "1" (added in that order)
        streams = [
            {"feed": other, "mid": mid}
            for other in SEATS
            for kind, mid in (("audio", "0"), ("video", "1"))
            if opened.allows(other, seat, kind)
        ]
        if not streams:
            continue
        handle = await janus.attach()
        for _ in range(CONNECT_TIMEOUT * 5):  # until every other worker's feeds are up
            try:
                jsep = await janus.message(
                    handle,
                    {"request": "join", "room": ROOM, "ptype": "subscriber", "streams": streams},
                )
                break
            except LookupError:
                await asyncio.sleep(0.2)
        else:
            raise RuntimeError("the other seats' feeds never came up in Janus")
        pc = RTCPeerConnection(config())
        pcs.append(pc)
        await pc.setRemoteDescription(RTCSessionDescription(jsep["sdp"], jsep["type"]))
        await pc.setLocalDescription(await pc.createAnswer())
        await janus.message(handle, {"request": "start", "room": ROOM}, pc)
        meter.watch(pc, send=False, receive=True)
    return pcs


async def work(args) -> None:
    """A worker: join its seats, say "ready", measure between "go" and "stop"."""
    if not args.probe:
        os.nice(10)  # the load generator yields to the server under test (both runs alike)
    frames = [bytes.fromhex(frame) for frame in json.loads(Path(args.clip).read_text())]
    fps = video_format(args.video)[2]

    def clip() -> Clip:
        return Clip(frames, fps)

    meter, base = Meter(), Meter()
    pcs: list[RTCPeerConnection] = []
    read = asyncio.get_running_loop().run_in_executor
    try:
        async with aiohttp.ClientSession() as http:
            join = join_sfu if args.worker == "sfu" else join_janus
            pcs += await join(http, args.url, args.seats, clip, meter, args.load)
            if args.probe:
                pcs += await direct_pair(base)
            await connected(pcs)
            print("ready", flush=True)
            await read(None, sys.stdin.readline)
            meter.on = base.on = True
            start = time.monotonic()
            await read(None, sys.stdin.readline)
            meter.on = base.on = False
            span = time.monotonic() - start
            print(
                json.dumps(
                    {
                        "out": meter.out / span,
                        "got": meter.got / span,
                        **_percentiles("", meter.delays),
                        **_percentiles("direct_", base.delays),
                    }
                ),
                flush=True,
            )
    finally:
        await asyncio.gather(*(pc.close() for pc in pcs), return_exceptions=True)


# --- servers -----------------------------------------------------------------


def serve(port: int, load: str) -> None:
    """The SFU server process: signalling over HTTP (as over the table
    WebSocket: POST /{seat} takes a media message, returns the answer or
    null), under the load's gate."""
    sfu = Sfu(SEATS, IceSettings(allow_private=True))
    sfu.set_gate(gate(load))

    async def signal(request):
        seat = int(request.match_info["seat"])
        return web.json_response(await sfu.signal(seat, await request.json()))

    async def forwarded(request):
        return web.json_response(
            sum(
                slot.packets
                for stream in sfu.router.streams.values()
                for slot in stream.slots.values()
            )
        )

    async def main():
        app = web.Application()
        app.add_routes([web.post("/{seat}", signal), web.get("/forwarded", forwarded)])
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until EOF
        await sfu.close()
        await runner.cleanup()

    asyncio.run(main())


JANUS_JCFG = """general: {{
    configs_folder = "{dir}"
    plugins_folder = "/usr/lib/x86_64-linux-gnu/janus/plugins"
    transports_folder = "/usr/lib/x86_64-linux-gnu/janus/transports"
    events_folder = "/usr/lib/x86_64-linux-gnu/janus/events"
    loggers_folder = "/usr/lib/x86_64-linux-gnu/janus/loggers"
    debug_level = 3
}}
media: {{ rtp_port_range = "40000-49999" }}
nat: {{ nice_debug = false  ignore_mdns = true }}
plugins: {{ disable = "{plugins}" }}
transports: {{ disable = "{transports}" }}
events: {{ broadcast = false }}
loggers: {{ disable = "libjanus_jsonlog.so" }}
"""
JANUS_HTTP = """general: {{ json = "plain"  base_path = "/janus"  http = true  port = {port}
            ip = "127.0.0.1"  https = false }}
admin: {{ admin_http = false  admin_https = false }}
"""
JANUS_ROOM = """general: {{ }}
room-{room}: {{ description = "bench"  publishers = 10  audiocodec = "opus"  videocodec = "vp8"
               fir_freq = 0  bitrate = 0 }}
"""


def _others(folder: str, keep: str) -> str:
    found = Path("/usr/lib/x86_64-linux-gnu/janus", folder).glob("*.so")
    return ",".join(sorted(p.name for p in found if p.name != keep))


class Janus:
    """The Janus HTTP API: a session, its handles, and a long poll for the
    plugin's asynchronous replies (matched by transaction)."""

    def __init__(self, http: aiohttp.ClientSession, url: str):
        self.http, self.url = http, url
        self.replies: dict[str, asyncio.Future] = {}
        self.count = 0

    async def _post(self, path: str, body: dict) -> dict:
        self.count += 1
        body["transaction"] = transaction = f"t{self.count}"
        # waiting before posting: the long poll may bring the answer before the ack
        later = self.replies[transaction] = asyncio.get_running_loop().create_future()
        try:
            async with self.http.post(self.url + path, json=body) as r:
                reply = await r.json(content_type=None)
            if reply.get("janus") == "error":
                raise RuntimeError(f"janus: {reply['error']}")
            if reply.get("janus") == "ack":
                reply = await asyncio.wait_for(later, CONNECT_TIMEOUT)
            return reply
        finally:
            del self.replies[transaction]

    async def start(self) -> None:
        self.session = (await self._post("", {"janus": "create"}))["data"]["id"]
        self.poller = asyncio.ensure_future(self._poll())

    async def _poll(self) -> None:
        while not self.http.closed:
            try:
                async with self.http.get(f"{self.url}/{self.session}?maxev=10") as r:
                    events = await r.json(content_type=None)
            except aiohttp.ClientError:
                return  # the worker is done and closed its session
            for event in events if isinstance(events, list) else [events]:
                waiting = self.replies.get(event.get("transaction"))
                if waiting is not None and not waiting.done() and event.get("janus") == "event":
                    waiting.set_result(event)

    async def attach(self) -> int:
        reply = await self._post(
            f"/{self.session}", {"janus": "attach", "plugin": "janus.plugin.videoroom"}
        )
        return reply["data"]["id"]

    async def message(self, handle: int, body: dict, pc: RTCPeerConnection | None = None):
        request = {"janus": "message", "body": body}
        if pc is not None:
            request["jsep"] = {"type": pc.localDescription.type, "sdp": pc.localDescription.sdp}
        data = (reply := await self._post(f"/{self.session}/{handle}", request))["plugindata"][
            "data"
        ]
        if data.get("error_code") == 428:  # no such feed (yet)
            raise LookupError(data["error"])
        if "error" in data:
            raise RuntimeError(f"janus videoroom: {data['error']}")
        return reply.get("jsep")


async def start_sfu(folder: Path, load: str) -> tuple[asyncio.subprocess.Process, str]:
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--serve",
        str(port),
        "--load",
        load,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    await asyncio.wait_for(proc.stdout.readline(), CONNECT_TIMEOUT)
    return proc, f"http://127.0.0.1:{port}"


async def start_janus(folder: Path, load: str) -> tuple[asyncio.subprocess.Process, str]:
    """Janus with only the VideoRoom plugin and the HTTP transport, on 127.0.0.1."""
    port = free_port()
    (folder / "janus.jcfg").write_text(
        JANUS_JCFG.format(
            dir=folder,
            plugins=_others("plugins", "libjanus_videoroom.so"),
            transports=_others("transports", "libjanus_http.so"),
        )
    )
    (folder / "janus.transport.http.jcfg").write_text(JANUS_HTTP.format(port=port))
    (folder / "janus.plugin.videoroom.jcfg").write_text(JANUS_ROOM.format(room=ROOM))
    with open(folder / "janus.log", "w") as log:
        proc = await asyncio.create_subprocess_exec(
            "janus",
            "-F",
            str(folder),
            "-C",
            str(folder / "janus.jcfg"),
            "-o",
            stdin=asyncio.subprocess.PIPE,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}/janus"
    async with aiohttp.ClientSession() as http:
        for _ in range(CONNECT_TIMEOUT * 10):
            try:
                async with http.get(url + "/info") as r:
                    if r.status == 200:
                        return proc, url
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
    raise RuntimeError(f"janus did not start: see {folder / 'janus.log'}")


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        proc.kill()
        await proc.wait()


async def run(kind: str, load: str, folder: Path, args) -> dict:
    """One server, three client workers, one measured window."""
    server, url = await (start_sfu if kind == "sfu" else start_janus)(folder, load)
    workers: list[asyncio.subprocess.Process] = []
    try:
        for i, seats in enumerate(WORKERS):
            workers.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--worker",
                    kind,
                    "--url",
                    url,
                    "--load",
                    load,
                    "--video",
                    args.video,
                    "--seats",
                    ",".join(map(str, seats)),
                    "--clip",
                    str(folder / "clip.json"),
                    *(["--probe"] if i == 0 else []),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                )
            )
        pipes = [(w.stdin, w.stdout) for w in workers]
        for _, out in pipes:
            assert out is not None
            if await asyncio.wait_for(out.readline(), 2 * CONNECT_TIMEOUT) != b"ready\n":
                raise RuntimeError(f"a {kind} client worker failed")
        await asyncio.sleep(args.warmup)
        forwarded = await count_forwarded(kind, url)
        cpu, start = cpu_seconds(server.pid), time.monotonic()
        for into, _ in pipes:
            assert into is not None
            into.write(b"go\n")
        await asyncio.sleep(args.seconds)
        for into, _ in pipes:
            assert into is not None
            into.write(b"stop\n")
        span = time.monotonic() - start
        cpu = (cpu_seconds(server.pid) - cpu) / span
        rate = None
        if forwarded is not None:
            now = await count_forwarded(kind, url)
            assert now is not None
            rate = (now - forwarded) / span
        reports = []
        for _, out in pipes:
            assert out is not None
            reports.append(json.loads(await asyncio.wait_for(out.readline(), CONNECT_TIMEOUT)))
    finally:
        for w in workers:
            await stop(w)
        await stop(server)
    return {
        **reports[0],
        "cpu": cpu,
        "forwarded": rate,
        "out": sum(r["out"] for r in reports),
        "got": sum(r["got"] for r in reports),
    }


async def count_forwarded(kind: str, url: str) -> int | None:
    """The SFU's own count of packets forwarded (Janus has none this cheap)."""
    if kind != "sfu":
        return None
    async with aiohttp.ClientSession() as http, http.get(url + "/forwarded") as r:
        return await r.json()


def _percentiles(prefix: str, delays: list[float]) -> dict[str, float]:
    q = statistics.quantiles(delays, n=20) if len(delays) > 20 else [float("nan")] * 19
    return {prefix + "p50": 1000 * q[9], prefix + "p95": 1000 * q[18]}


def report(results: dict[tuple[str, str], dict], args) -> None:
    width, height, fps, kbps = video_format(args.video)
    print(
        f"one table: {len(SEATS)} aiortc clients, Opus 20 ms + VP8 {width}x{height} @ {fps} fps"
        f" {kbps} kbit/s, all sending all the time; {args.seconds:g} s measured after"
        f" {args.warmup:g} s warm-up"
    )
    print(
        f"{'load':<7}{'server':<17}{'CPU s/s':>8}{'sent pkt/s':>11}{'forwarded':>10}"
        f"{'received':>9}{'audio ms p50':>13}{'p95':>6}{'added p50':>10}{'p95':>6}"
    )
    for (load, name), r in results.items():
        forwarded = "-" if r["forwarded"] is None else f"{r['forwarded']:.0f}"
        print(
            f"{load:<7}{name:<17}{r['cpu']:>8.3f}{r['out']:>11.0f}{forwarded:>10}"
            f"{r['got']:>9.0f}{r['p50']:>13.1f}{r['p95']:>6.1f}"
            f"{r['p50'] - r['direct_p50']:>10.1f}{r['p95'] - r['direct_p50']:>6.1f}"
        )
    for (load, name), r in results.items():
        print(
            f"direct client-to-client audio during the {load} {name} run:"
            f" p50 {r['direct_p50']:.1f} ms, p95 {r['direct_p95']:.1f} ms"
        )
    for load in args.loads:
        ours, janus = results[(load, "omerta sfu")], results.get((load, "janus videoroom"))
        if janus:
            print(
                f"{load}: CPU per table, omerta / janus: {ours['cpu'] / janus['cpu']:.2f}"
                " (target <= 1.25)"
            )
    # A table spends its time by day (the night is short, the all-open end
    # shorter): the day load sizes the machine.
    sizing = "day" if "day" in args.loads else args.loads[0]
    tables = int(HEADROOM / results[(sizing, "omerta sfu")]["cpu"])
    print(
        f"tables per 2-core machine at the {sizing} load, one omerta process per core kept"
        f" under {HEADROOM:.0%} busy: 2 x {tables} = {2 * tables}"
    )
    janus = results.get((sizing, "janus videoroom"))
    if janus:
        print(
            f"tables per 2-core machine at the {sizing} load, Janus (all its threads) kept"
            f" under {HEADROOM:.0%} of both cores: {int(2 * HEADROOM / janus['cpu'])}"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


async def gate_latency(kind: str, flips: int, folder: Path) -> dict[str, list[float]]:
    """Gate changes on one plane; the delays of each change, in seconds."""
    from omerta.media.rtp import vp8_keyframe_start

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' clients and Janus
    from tests.media.peers import Client
    from tests.media.planes import applied, seated

    seats = (1, 2, 3, 4)
    everyone = frozenset(seats)

    def speech(speaker: int) -> Gate:
        return Gate({speaker: everyone - {speaker}}, {s: everyone - {s} for s in seats})

    night = Gate({}, {})
    out: dict[str, list[float]] = {"applied": [], "mic closed": [], "mic open": [], "camera": []}
    sent: dict[tuple[int, bytes], float] = {}
    clients = {seat: Client(seat, sent) for seat in seats}
    async with seated(kind, SEATS, clients, folder) as plane:
        before = night
        plane.set_gate(before)
        await asyncio.sleep(1.0)
        cycle = [speech(1), speech(2), night]
        for i in range(flips):
            after = cycle[i % len(cycle)]
            step = time.monotonic()
            plane.set_gate(after)
            await applied(plane)
            out["applied"].append(time.monotonic() - step)
            await asyncio.sleep(0.6)
            for r in seats:
                arrivals = [a for a in clients[r].arrivals if a.at >= step]
                got = {(a.source, a.payload) for a in arrivals}
                for s in seats:
                    if s == r:
                        continue
                    if before.allows(s, r, "audio") and not after.allows(s, r, "audio"):
                        dropped = [
                            t
                            for t, x in clients[s].sends["audio"]
                            if t >= step and (s, x) not in got
                        ]
                        if dropped:
                            out["mic closed"].append(dropped[0] - step)
                    for kind_ in ("audio", "video"):
                        if before.allows(s, r, kind_) or not after.allows(s, r, kind_):
                            continue
                        mine = [a for a in arrivals if (a.source, a.kind) == (s, kind_)]
                        if kind_ == "audio" and mine:
                            out["mic open"].append(mine[0].at - step)
                        keyframes = [a for a in mine if vp8_keyframe_start(a.payload)]
                        if kind_ == "video" and keyframes:
                            out["camera"].append(keyframes[0].at - step)
            before = after
    return out


async def bench_gate_latency(args) -> None:
    folder = Path(tempfile.mkdtemp(prefix="omerta-gate-bench-"))
    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"gate changes, {args.flips} per plane, 4 clients: ms from the engine's step, p50 / p95 (n)"
    )
    try:
        for kind in ("sfu", "janus"):
            delays = await asyncio.wait_for(gate_latency(kind, args.flips, folder), RUN_LIMIT)
            cells = []
            for what, values in delays.items():
                q = sorted(values)
                cells.append(
                    f"{what} {1000 * q[len(q) // 2]:.1f} / {1000 * q[int(len(q) * 0.95)]:.1f}"
                    f" ({len(q)})"
                    if q
                    else f"{what} -"
                )
            print(f"{'omerta sfu' if kind == 'sfu' else 'janus plane':<12} " + "; ".join(cells))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


async def bench(args) -> None:
    folder = Path(tempfile.mkdtemp(prefix="omerta-media-bench-"))
    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    try:
        clip = await vp8_clip(*video_format(args.video))
        (folder / "clip.json").write_text(json.dumps([f.hex() for f in clip]))
        results = {}
        for load in args.loads:
            results[(load, "omerta sfu")] = await asyncio.wait_for(
                run("sfu", load, folder, args), RUN_LIMIT
            )
            if shutil.which("janus"):
                results[(load, "janus videoroom")] = await asyncio.wait_for(
                    run("janus", load, folder, args), RUN_LIMIT
                )
            else:
                print(
                    "janus is not installed (apt-get install janus): no reference run",
                    file=sys.stderr,
                )
        report(results, args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument(
        "--loads",
        type=lambda s: s.split(","),
        default=["day", "night"],
        help="day, night and/or open, comma-separated (default day,night)",
    )
    parser.add_argument(
        "--video",
        default="320x240@15:500",
        help="the cameras' VP8: WIDTHxHEIGHT@FPS:KBITS (default 320x240@15:500)",
    )
    parser.add_argument(
        "--gate-latency",
        action="store_true",
        help="measure gate changes on the SFU and on the Janus plane instead",
    )
    parser.add_argument("--flips", type=int, default=30, help="gate changes per plane (30)")
    parser.add_argument("--load", default="open", help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--worker", choices=("sfu", "janus"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument(
        "--seats", type=lambda s: [int(x) for x in s.split(",")], help=argparse.SUPPRESS
    )
    parser.add_argument("--clip", help=argparse.SUPPRESS)
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if any(load not in ("day", "night", "open") for load in args.loads):
        parser.error("--loads takes day, night and open")
    if args.serve:
        serve(args.serve, args.load)
    elif args.worker:
        asyncio.run(work(args))
    elif args.gate_latency:
        asyncio.run(bench_gate_latency(args))
    else:
        asyncio.run(bench(args))


if __name__ == "__main__":
    main()
