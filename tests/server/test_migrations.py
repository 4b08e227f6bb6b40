"""One set of Alembic migrations, on SQLite and on Postgres."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, pool

from omerta.store import SchemaOutOfDate, check_current, create_engine, head_revision, upgrade
from omerta.store.models import Base

ROOT = Path(__file__).resolve().parents[2]


async def test_migrations_build_every_table_on_an_empty_database(empty_database):
    await upgrade(empty_database)
    engine = create_engine(empty_database, poolclass=pool.NullPool)
    async with engine.connect() as conn:
        names = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    await engine.dispose()
    assert names == {"alembic_version", *Base.metadata.tables}


async def test_the_server_start_check_refuses_an_unmigrated_database_and_says_what_to_run(
        empty_database):
    with pytest.raises(SchemaOutOfDate, match="run `omerta db upgrade`"):
        await check_current(empty_database)
    await upgrade(empty_database)
    await check_current(empty_database)


async def test_the_start_check_refuses_a_database_migrated_by_newer_code(empty_database):
    await upgrade(empty_database)
    engine = create_engine(empty_database, poolclass=pool.NullPool)
    async with engine.begin() as conn:
        await conn.exec_driver_sql("UPDATE alembic_version SET version_num = 'fromthefuture'")
    await engine.dispose()
    with pytest.raises(SchemaOutOfDate, match="does not know"):
        await check_current(empty_database)


async def test_upgrading_a_current_database_changes_nothing(database_url):
    await upgrade(database_url)
    await check_current(database_url)
    newest = sorted((ROOT / "migrations" / "versions").glob("[0-9]*.py"))[-1]
    assert head_revision() == newest.name[:4]


async def test_the_migrations_build_exactly_what_the_models_describe(database_url):
    engine = create_engine(database_url, poolclass=pool.NullPool)
    async with engine.connect() as conn:
        with warnings.catch_warnings():
            # SQLite cannot reflect the lower(username) index; Postgres checks it.
            warnings.simplefilter("ignore")
            diff = await conn.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), Base.metadata))
    await engine.dispose()
    assert diff == []
