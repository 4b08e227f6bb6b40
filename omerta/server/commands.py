"""`omerta serve` and `omerta db upgrade`, as functions the CLI calls.
Each returns the process exit status."""
from __future__ import annotations

import asyncio
import gc
import logging
import random
import signal
import sys
from typing import TextIO

from aiohttp import web
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from ..runtime import RuntimeFactory
from ..runtime.live import LiveTables, sfu_media
from ..store import (Database, SchemaOutOfDate, check_current, database_url, head_revision,
                     is_embedded, upgrade)
from ..store.games import table_of_game
from ..store.tables import read_record
from .app import create_app
from .config import Config


#: Collections of the middle generation between two full ones (Python: 10).
FULL_GC_AFTER = 1000


def db_upgrade() -> int:
    """Migrate the configured database (DATABASE_URL, or the embedded file)."""
    url = database_url()
    try:
        asyncio.run(upgrade(url))
    except (OSError, DBAPIError) as e:
        return _fail(f"cannot migrate {_shown(url)}: {e}")
    print(f"{_shown(url)} is at schema revision {head_revision()}")
    return 0


def set_moderator(username: str, grant: bool) -> int:
    """`omerta admin grant-moderator|revoke-moderator USER` (audited)."""
    from ..moderation import NotFound
    from ..moderation.admin import grant_moderator, revoke_moderator

    async def run() -> str:
        await check_current(url)
        db = Database.connect(url)
        try:
            return await (grant_moderator if grant else revoke_moderator)(db, username)
        finally:
            await db.close()

    url = database_url()
    try:
        print(asyncio.run(run()))
    except NotFound as e:
        return _fail(e.message)
    except SchemaOutOfDate as e:
        return _fail(str(e))
    except (OSError, DBAPIError) as e:
        return _fail(f"cannot open {_shown(url)}: {e}")
    return 0


def live_tables(db: Database, time_scale: float) -> LiveTables:
    """The tables of `omerta serve`: each with its in-process media plane."""
    return LiveTables(db, time_scale, media=sfu_media)


def export_game(game_id: int, out: TextIO) -> int:
    """Write game `game_id`'s record (SCRIPTS.md) to `out`; `omerta replay`
    plays it back to the same events."""
    url = database_url()
    try:
        lines = asyncio.run(_game_record(url, game_id))
    except SchemaOutOfDate as e:
        return _fail(str(e))
    except (OSError, DBAPIError) as e:
        return _fail(f"cannot read {_shown(url)}: {e}")
    if lines is None:
        return _fail(f"there is no finished game {game_id} in {_shown(url)}")
    out.write("".join(line + "\n" for line in lines))
    out.flush()
    return 0


async def _game_record(url: str, game_id: int) -> list[str] | None:
    await check_current(url)
    db = Database.connect(url)
    try:
        async with db.begin() as s:
            table_id = await table_of_game(s, game_id)
            return None if table_id is None else await read_record(s, table_id)
    finally:
        await db.close()


def serve(host: str = "127.0.0.1", port: int = 8080, time_scale: float = 1.0,
          demo: bool = False, runtime: RuntimeFactory | None = None,
          debug_stats: bool = False, seed: int | None = None) -> int:
    """Run the server until SIGINT or SIGTERM; prints the URL to open.

    The embedded SQLite database is migrated automatically (it is this
    server's own file). A DATABASE_URL database is only checked: if its
    schema is not current the server refuses to start and says to run
    `omerta db upgrade`. `port` 0 picks a free port (the URL printed shows it).
    A `seed` makes table seeds and seat numbering reproducible (`Config.rng`)."""
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
    config = Config(database_url=url, runtime=runtime or live_tables, time_scale=time_scale,
                    demo=demo, debug_stats=debug_stats,
                    rng=random.SystemRandom() if seed is None else random.Random(seed))
    # A full garbage collection walks every live object (some 100 per open
    # socket) and stops the event loop meanwhile: half a second with 5000
    # sockets, every table's timers and messages held up. Most garbage dies
    # young; allow full passes a hundred times less often than the default.
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_GC_AFTER)
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
