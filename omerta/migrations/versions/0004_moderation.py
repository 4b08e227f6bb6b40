"""Moderation: technical-vote records and their ballots, player reports,
review cases, sanctions, and the append-only audit log (issue 6).

The audit log refuses UPDATE and DELETE at the database level, by trigger,
on both databases: the application never changes it, and a bug or a stray
statement cannot either.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC = sa.DateTime(timezone=True)
APPEND_ONLY = "the moderation audit log is append-only"

POSTGRES_TRIGGER = [
    f"""CREATE FUNCTION moderation_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '{APPEND_ONLY}: % refused', TG_OP;
        END $$""",
    """CREATE TRIGGER moderation_audit_append_only BEFORE UPDATE OR DELETE ON moderation_audit
        FOR EACH ROW EXECUTE FUNCTION moderation_audit_append_only()""",
]
SQLITE_TRIGGER = [
    f"""CREATE TRIGGER moderation_audit_no_{verb} BEFORE {verb.upper()} ON moderation_audit
        BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}: {verb.upper()} refused'); END"""
    for verb in ("update", "delete")
]


def _user_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], ["users.id"], name=op.f(f"fk_{table}_{column}_users"))


def upgrade() -> None:
    op.create_table(
        "tech_votes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("record_line", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("phase", sa.String(length=16), nullable=False),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("called_at", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=False),
        sa.Column("caller_seat", sa.Integer(), nullable=False),
        sa.Column("caller_id", sa.Integer(), nullable=True),
        sa.Column("target_seat", sa.Integer(), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=True),
        sa.Column("yes", sa.Integer(), nullable=False),
        sa.Column("voters", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("recorded_at", UTC, nullable=False),
        sa.CheckConstraint(
            "kind IN ('foul', 'defeat', 'removal')", name=op.f("ck_tech_votes_kind")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_tech_votes_table_id_tables")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_tech_votes_game_id_games")
        ),
        _user_fk("tech_votes", "caller_id"),
        _user_fk("tech_votes", "target_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tech_votes")),
        sa.UniqueConstraint(
            "table_id", "record_line", name=op.f("uq_tech_votes_table_id_record_line")
        ),
    )
    op.create_index(op.f("ix_tech_votes_game_id"), "tech_votes", ["game_id"])
    op.create_index(op.f("ix_tech_votes_target_id"), "tech_votes", ["target_id"])

    op.create_table(
        "tech_ballots",
        sa.Column("vote_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("yes", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["vote_id"],
            ["tech_votes.id"],
            name=op.f("fk_tech_ballots_vote_id_tech_votes"),
            ondelete="CASCADE",
        ),
        _user_fk("tech_ballots", "user_id"),
        sa.PrimaryKeyConstraint("vote_id", "seat", name=op.f("pk_tech_ballots")),
    )
    op.create_index(op.f("ix_tech_ballots_user_id"), "tech_ballots", ["user_id"])

    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("created_at", UTC, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_reports_game_id_games")),
        _user_fk("reports", "reporter_id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reports")),
        sa.UniqueConstraint("game_id", "reporter_id", name=op.f("uq_reports_game_id_reporter_id")),
    )

    op.create_table(
        "moderation_cases",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vote_id", sa.Integer(), nullable=True),
        sa.Column("report_id", sa.Integer(), nullable=True),
        sa.Column("opened_at", UTC, nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("decided_at", UTC, nullable=True),
        sa.Column("decided_by", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "(vote_id IS NULL) <> (report_id IS NULL)", name=op.f("ck_moderation_cases_one_subject")
        ),
        sa.CheckConstraint(
            "status IN ('open', 'upheld', 'overturned', 'dismissed')",
            name=op.f("ck_moderation_cases_status"),
        ),
        sa.ForeignKeyConstraint(
            ["vote_id"], ["tech_votes.id"], name=op.f("fk_moderation_cases_vote_id_tech_votes")
        ),
        sa.ForeignKeyConstraint(
            ["report_id"], ["reports.id"], name=op.f("fk_moderation_cases_report_id_reports")
        ),
        _user_fk("moderation_cases", "decided_by"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_cases")),
        sa.UniqueConstraint("vote_id", name=op.f("uq_moderation_cases_vote_id")),
        sa.UniqueConstraint("report_id", name=op.f("uq_moderation_cases_report_id")),
    )
    op.create_index(
        "ix_moderation_cases_status_opened_at", "moderation_cases", ["status", "opened_at"]
    )

    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("starts_at", UTC, nullable=False),
        sa.Column("ends_at", UTC, nullable=True),
        sa.Column("moderator_id", sa.Integer(), nullable=False),
        sa.Column("case_id", sa.Integer(), nullable=True),
        sa.Column("lifted_at", UTC, nullable=True),
        sa.Column("lifted_by", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "kind IN ('warning', 'suspension', 'ban')", name=op.f("ck_sanctions_kind")
        ),
        sa.CheckConstraint(
            "(kind = 'suspension') = (ends_at IS NOT NULL)", name=op.f("ck_sanctions_ends")
        ),
        _user_fk("sanctions", "user_id"),
        _user_fk("sanctions", "moderator_id"),
        _user_fk("sanctions", "lifted_by"),
        sa.ForeignKeyConstraint(
            ["case_id"], ["moderation_cases.id"], name=op.f("fk_sanctions_case_id_moderation_cases")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sanctions")),
    )
    op.create_index(op.f("ix_sanctions_user_id"), "sanctions", ["user_id"])

    op.create_table(
        "moderation_audit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", UTC, nullable=False),
        sa.Column("moderator_id", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("case_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        _user_fk("moderation_audit", "moderator_id"),
        _user_fk("moderation_audit", "user_id"),
        sa.ForeignKeyConstraint(
            ["case_id"],
            ["moderation_cases.id"],
            name=op.f("fk_moderation_audit_case_id_moderation_cases"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_audit")),
    )
    op.create_index(op.f("ix_moderation_audit_user_id"), "moderation_audit", ["user_id"])
    op.create_index(op.f("ix_moderation_audit_case_id"), "moderation_audit", ["case_id"])

    triggers = POSTGRES_TRIGGER if op.get_bind().dialect.name == "postgresql" else SQLITE_TRIGGER
    for statement in triggers:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER moderation_audit_append_only ON moderation_audit")
        op.execute("DROP FUNCTION moderation_audit_append_only()")
    else:
        for verb in ("update", "delete"):
            op.execute(f"DROP TRIGGER moderation_audit_no_{verb}")
    for table in (
        "moderation_audit",
        "sanctions",
        "moderation_cases",
        "reports",
        "tech_ballots",
        "tech_votes",
    ):
        op.drop_table(table)
