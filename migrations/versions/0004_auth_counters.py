"""auth counters: one atomic counter per throttle key replaces one row per failed sign-in

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 04:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import app.types

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "auth_counters",
        sa.Column("key", sa.String(length=160), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", app.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_auth_counters")),
    )
    with op.batch_alter_table("auth_counters", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_auth_counters_expires_at"), ["expires_at"], unique=False)

    # The old rows are short-lived (15 minutes) failure records: dropping them forgets at most one window.
    with op.batch_alter_table("signin_failures", schema=None) as batch_op:
        batch_op.drop_index("ix_signin_failures_key_at")
    op.drop_table("signin_failures")


def downgrade() -> None:
    op.create_table(
        "signin_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=120), nullable=False),
        sa.Column("failed_at", app.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signin_failures")),
    )
    with op.batch_alter_table("signin_failures", schema=None) as batch_op:
        batch_op.create_index("ix_signin_failures_key_at", ["key", "failed_at"], unique=False)

    with op.batch_alter_table("auth_counters", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auth_counters_expires_at"))
    op.drop_table("auth_counters")
