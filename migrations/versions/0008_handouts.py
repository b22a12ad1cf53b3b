"""handouts: the library per campaign, whom each was shown to, the scene and its pins (issue 25)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28 08:16:29.972563
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.types

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "handouts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=120), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("fmt", sa.String(length=8), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column(
            "copies", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", app.types.UTCDateTime(), nullable=False),
        sa.Column("deleted_at", app.types.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_handouts_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_handouts_created_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_handouts")),
    )
    with op.batch_alter_table("handouts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_handouts_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index("ix_handouts_sha256", ["sha256"], unique=False)

    op.create_table(
        "handout_shows",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("handout_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", app.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["handout_id"], ["handouts.id"], name=op.f("fk_handout_shows_handout_id_handouts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_handout_shows_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_handout_shows")),
    )
    with op.batch_alter_table("handout_shows", schema=None) as batch_op:
        batch_op.create_index("ix_handout_shows_handout_user", ["handout_id", "user_id"], unique=False)

    op.create_table(
        "scene_pins",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("handout_id", sa.Integer(), nullable=False),
        sa.Column("x", sa.Float(), nullable=False),
        sa.Column("y", sa.Float(), nullable=False),
        sa.Column("label", sa.String(length=80), nullable=False),
        sa.Column("visible", sa.Boolean(), nullable=False),
        sa.Column("created_at", app.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_scene_pins_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["handout_id"], ["handouts.id"], name=op.f("fk_scene_pins_handout_id_handouts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scene_pins")),
    )
    with op.batch_alter_table("scene_pins", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_scene_pins_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_scene_pins_handout_id"), ["handout_id"], unique=False)

    op.create_table(
        "scenes",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("handout_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_scenes_campaign_id_campaigns"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["handout_id"], ["handouts.id"], name=op.f("fk_scenes_handout_id_handouts"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_scenes")),
    )


def downgrade() -> None:
    op.drop_table("scenes")
    with op.batch_alter_table("scene_pins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_scene_pins_handout_id"))
        batch_op.drop_index(batch_op.f("ix_scene_pins_campaign_id"))

    op.drop_table("scene_pins")
    with op.batch_alter_table("handout_shows", schema=None) as batch_op:
        batch_op.drop_index("ix_handout_shows_handout_user")

    op.drop_table("handout_shows")
    with op.batch_alter_table("handouts", schema=None) as batch_op:
        batch_op.drop_index("ix_handouts_sha256")
        batch_op.drop_index(batch_op.f("ix_handouts_campaign_id"))

    op.drop_table("handouts")
