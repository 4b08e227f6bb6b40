"""Ratings, coins and experience: player ratings, the side term, the
exactly-once ledger, per-game awards, the leaderboard snapshot, and the
forfeit flag on game players.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("game_players") as batch:
        batch.add_column(
            sa.Column("forfeit", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_table(
        "player_ratings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("coins", sa.Integer(), nullable=False),
        sa.Column("experience", sa.Integer(), nullable=False),
        sa.Column("last_game_at", UTC, nullable=True),
        sa.Column("inflated_at", UTC, nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_player_ratings_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_player_ratings")),
    )
    op.create_table(
        "rating_side",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_side")),
    )
    op.create_table(
        "rated_games",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("applied_at", UTC, nullable=False),
        sa.Column("voided_at", UTC, nullable=True),
        sa.Column("side_mu_change", sa.Float(), nullable=False),
        sa.Column("side_variance_change", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rated_games_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_rated_games")),
    )
    op.create_table(
        "game_awards",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("display_before", sa.Integer(), nullable=False),
        sa.Column("display_after", sa.Integer(), nullable=False),
        sa.Column("coins", sa.Integer(), nullable=False),
        sa.Column("experience", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_awards_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_game_awards_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "user_id", name=op.f("pk_game_awards")),
    )
    op.create_index(op.f("ix_game_awards_user_id"), "game_awards", ["user_id"])
    op.create_table(
        "leaderboard",
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=32), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("provisional", sa.Boolean(), nullable=False),
        sa.Column("refreshed_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_leaderboard_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("rank", name=op.f("pk_leaderboard")),
    )


def downgrade() -> None:
    for table in ("leaderboard", "game_awards", "rated_games", "rating_side", "player_ratings"):
        op.drop_table(table)
    with op.batch_alter_table("game_players") as batch:
        batch.drop_column("forfeit")
