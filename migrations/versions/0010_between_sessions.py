"""between sessions (issue 36): read marks, planned sessions and answers, calendar feeds, lines and veils, the
anonymous counters and replays, digest choices; log_entries.actor_name may be NULL (an X-card has no author)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 15:27:39.279438
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.types

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "between_replays",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column(
            "answer", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column("expires_at", app.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_between_replays")),
    )
    with op.batch_alter_table("between_replays", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_between_replays_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "safety_counters",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", app.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_safety_counters")),
    )
    with op.batch_alter_table("safety_counters", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_safety_counters_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "calendar_feeds",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", app.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_calendar_feeds_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_calendar_feeds")),
        sa.UniqueConstraint("secret_hash", name=op.f("uq_calendar_feeds_secret_hash")),
    )
    op.create_table(
        "digest_choices",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("sent_at", app.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_digest_choices_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_digest_choices_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "campaign_id", name=op.f("pk_digest_choices")),
    )
    op.create_table(
        "planned_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", app.types.UTCDateTime(), nullable=False),
        sa.Column("duration_minutes", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=120), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", app.types.UTCDateTime(), nullable=False),
        sa.Column("reminded_24h_at", app.types.UTCDateTime(), nullable=True),
        sa.Column("reminded_1h_at", app.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_planned_sessions_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_planned_sessions_created_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_planned_sessions")),
        sqlite_autoincrement=True,  # ids never given out again (0009)
    )
    with op.batch_alter_table("planned_sessions", schema=None) as batch_op:
        batch_op.create_index("ix_planned_sessions_campaign_starts", ["campaign_id", "starts_at"], unique=False)

    op.create_table(
        "read_marks",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_read_marks_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_read_marks_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "campaign_id", name=op.f("pk_read_marks")),
    )
    op.create_table(
        "safety_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("text", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_safety_items_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_safety_items")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("safety_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_safety_items_campaign_id"), ["campaign_id"], unique=False)

    op.create_table(
        "rsvps",
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("answer", sa.String(length=8), nullable=False),
        sa.Column("answered_at", app.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["planned_sessions.id"],
            name=op.f("fk_rsvps_session_id_planned_sessions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_rsvps_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("session_id", "user_id", name=op.f("pk_rsvps")),
    )
    with op.batch_alter_table("log_entries", schema=None) as batch_op:
        batch_op.alter_column("actor_name", existing_type=sa.VARCHAR(length=40), nullable=True)


def downgrade() -> None:
    # An authorless entry (an X-card) gets an empty name back: its hashed header said null, so a downgraded
    # database's chain check reports those entries — a downgrade cannot keep what the old schema cannot hold.
    op.execute("UPDATE log_entries SET actor_name = '' WHERE actor_name IS NULL")
    with op.batch_alter_table("log_entries", schema=None) as batch_op:
        batch_op.alter_column("actor_name", existing_type=sa.VARCHAR(length=40), nullable=False)

    op.drop_table("rsvps")
    with op.batch_alter_table("safety_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_safety_items_campaign_id"))

    op.drop_table("safety_items")
    op.drop_table("read_marks")
    with op.batch_alter_table("planned_sessions", schema=None) as batch_op:
        batch_op.drop_index("ix_planned_sessions_campaign_starts")

    op.drop_table("planned_sessions")
    op.drop_table("digest_choices")
    op.drop_table("calendar_feeds")
    with op.batch_alter_table("safety_counters", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_safety_counters_expires_at"))

    op.drop_table("safety_counters")
    with op.batch_alter_table("between_replays", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_between_replays_expires_at"))

    op.drop_table("between_replays")
