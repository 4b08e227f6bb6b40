"""`omerta serve` and `omerta db upgrade`, as functions the CLI calls.
Each returns the process exit status."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import random
import signal
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import asyncpg
from aiohttp import web
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from ..moderation.admin import Role
from ..runtime import RuntimeFactory, TableRuntime
from ..runtime.live import LiveTables, sfu_media
from ..runtime.ownership import LOCAL
from ..store import (
    Database,
    SchemaOutOfDate,
    check_current,
    database_url,
    head_revision,
    is_embedded,
    upgrade,
)
from ..store.db import DatabaseUrlError, describe
from ..store.games import table_of_game
from ..store.tables import read_record
from ..version import version
from . import garbage
from .app import create_app, server_options
from .auth import site_from_env
from .config import Config
from .garbage import Collector
from .keys import CONFIG, TABLES
from .limits import Limits

if TYPE_CHECKING:
    from ..media.plane import MediaPlane

MAX_PORT = 65535
NODE_NAME_MAX = 64
CLUSTER_SECRET_MIN = 16


def db_upgrade() -> int:
    """Migrate the configured database (DATABASE_URL, or the embedded file)."""
    try:
        url = database_url()
        asyncio.run(upgrade(url))
    except (DatabaseUrlError, SchemaOutOfDate) as e:
        return _fail(str(e))
    except DATABASE_ERRORS as e:
        return _fail(_database_problem(url, e))
    print(f"{_shown(url)} is at schema revision {head_revision()}")
    return 0


def set_role(username: str, role: Role, grant: bool) -> int:
    """`omerta admin grant-ROLE|revoke-ROLE USER`, ROLE moderator or
    director (audited)."""
    from ..moderation import NotFound
    from ..moderation.admin import set_role

    async def run() -> str:
        await check_current(url)
        db = Database.connect(url)
        try:
            return await set_role(db, username, role, grant)
        finally:
            await db.close()

    try:
        url = _existing_database()
        print(asyncio.run(run()))
    except NotFound as e:
        return _fail(e.message)
    except (DatabaseUrlError, SchemaOutOfDate, NoDatabase) as e:
        return _fail(str(e))
    except DATABASE_ERRORS as e:
        return _fail(_database_problem(url, e))
    return 0


def live_tables(db: Database, time_scale: float) -> LiveTables:
    """The tables of `omerta serve`: each with its in-process media plane."""
    return LiveTables(db, time_scale, media=sfu_media)


def node_from_env(
    node: str | None, url: str | None, env: Mapping[str, str] = os.environ
) -> tuple[str, str | None, str | None]:
    """This server's node name, the URL other nodes reach it at, and the
    cluster's secret (docs/deploy.md, "Several nodes"); ValueError when a
    node of a cluster lacks a usable secret."""
    name = node or env.get("OMERTA_NODE") or LOCAL
    url = url or env.get("OMERTA_NODE_URL") or None
    secret = env.get("OMERTA_CLUSTER_SECRET") or None
    if len(name) > NODE_NAME_MAX or not name.isprintable():
        raise ValueError(f"a node's name has 1 to {NODE_NAME_MAX} printable characters")
    if name != LOCAL and (secret is None or len(secret) < CLUSTER_SECRET_MIN):
        raise ValueError(
            f"node {name!r} of a cluster needs OMERTA_CLUSTER_SECRET, the same on every"
            f" node, of at least {CLUSTER_SECRET_MIN} characters (e.g. openssl rand -hex 32)"
        )
    return name, url, secret


def _as_node(factory: RuntimeFactory, name: str, url: str | None) -> RuntimeFactory:
    """`factory`'s runtime, running tables as node `name`."""

    def runtime(db: Database, time_scale: float) -> TableRuntime:
        tables = factory(db, time_scale)
        if isinstance(tables, LiveTables):
            tables.ownership.node, tables.ownership.url = name, url
        return tables

    return runtime


def _with_media(media: Callable[[int, int], MediaPlane]) -> RuntimeFactory:
    """`live_tables`, each table's media plane made by `media`."""

    def runtime(db: Database, time_scale: float) -> LiveTables:
        tables = live_tables(db, time_scale)
        tables.media = media
        return tables

    return runtime


def export_game(game_id: int, out: TextIO) -> int:
    """Write game `game_id`'s record (docs/scripts.md) to `out`; `omerta replay`
    plays it back to the same events."""
    try:
        url = _existing_database()
        lines = asyncio.run(_game_record(url, game_id))
    except (DatabaseUrlError, SchemaOutOfDate, NoDatabase) as e:
        return _fail(str(e))
    except DATABASE_ERRORS as e:
        return _fail(_database_problem(url, e))
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


def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    time_scale: float = 1.0,
    demo: bool = False,
    runtime: RuntimeFactory | None = None,
    debug_stats: bool = False,
    seed: int | None = None,
    media: str = "sfu",
    janus_urls: Sequence[str] = (),
    node: str | None = None,
    node_url: str | None = None,
) -> int:
    """Run the server until SIGINT or SIGTERM; prints the URL to open.

    The embedded SQLite database is migrated automatically (it is this
    server's own file). A DATABASE_URL database is only checked: if its
    schema is not current the server refuses to start and says to run
    `omerta db upgrade`. `port` 0 picks a free port (the URL printed shows it).
    A `seed` makes table seeds and seat numbering reproducible (`Config.rng`).
    `media` "janus" puts the tables' media on the Janus servers at `janus_urls`
    (or OMERTA_JANUS_URLS) instead of the in-process SFU."""
    if not time_scale > 0:
        return _fail(f"--time-scale must be positive, got {time_scale}")
    if not 0 <= port <= MAX_PORT:
        return _fail(
            f"{port} is not a port: choose one of 1-{MAX_PORT}, or 0 for a free one"
            " (--port or OMERTA_PORT)"
        )
    from ..media.ice import IceSettingError, IceSettings
    from ..media.janus import JanusSettingError, JanusSettings, janus_media

    try:
        IceSettings.from_env()  # each table's media reads them: refuse bad ones now
        janus = JanusSettings.from_env(janus_urls) if media == "janus" else None
    except (IceSettingError, JanusSettingError) as e:
        return _fail(str(e))
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        url = database_url()
    except DatabaseUrlError as e:
        return _fail(str(e))
    embedded = is_embedded()
    _progress(
        f"opening {describe(url)} and bringing its schema up to date"
        if embedded
        else f"checking the schema of {describe(url)}"
    )
    try:
        asyncio.run(upgrade(url) if embedded else check_current(url))
    except SchemaOutOfDate as e:
        return _fail(str(e))
    except DATABASE_ERRORS as e:
        return _fail(_database_problem(url, e))
    try:
        limits = Limits.from_env()
        site_url, secure_cookies = site_from_env()
        name, node_url, secret = node_from_env(node, node_url)
    except ValueError as e:
        return _fail(str(e))
    config = Config(
        database_url=url,
        runtime=_as_node(
            runtime or (live_tables if janus is None else _with_media(janus_media(janus))),
            name,
            node_url,
        ),
        cluster_secret=secret,
        time_scale=time_scale,
        demo=demo,
        debug_stats=debug_stats,
        limits=limits,
        site_url=site_url,
        secure_cookies=secure_cookies,
        rng=random.SystemRandom() if seed is None else random.Random(seed),
    )
    _progress("starting the tables")
    return asyncio.run(_run(create_app(config), host, port, describe(url)))


async def _run(app: web.Application, host: str, port: int, database: str) -> int:
    """Serve until SIGINT or SIGTERM; the exit status."""
    runner = web.AppRunner(app, **server_options(app[CONFIG]))
    await runner.setup()
    collector = Collector()
    try:
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as e:
            return _fail(_listen_problem(host, port, e))
        garbage.settle()  # the tables are resumed by now
        collector.start(asyncio.get_running_loop())
        # Stoppable as soon as whoever started it can know it runs.
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        bound = runner.addresses[0][1]
        shown = "localhost" if host in ("", "0.0.0.0", "::") else host
        shown = f"[{shown}]" if ":" in shown else shown
        tables = app[TABLES]
        if isinstance(tables, LiveTables) and tables.ownership.url is None:
            tables.ownership.url = f"http://{shown}:{bound}"  # where other nodes forward to
        # One line, the first on standard output: scripts and tests read the URL from it.
        print(
            f"Omerta {version()} is running on {database}: open http://{shown}:{bound}/"
            " (Ctrl+C stops it)",
            flush=True,
        )
        await stop.wait()
        return 0
    finally:
        collector.stop()
        await runner.cleanup()


class NoDatabase(Exception):
    """A command that reads the database found none (and must not create one)."""


def _existing_database() -> str:
    """The configured database, refused when it is an SQLite file that does not exist."""
    url = database_url()
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise NoDatabase(
            f"there is no Omerta database at {parsed.database}: run this in the"
            " server's folder, or set OMERTA_DATA (or DATABASE_URL) to its database"
        )
    return url


def _listen_problem(host: str, port: int, e: OSError) -> str:
    """Why the server cannot listen on host:port, and what to do, in one line."""
    if e.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is already in use: stop what uses it, or choose another"
            " port (--port or OMERTA_PORT; 0 picks a free one)"
        )
    if e.errno == errno.EACCES:
        return (
            f"listening on port {port} needs privileges: choose a port above 1023"
            " (--port or OMERTA_PORT)"
        )
    fix = (
        "listen on an address of this machine (--host or OMERTA_HOST): 127.0.0.1 for"
        " this machine only, 0.0.0.0 for every network"
    )
    if isinstance(e, socket.gaierror) or e.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on host {host!r} ({_reason(e)}): {fix}"
    return f"cannot listen on {host}:{port} ({_reason(e)}): {fix}"


#: What opening a database raises when the database, not Omerta, is at fault.
DATABASE_ERRORS = (OSError, DBAPIError, asyncpg.PostgresError, asyncpg.InterfaceError)


def _database_problem(url: str, e: BaseException) -> str:
    """Why the database at `url` cannot be used, and what to do, in one line."""
    parsed, where = make_url(url), describe(url)
    if parsed.get_backend_name() == "sqlite":
        folder = Path(parsed.database or ".").parent
        return (
            f"cannot write the database {parsed.database} ({_reason(e)}): make {folder} a"
            " folder you may write, or set OMERTA_DATA to one"
        )
    causes = _causes(e)
    if any(isinstance(c, asyncpg.InvalidCatalogNameError) for c in causes):
        return (
            f"the database {parsed.database!r} does not exist on {parsed.host}:"
            f"{parsed.port or 5432}: create it (createdb {parsed.database}) or name an"
            " existing one in DATABASE_URL"
        )
    if any(
        isinstance(
            c, (asyncpg.InvalidAuthorizationSpecificationError, asyncpg.InvalidPasswordError)
        )
        for c in causes
    ):
        return f"{where} refused the login ({_reason(e)}): fix the user or password in DATABASE_URL"
    if isinstance(e, OSError):
        return (
            f"cannot reach {where} ({_reason(e)}): start Postgres there, or fix the host"
            " and port in DATABASE_URL"
        )
    return f"cannot use {where}: {_reason(e)}"


def _causes(e: BaseException) -> list[BaseException]:
    """`e` and what it wraps (SQLAlchemy's `orig`, chained exceptions)."""
    found: list[BaseException] = []
    todo: list[BaseException | None] = [e]
    while todo:
        c = todo.pop()
        if c is None or c in found:
            continue
        found.append(c)
        todo += [getattr(c, "orig", None), c.__cause__, c.__context__]
    return found


def _reason(e: BaseException) -> str:
    """The first line of what the error itself says."""
    inner = e.orig if isinstance(e, DBAPIError) and e.orig is not None else e
    if isinstance(inner, OSError) and not isinstance(inner, socket.gaierror) and inner.errno:
        return os.strerror(inner.errno)  # asyncio's own text repeats the address
    text = inner.strerror if isinstance(inner, OSError) and inner.strerror else str(inner)
    return text.strip().splitlines()[0] if text.strip() else type(inner).__name__


def _shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def _progress(message: str) -> None:
    """What the server is doing while it starts (seconds on a busy machine)."""
    print(f"omerta: {message}...", file=sys.stderr, flush=True)


def _fail(message: str) -> int:
    print(f"omerta: {message}", file=sys.stderr)
    return 2
