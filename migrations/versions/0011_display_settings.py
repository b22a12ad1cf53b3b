"""display settings (issue 37): motion, theme, text size, sound and vibration per account; the narrator's
"dice animation" switch per table

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07 18:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs with constant defaults (no batch: SQLite would rebuild `users`, and the rebuild's DROP
    # TABLE would cascade to every membership): each existing account gets the quiet choices.
    op.add_column("users", sa.Column("motion", sa.String(length=8), server_default="device", nullable=False))
    op.add_column("users", sa.Column("theme", sa.String(length=8), server_default="device", nullable=False))
    op.add_column("users", sa.Column("text_size", sa.Integer(), server_default=sa.text("100"), nullable=False))
    op.add_column("users", sa.Column("sound", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("users", sa.Column("vibration", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("campaigns", sa.Column("dice_animation", sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    op.drop_column("campaigns", "dice_animation")
    for column in ("vibration", "sound", "text_size", "theme", "motion"):
        op.drop_column("users", column)
