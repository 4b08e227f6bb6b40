"""Debian's coturn on loopback, with the TURN REST API shared secret, for
the tests that relay media through it (tests/media, tests/browser)."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

TURNSERVER = "/usr/bin/turnserver"
SECRET = "omerta-test-secret"


@dataclass(frozen=True)
class Turn:
    host: str
    port: int
    secret: str

    @property
    def url(self) -> str:
        return f"turn:{self.host}:{self.port}?transport=udp"


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    """Whether something answers a STUN binding request on the port."""
    request = bytes.fromhex("000100002112a442") + os.urandom(12)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.2)
        try:
            s.sendto(request, ("127.0.0.1", port))
            return s.recv(2048)[8:20] == request[8:20]
        except OSError:
            return False


@contextmanager
def coturn(workdir: Path) -> Iterator[Turn]:
    """A coturn on 127.0.0.1 that relays to loopback peers too (the servers
    under test are there), authenticating with `SECRET`; stopped afterwards."""
    if shutil.which(TURNSERVER) is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{TURNSERVER} is missing: apt-get install -y coturn")
        pytest.skip(f"{TURNSERVER} is missing: apt-get install -y coturn")
    port = _free_udp_port()
    low = random.randrange(50000, 59000)
    log = workdir / "turnserver.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                TURNSERVER,
                "-n",
                "--listening-ip",
                "127.0.0.1",
                "--relay-ip",
                "127.0.0.1",
                "--listening-port",
                str(port),
                "--min-port",
                str(low),
                "--max-port",
                str(low + 200),
                "--use-auth-secret",
                "--static-auth-secret",
                SECRET,
                "--realm",
                "omerta.test",
                "--allow-loopback-peers",
                "--no-cli",
                "--no-tls",
                "--no-dtls",
                "--no-tcp-relay",
                "--userdb",
                str(workdir / "turndb"),
                "--pidfile",
                str(workdir / "turn.pid"),
                "--log-file",
                "stdout",
                "--simple-log",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 20
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"turnserver did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        yield Turn("127.0.0.1", port, SECRET)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
