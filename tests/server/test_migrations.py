"""One set of Alembic migrations, on SQLite and on Postgres."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, pool

from omerta.store import SchemaOutOfDate, check_current, create_engine, head_revision, upgrade
from omerta.store.migrate import alembic_config
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
    empty_database,
):
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
    newest = sorted((ROOT / "omerta" / "migrations" / "versions").glob("[0-9]*.py"))[-1]
    assert head_revision() == newest.name[:4]


async def test_the_migrations_build_exactly_what_the_models_describe(database_url):
    engine = create_engine(database_url, poolclass=pool.NullPool)
    async with engine.connect() as conn:
        with warnings.catch_warnings():
            # SQLite cannot reflect the lower(username) index; Postgres checks it.
            warnings.simplefilter("ignore")
            diff = await conn.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), Base.metadata)
            )
    await engine.dispose()
    assert diff == []


async def _migrate(url: str, revision: str) -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    async with engine.begin() as conn:
        await conn.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))
    await engine.dispose()


async def test_migrating_old_games_and_seats_keeps_one_live_seat_and_records_teams(empty_database):
    """Rows written by the code before 0005-0007: an account seated at two
    open tables and a playing one (the old race), and a finished game."""
    await _migrate(empty_database, "0004")
    engine = create_engine(empty_database, poolclass=pool.NullPool)
    async with engine.begin() as conn:
        run = conn.exec_driver_sql
        await run(
            "INSERT INTO users (id, username, password_hash, created_at, is_moderator)"
            " VALUES (1, 'alice', '!', '2026-01-01', false)"
        )
        for table_id, status in ((1, "open"), (2, "playing"), (3, "open"), (4, "finished")):
            await run(
                f"INSERT INTO tables (id, creator_id, ruleset, settings, status, created_at,"
                f" seed) VALUES ({table_id}, 1, 'classic', '{{}}', '{status}',"
                f" '2026-01-01', 1)"
            )
            await run(
                f"INSERT INTO seats (table_id, seat, user_id, is_bot)"
                f" VALUES ({table_id}, 1, 1, false)"
            )
        await run(
            "INSERT INTO games (id, table_id, winner, reason, ended_at, ranked)"
            " VALUES (1, 4, 'red', 'test', '2026-01-02', true)"
        )
        for seat, role in enumerate(("don", "mafia", "sheriff", "civilian", "maniac"), 1):
            await run(
                f"INSERT INTO game_players (game_id, seat, user_id, role, result, forfeit)"
                f" VALUES (1, {seat}, NULL, '{role}', 'win', false)"
            )
    await engine.dispose()
    await upgrade(empty_database)
    engine = create_engine(empty_database, poolclass=pool.NullPool)
    async with engine.connect() as conn:
        seats = (
            await conn.exec_driver_sql("SELECT table_id, live FROM seats ORDER BY table_id")
        ).all()
        teams = (
            (await conn.exec_driver_sql("SELECT team FROM game_players ORDER BY seat"))
            .scalars()
            .all()
        )
    await engine.dispose()
    assert [(t, bool(live)) for t, live in seats] == [(2, True), (4, False)]
    assert teams == ["black", "black", "red", "red", "maniac"]
