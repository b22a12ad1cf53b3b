"""log filters: indexes (campaign, character | actor | session | system, seq) for the log's filters and a
sheet's recent entries

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 07:10:00
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

INDEXES = {
    "ix_log_entries_campaign_character": ["campaign_id", "character_id", "seq"],
    "ix_log_entries_campaign_actor": ["campaign_id", "actor_id", "seq"],
    "ix_log_entries_campaign_session": ["campaign_id", "game_session_id", "seq"],
    "ix_log_entries_campaign_system": ["campaign_id", "system", "seq"],
}


def upgrade() -> None:
    with op.batch_alter_table("log_entries", schema=None) as batch_op:
        for name, columns in INDEXES.items():
            batch_op.create_index(name, columns, unique=False)


def downgrade() -> None:
    with op.batch_alter_table("log_entries", schema=None) as batch_op:
        for name in INDEXES:
            batch_op.drop_index(name)
