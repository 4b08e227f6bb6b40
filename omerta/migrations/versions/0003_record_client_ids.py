"""Client message ids beside the table records, so a WebSocket message
repeated after a server restart is still answered, never applied twice.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column: SQLite adds it in place, no table copy needed.
    with op.batch_alter_table("table_records") as batch:
        batch.add_column(sa.Column("client_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("table_records") as batch:
        batch.drop_column("client_id")
