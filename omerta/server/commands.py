"""`omerta serve` and `omerta db upgrade`, as functions the CLI calls.
Each returns the process exit status."""
from __future__ import annotations

import asyncio
import logging
import signal
import sys

from aiohttp import web
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from ..runtime import RuntimeFactory
from ..store import (Database, SchemaOutOfDate, check_current, database_url, head_revision,
                     is_embedded, upgrade)
from .app import create_app
from .config import Config

log = logging.getLogger("omerta.server")


def db_upgrade() -> int:
    """Migrate the configured database (DATABASE_URL, or the embedded file)."""
    url = database_url()
    try:
        asyncio.run(upgrade(url))
    except (OSError, DBAPIError) as e:
        return _fail(f"cannot migrate {_shown(url)}: {e}")
    print(f"{_shown(url)} is at schema revision {head_revision()}")
    return 0


def serve(host: str = "127.0.0.1", port: int = 8080, time_scale: float = 1.0,
          demo: bool = False, runtime: RuntimeFactory | None = None) -> int:
    """Run the server until SIGINT or SIGTERM; prints the URL to open.

    The embedded SQLite database is migrated automatically (it is this
    server's own file). A DATABASE_URL database is only checked: if its
    schema is not current the server refuses to start and says to run
    `omerta db upgrade`. `port` 0 picks a free port (the URL printed shows it)."""
    if not time_scale > 0:
        return _fail(f"--time-scale must be positive, got {time_scale}")
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    url = database_url()
    try:
        asyncio.run(upgrade(url) if is_embedded() else check_current(url))
    except SchemaOutOfDate as e:
        return _fail(str(e))
    except (OSError, DBAPIError) as e:
        return _fail(f"cannot open {_shown(url)}: {e}")
    config = Config(database_url=url, runtime=runtime or _LobbyOnly, time_scale=time_scale,
                    demo=demo)
    asyncio.run(_run(create_app(config), host, port))
    return 0


async def _run(app: web.Application, host: str, port: int) -> None:
    runner = web.AppRunner(app)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        bound = runner.addresses[0][1]
        shown = "localhost" if host in ("", "0.0.0.0", "::") else host
        shown = f"[{shown}]" if ":" in shown else shown
        print(f"Omerta is running: open http://{shown}:{bound}/ (Ctrl+C stops it)", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await runner.cleanup()


def _shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def _fail(message: str) -> int:
    print(f"omerta: {message}", file=sys.stderr)
    return 2


class _LobbyOnly:
    """Stands in until the table runtime is wired into `serve`: full tables
    are marked playing, but nothing runs them yet."""

    def __init__(self, db: Database, time_scale: float):
        pass

    async def start(self, table_id: int) -> None:
        log.warning("table %d is full, but no table runtime is wired in to run it", table_id)

    async def resume_all(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
