"""Schema migrations (Alembic, `omerta/migrations/`, shipped inside the package).

`omerta db upgrade` calls `upgrade`. At start `omerta serve` upgrades the
embedded SQLite database by itself (nobody else shares that file) and only
checks a configured DATABASE_URL, refusing to start when it is behind or
ahead: a shared Postgres is migrated on purpose, by its operator."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import pool
from sqlalchemy.engine import Connection, make_url

from .db import create_engine

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"


class SchemaOutOfDate(RuntimeError):
    """The database schema is not the one this code was written for."""


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config pointing at our migrations; with `connection`,
    env.py migrates through it instead of opening its own."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, f"no migrations found in {MIGRATIONS}"
    return head


async def upgrade(url: str) -> None:
    """Bring the database at `url` to the newest schema, in one transaction;
    SchemaOutOfDate when a newer version of Omerta migrated it."""

    def migrate(sync: Connection) -> None:
        current = MigrationContext.configure(sync).get_current_revision()
        if current is not None and not _known(current):
            raise SchemaOutOfDate(_newer(url, current))
        command.upgrade(alembic_config(sync), "head")

    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(migrate)
    finally:
        await engine.dispose()


async def current_revision(url: str) -> str | None:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision()
            )
    finally:
        await engine.dispose()


def _newer(url: str, revision: str) -> str:
    where = make_url(url).render_as_string(hide_password=True)
    return (
        f"the database {where} is at schema revision {revision}, which this version of"
        " Omerta does not know (a newer version migrated it); run that version instead"
    )


def _known(revision: str) -> bool:
    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


async def check_current(url: str) -> None:
    """Raise SchemaOutOfDate, with what to do about it, unless the database
    at `url` is at the newest revision."""
    current, head = await current_revision(url), head_revision()
    if current == head:
        return
    if current is not None and not _known(current):
        raise SchemaOutOfDate(_newer(url, current))
    where = make_url(url).render_as_string(hide_password=True)
    found = f"schema revision {current}" if current else "no schema yet"
    raise SchemaOutOfDate(
        f"the database {where} has {found}; this version of Omerta needs"
        f" revision {head}: run `omerta db upgrade` first"
    )
