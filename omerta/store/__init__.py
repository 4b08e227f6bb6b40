"""Persistence: SQLAlchemy models and small repository functions over
Postgres (asyncpg) or embedded SQLite (aiosqlite).

Repositories (`users`, `tables`, `games`) take an open AsyncSession; the
caller owns the transaction (`async with db.begin() as s:`)."""

from . import leases  # noqa: F401 (its models are part of the schema)
from .db import Database, create_engine, database_url, is_embedded
from .migrate import SchemaOutOfDate, check_current, head_revision, upgrade

__all__ = [
    "Database",
    "SchemaOutOfDate",
    "check_current",
    "create_engine",
    "database_url",
    "head_revision",
    "is_embedded",
    "upgrade",
]
