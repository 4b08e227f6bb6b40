"""The rating model's fitted parameters, versioned (issue 20): `omerta
ratings fit` adds a row; games are rated with the newest.  No row: the
model's defaults.  And each player's rating before and after a replay of
the ranked games with a new version (`omerta ratings recompute`).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rating_params",
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sigma0", sa.Float(), nullable=False),
        sa.Column("tau", sa.Float(), nullable=False),
        sa.Column("side_sigma0", sa.Float(), nullable=False),
        sa.Column("side_tau", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("log_loss", sa.Float(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint("version", name=op.f("pk_rating_params")),
    )
    op.create_table(
        "rating_recomputes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("display_before", sa.Integer(), nullable=False),
        sa.Column("display_after", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_rating_recomputes_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_recomputes")),
    )
    op.create_index(op.f("ix_rating_recomputes_user_id"), "rating_recomputes", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_rating_recomputes_user_id"), table_name="rating_recomputes")
    op.drop_table("rating_recomputes")
    op.drop_table("rating_params")
