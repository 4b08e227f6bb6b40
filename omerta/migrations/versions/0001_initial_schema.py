"""Initial schema: users, sessions, tables, seats, table records, games.

Revision ID: 0001
Revises:
Create Date: 2026-11-30

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Migrations keep their own column types: they must not change when the
# models do.
UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=32), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("is_moderator", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
    )
    op.create_index("uq_users_username_lower", "users", [sa.text("lower(username)")], unique=True)

    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("expires_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_sessions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_sessions")),
    )
    op.create_index(op.f("ix_sessions_user_id"), "sessions", ["user_id"])

    op.create_table(
        "tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("creator_id", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.Column("started_at", UTC, nullable=True),
        sa.Column("finished_at", UTC, nullable=True),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(
            "status IN ('open', 'playing', 'finished', 'abandoned')", name=op.f("ck_tables_status")
        ),
        sa.ForeignKeyConstraint(
            ["creator_id"], ["users.id"], name=op.f("fk_tables_creator_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tables")),
    )
    op.create_index(op.f("ix_tables_status"), "tables", ["status"])

    op.create_table(
        "seats",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.CheckConstraint("(user_id IS NULL) = is_bot", name=op.f("ck_seats_user_or_bot")),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_seats_table_id_tables"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_seats_user_id_users")),
        sa.PrimaryKeyConstraint("table_id", "seat", name=op.f("pk_seats")),
        sa.UniqueConstraint("table_id", "user_id", name=op.f("uq_seats_table_id_user_id")),
    )
    op.create_index(op.f("ix_seats_user_id"), "seats", ["user_id"])

    op.create_table(
        "table_records",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name=op.f("fk_table_records_table_id_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", "line", name=op.f("pk_table_records")),
    )

    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("winner", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=64), nullable=False),
        sa.Column("ended_at", UTC, nullable=False),
        sa.Column("ranked", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_games_table_id_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
        sa.UniqueConstraint("table_id", name=op.f("uq_games_table_id")),
    )

    op.create_table(
        "game_players",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("result", sa.String(length=8), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_players_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_game_players_user_id_users")
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_players")),
    )
    op.create_index(op.f("ix_game_players_user_id"), "game_players", ["user_id"])


def downgrade() -> None:
    # Dropping a table drops its indexes; children go before their parents.
    for table in ("game_players", "games", "table_records", "seats", "tables", "sessions", "users"):
        op.drop_table(table)
