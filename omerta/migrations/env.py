"""Alembic environment: async, for Postgres (asyncpg) and SQLite (aiosqlite).

Called two ways: by `omerta.store.migrate`, which hands over an open
connection in `config.attributes["connection"]`, or by the `alembic` command
line, which migrates the database named by DATABASE_URL (or the embedded one)."""

import asyncio
import warnings
from logging.config import fileConfig

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import SAWarning

from omerta.store.db import create_engine, database_url
from omerta.store.models import Base

config = context.config
# Batch mode reflects SQLite tables, and SQLite cannot reflect the
# lower(username) index; no migration rebuilds `users`, so it is harmless.
warnings.filterwarnings(
    "ignore", "Skipped unsupported reflection of expression-based index", SAWarning
)
if config.config_file_name is not None:
    fileConfig(config.config_file_name)


def configure(**kwargs) -> None:
    # SQLite cannot ALTER most things in place: batch mode copies the table.
    # Its DDL is transactional too, once the engine issues BEGIN itself
    # (omerta.store.db), so a failed migration leaves nothing half done.
    sqlite = kwargs.pop("dialect_name") == "sqlite"
    context.configure(
        target_metadata=Base.metadata, render_as_batch=sqlite, transactional_ddl=True, **kwargs
    )


def run_migrations_offline() -> None:
    url = database_url()
    configure(
        url=url,
        dialect_name=make_url(url).get_backend_name(),
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_on(connection: Connection) -> None:
    configure(connection=connection, dialect_name=connection.dialect.name)
    with context.begin_transaction():
        context.run_migrations()


async def run_online() -> None:
    engine = create_engine(database_url(), poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_on)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
elif "connection" in config.attributes:
    run_on(config.attributes["connection"])
else:
    asyncio.run(run_online())
