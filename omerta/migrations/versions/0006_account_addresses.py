"""The addresses each account registered or signed in from (issue 12,
findings 6 and 7): logins from an account's known addresses are not held
to its per-account limit, and a banned account's recent addresses may not
register new accounts.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "account_addresses",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("first_seen", UTC, nullable=False),
        sa.Column("last_seen", UTC, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            ondelete="CASCADE",
            name=op.f("fk_account_addresses_user_id_users"),
        ),
        sa.PrimaryKeyConstraint("user_id", "address", name=op.f("pk_account_addresses")),
    )
    op.create_index(op.f("ix_account_addresses_address"), "account_addresses", ["address"])


def downgrade() -> None:
    op.drop_index(op.f("ix_account_addresses_address"), table_name="account_addresses")
    op.drop_table("account_addresses")
