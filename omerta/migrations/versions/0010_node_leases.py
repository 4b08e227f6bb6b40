"""Tables spread over several server processes (issue 17): the nodes that
serve, and each live table's lease, held by one node at a time and fenced
by a token the database checks on every record write.

Times are seconds since 1970 by the database's own clock
(omerta/store/leases.py, `db_time`): no node's clock decides who owns a table.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "nodes",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("url", sa.String(length=200), nullable=True),
        sa.Column("seen", sa.Float(), nullable=False),
        sa.Column("draining", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_nodes")),
    )
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("node", sa.String(length=64), nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
        sa.Column("handoff_t", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name=op.f("fk_table_leases_table_id_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_leases")),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
    op.drop_table("nodes")
