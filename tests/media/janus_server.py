"""Debian's Janus on loopback for the tests: its own configuration in a
temporary directory (the VideoRoom plugin and the WebSocket API only, an API
secret, an admin key so that only the plane creates rooms, random ports),
started and stopped by the test (tests/media, tests/browser, bench)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

JANUS = "/usr/bin/janus"
#: Debian's plugins and transports, under the machine's multiarch triplet
LIB = next(
    (p.parent.parent for p in Path("/usr/lib").glob("*/janus/plugins/libjanus_videoroom.so")),
    Path("/usr/lib/x86_64-linux-gnu/janus"),
)
API_SECRET = "omerta-test-api-secret"
ADMIN_KEY = "omerta-test-admin-key"
#: Only these are loaded: everything else Debian ships stays off.
PLUGIN = "libjanus_videoroom.so"
TRANSPORT = "libjanus_websockets.so"


@dataclass
class JanusServer:
    url: str
    process: subprocess.Popen
    log: Path

    def kill(self) -> None:
        """Die at once, as a crashed server does."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


def _free_tcp_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _others(folder: Path, keep: str) -> str:
    return ",".join(sorted(p.name for p in folder.glob("*.so") if p.name != keep))


def config(workdir: Path, ws_port: int, rtp_low: int) -> Path:
    """Write a Janus configuration for loopback into `workdir`; its main file."""
    none = workdir / "none"
    none.mkdir(exist_ok=True)
    (workdir / "janus.jcfg").write_text(f"""general: {{
	configs_folder = "{workdir}"
	plugins_folder = "{LIB / "plugins"}"
	transports_folder = "{LIB / "transports"}"
	events_folder = "{none}"
	loggers_folder = "{none}"
	debug_level = 4
	api_secret = "{API_SECRET}"
	session_timeout = 60
	server_name = "omerta-test"
}}
media: {{
	rtp_port_range = "{rtp_low}-{rtp_low + 399}"
}}
nat: {{
	ice_enforce_list = "127.0.0.1"
}}
plugins: {{
	disable = "{_others(LIB / "plugins", PLUGIN)}"
}}
transports: {{
	disable = "{_others(LIB / "transports", TRANSPORT)}"
}}
events: {{
	broadcast = false
}}
""")
    (workdir / "janus.transport.websockets.jcfg").write_text(f"""general: {{
	ws = true
	ws_port = {ws_port}
	ws_ip = "127.0.0.1"
	wss = false
}}
admin: {{
	admin_ws = false
}}
""")
    (workdir / "janus.plugin.videoroom.jcfg").write_text(f"""general: {{
	admin_key = "{ADMIN_KEY}"
	lock_rtp_forward = true
}}
""")
    return workdir / "janus.jcfg"


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def janus(workdir: Path) -> Iterator[JanusServer]:
    """A Janus on 127.0.0.1, stopped afterwards (SIGKILL if it hangs)."""
    if shutil.which(JANUS) is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{JANUS} is missing: apt-get install -y janus")
        pytest.skip(f"{JANUS} is missing: apt-get install -y janus")
    workdir.mkdir(parents=True, exist_ok=True)
    port = _free_tcp_port()
    main = config(workdir, port, random.randrange(20000, 49000, 400))
    log = workdir / "janus.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [JANUS, "-F", str(workdir), "-C", str(main), "-o"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = JanusServer(f"ws://127.0.0.1:{port}", process, log)
    try:
        deadline = time.monotonic() + 10
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Janus did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.05)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                server.kill()
