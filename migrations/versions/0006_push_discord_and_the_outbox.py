"""push subscriptions, notification choices, Discord bridges and the durable outbox (issue 26)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28 08:14:23.767504
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.types

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("endpoint", sa.String(length=2048), nullable=False),
        sa.Column("p256dh", sa.String(length=200), nullable=False),
        sa.Column("auth", sa.String(length=100), nullable=False),
        sa.Column("device", sa.String(length=120), nullable=False),
        sa.Column("created_at", app.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_push_subscriptions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_subscriptions")),
        sa.UniqueConstraint("user_id", "endpoint", name=op.f("uq_push_subscriptions_user_id_endpoint")),
    )
    with op.batch_alter_table("push_subscriptions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_push_subscriptions_user_id"), ["user_id"], unique=False)

    op.create_table(
        "discord_bridges",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("webhook_url", sa.String(length=2048), nullable=False),
        sa.Column("post", sa.String(length=64), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("problem", sa.String(length=300), nullable=False),
        sa.Column("updated_at", app.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_discord_bridges_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_discord_bridges")),
    )
    op.create_table(
        "notify_choices",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("push", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_notify_choices_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_notify_choices_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "campaign_id", name=op.f("pk_notify_choices")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=True),
        sa.Column("subscription_id", sa.Integer(), nullable=True),
        sa.Column(
            "payload", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column("tag", sa.String(length=120), nullable=False),
        sa.Column("created_at", app.types.UTCDateTime(), nullable=False),
        sa.Column("due_at", app.types.UTCDateTime(), nullable=False),
        sa.Column("deadline_at", app.types.UTCDateTime(), nullable=False),
        sa.Column("lease_until", app.types.UTCDateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=300), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_outbox_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["subscription_id"],
            ["push_subscriptions.id"],
            name=op.f("fk_outbox_subscription_id_push_subscriptions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_campaign", ["channel", "campaign_id", "id"], unique=False)
        batch_op.create_index("ix_outbox_due", ["channel", "due_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_subscription_id"), ["subscription_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_subscription_id"))
        batch_op.drop_index("ix_outbox_due")
        batch_op.drop_index("ix_outbox_campaign")

    op.drop_table("outbox")
    op.drop_table("notify_choices")
    op.drop_table("discord_bridges")
    with op.batch_alter_table("push_subscriptions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_push_subscriptions_user_id"))

    op.drop_table("push_subscriptions")
