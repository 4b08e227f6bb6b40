"""Each player's team, recorded when the game ends (issue 15): rating a
game then needs no ruleset to say who was black.

Games stored before this migration get their teams from their roles as
both rulesets assign them (docs/rules.md): don and mafia black, the maniac
his own team, everyone else red.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_players") as batch:
        batch.add_column(sa.Column("team", sa.String(length=16), nullable=True))
    op.execute(
        "UPDATE game_players SET team = CASE WHEN role IN ('don', 'mafia') THEN 'black'"
        " WHEN role = 'maniac' THEN 'maniac' ELSE 'red' END"
    )
    with op.batch_alter_table("game_players") as batch:
        batch.alter_column("team", existing_type=sa.String(length=16), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("game_players") as batch:
        batch.drop_column("team")
