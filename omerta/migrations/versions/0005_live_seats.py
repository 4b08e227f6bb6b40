"""One live seat per account, kept by the database (issue 12, finding 5).

A check in Python let concurrent sit requests on Postgres seat one account
at several tables. Seats now carry `live` (the table is open or playing)
and a partial unique index allows one live seat per user; a table's seats
stop being live when it ends.

Seats of ended tables are marked not live first. If an account already
holds several live seats (the old race), the seats at open tables beyond
one are removed, and at most one seat at a playing table stays live (a game
in progress keeps its players; the index protects from now on).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE = "tables.status IN ('open', 'playing')"


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("live", sa.Boolean(), server_default=sa.true(), nullable=False))
    op.execute(
        f"UPDATE seats SET live = false WHERE table_id IN"
        f" (SELECT id FROM tables WHERE NOT ({LIVE}))"
    )
    # Each account keeps the live seat at its lowest playing table, else at
    # its lowest open table.
    keep = (
        "SELECT s2.table_id FROM seats s2 JOIN tables t2 ON t2.id = s2.table_id"
        " WHERE s2.user_id = seats.user_id AND s2.live"
        " ORDER BY t2.status = 'open', s2.table_id LIMIT 1"
    )
    op.execute(
        f"DELETE FROM seats WHERE live AND user_id IS NOT NULL AND table_id <> ({keep})"
        f" AND table_id IN (SELECT id FROM tables WHERE status = 'open')"
    )
    op.execute(
        f"UPDATE seats SET live = false WHERE live AND user_id IS NOT NULL AND table_id <> ({keep})"
    )
    op.create_index(
        "uq_seats_user_id_live",
        "seats",
        ["user_id"],
        unique=True,
        sqlite_where=sa.text("live"),
        postgresql_where=sa.text("live"),
    )


def downgrade() -> None:
    op.drop_index("uq_seats_user_id_live", table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("live")
