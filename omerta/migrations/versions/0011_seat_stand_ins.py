"""A bot seat that plays for an absent tournament player says so (A1).

The engine decides whether a table is ranked; a tournament table whose only
bots stand in for absentees stays ranked, so the seats carry `stands_in`
and the record's header names those seats (docs/scripts.md, `stand_ins`).
Tables started before this revision have their header already: they keep
it, and are judged as they were written.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(
            sa.Column("stands_in", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("stands_in")
