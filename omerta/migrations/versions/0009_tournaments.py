"""Tournaments (issue 18): the director role, tournaments with their
scoring settings, registrations, rounds and each round's tables (the
seats the schedule gives, and the table the round started).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC = sa.DateTime(timezone=True)


def _tournament_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["tournament_id"],
        ["tournaments.id"],
        name=op.f(f"fk_{table}_tournament_id_tournaments"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    # A plain ADD COLUMN: a batch would copy `users`, which SQLite refuses
    # while other tables' rows refer to it.
    op.add_column(
        "users",
        sa.Column("is_director", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("director_id", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("scoring", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("tables_per_round", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("schedule", sa.JSON(), nullable=True),
        sa.Column("created_at", UTC, nullable=False),
        sa.CheckConstraint(
            "status IN ('registration', 'scheduled', 'running', 'finished')",
            name=op.f("ck_tournaments_status"),
        ),
        sa.ForeignKeyConstraint(
            ["director_id"], ["users.id"], name=op.f("fk_tournaments_director_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index(op.f("ix_tournaments_status"), "tournaments", ["status"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=True),
        sa.Column("invited_by", sa.Integer(), nullable=True),
        sa.Column("joined_at", UTC, nullable=False),
        sa.Column("checked_in_at", UTC, nullable=True),
        _tournament_fk("tournament_players"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_tournament_players_user_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["invited_by"], ["users.id"], name=op.f("fk_tournament_players_invited_by_users")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "user_id", name=op.f("pk_tournament_players")),
        sa.UniqueConstraint(
            "tournament_id", "number", name=op.f("uq_tournament_players_tournament_id_number")
        ),
    )
    op.create_index(op.f("ix_tournament_players_user_id"), "tournament_players", ["user_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("starts_at", UTC, nullable=False),
        sa.Column("started_at", UTC, nullable=True),
        _tournament_fk("tournament_rounds"),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_tournament_rounds")),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("absent", sa.JSON(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=True),
        _tournament_fk("tournament_tables"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_tournament_tables_table_id_tables")
        ),
        sa.PrimaryKeyConstraint(
            "tournament_id", "round", "number", name=op.f("pk_tournament_tables")
        ),
        sa.UniqueConstraint("table_id", name=op.f("uq_tournament_tables_table_id")),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_index(op.f("ix_tournament_players_user_id"), table_name="tournament_players")
    op.drop_table("tournament_players")
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_table("tournaments")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("is_director")
