"""Several `omerta serve` processes (nodes) on one Postgres schema, on
loopback, and players that reconnect to whichever node is up."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
from yarl import URL

from omerta.store import Database, leases, tables

from ..runtime.players import SeatClient

TIME_SCALE = 50
SECRET = "cluster-test-secret-0123456789"


class Node:
    def __init__(self, name: str, database_url: str, log: Path):
        self.name = name
        self.database_url = database_url
        self.log = log
        self.process: subprocess.Popen[str] | None = None
        self.base = URL()

    async def start(self) -> None:
        """Start (or start again, under the same name) and wait for its URL."""
        await self.close()
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "OMERTA_NODE": self.name,
            "OMERTA_CLUSTER_SECRET": SECRET,
        }
        command = [sys.executable, "-m", "omerta.cli", "serve", "--port", "0"]
        command += ["--time-scale", str(TIME_SCALE)]
        with open(self.log, "a") as errors:
            self.process = subprocess.Popen(
                command, env=env, stdout=subprocess.PIPE, stderr=errors, text=True
            )
        assert self.process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.process.stdout.readline), 120)
        found = re.search(r"open (http://\S+/)", line)
        assert found, f"node {self.name} said {line!r}; its log: {self.log.read_text()}"
        self.base = URL(found.group(1))

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)

    async def wait(self, timeout: float = 30) -> int:
        assert self.process is not None
        return await asyncio.to_thread(self.process.wait, timeout)

    async def stop(self, timeout: float = 30) -> int:
        """SIGTERM: the node hands its tables over and exits."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.to_thread(self.process.wait, timeout)

    async def close(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            await asyncio.to_thread(self.process.wait)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.process = None


async def owner(database_url: str, table_id: int) -> str | None:
    return (await _holder(database_url, table_id))[0]


async def _holder(database_url: str, table_id: int) -> tuple[str | None, bool]:
    """The node holding the table's lease, and whether the table is still playing."""
    db = Database.connect(database_url)
    try:
        async with db.begin() as s:
            holder = await leases.owner(s, table_id)
            table = await tables.get_table(s, table_id)
        return (None if holder is None else holder[0]), table is not None and (
            table.status == "playing"
        )
    finally:
        await db.close()


async def adopted(database_url: str, table_id: int, old: str, timeout: float) -> str | None:
    """Wait until a node other than `old` holds the table (its name), or
    the game is over (None)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        holder, playing = await _holder(database_url, table_id)
        if not playing:
            return None
        if holder is not None and holder != old:
            return holder
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {table_id} not adopted within {timeout} s")


async def reconnect(client: SeatClient, base: URL | Callable[[], URL], timeout: float = 20) -> None:
    """Connect as the web client does: again and again while the table is
    between nodes (503). `base` may be asked anew at each try: a node that
    went down meanwhile comes back on another port."""
    started = time.monotonic()
    while True:
        try:
            await client.connect(base() if callable(base) else base, resume=True)
            return
        except (aiohttp.WSServerHandshakeError, aiohttp.ClientConnectionError):
            if time.monotonic() - started > timeout:
                raise
            await asyncio.sleep(0.2)
