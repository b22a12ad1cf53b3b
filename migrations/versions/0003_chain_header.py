"""chain header: the hash covers every displayed field; idempotency request hash; correction subjects

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 05:00:00

Adds log_entries.request_hash and log_entries.subject_id, then re-links every campaign's chain with the
fateboard-log/2 formula (the header — seq, time, actor, kind, system, action, character, visibility,
target, subject — is hashed with the body hash) and moves each campaign's head_hash. The hashing is written
out here (not imported from app/) so this migration means the same thing whatever the code becomes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

GENESIS = "0" * 64


def _v2(prev: str, row: sa.Row[Any]) -> str:
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    header = {
        "seq": row.seq,
        "created_at": created.isoformat(),
        "actor": row.actor_name,
        "actor_id": row.actor_id,
        "character_id": row.character_id,
        "system": row.system,
        "action": row.action,
        "kind": row.kind,
        "visibility": row.visibility,
        "target_seq": row.target_seq,
        "subject_id": None,
        "body_hash": row.body_hash,
    }
    material = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(prev.encode("ascii") + b"\n" + material).hexdigest()


def _v1(prev: str, row: sa.Row[Any]) -> str:
    return hashlib.sha256(f"{prev}\n{row.seq}\n{row.visibility}\n{row.body_hash}".encode("ascii")).hexdigest()


def _relink(link: Callable[[str, sa.Row[Any]], str]) -> None:
    bind = op.get_bind()
    entries = sa.table(
        "log_entries",
        sa.column("id"),
        sa.column("campaign_id"),
        sa.column("seq"),
        sa.column("created_at", sa.DateTime()),
        sa.column("actor_name"),
        sa.column("actor_id"),
        sa.column("character_id"),
        sa.column("system"),
        sa.column("action"),
        sa.column("kind"),
        sa.column("visibility"),
        sa.column("target_seq"),
        sa.column("body_hash"),
        sa.column("prev_hash"),
        sa.column("hash"),
    )
    campaigns = sa.table("campaigns", sa.column("id"), sa.column("head_hash"))
    for (campaign_id,) in bind.execute(sa.select(campaigns.c.id)).all():
        prev = GENESIS
        rows = bind.execute(
            sa.select(entries).where(entries.c.campaign_id == campaign_id).order_by(entries.c.seq)
        ).all()
        for row in rows:
            digest = link(prev, row)
            bind.execute(sa.update(entries).where(entries.c.id == row.id).values(prev_hash=prev, hash=digest))
            prev = digest
        bind.execute(sa.update(campaigns).where(campaigns.c.id == campaign_id).values(head_hash=prev))


def upgrade() -> None:
    with op.batch_alter_table("log_entries") as batch:
        batch.add_column(sa.Column("request_hash", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("subject_id", sa.Integer(), nullable=True))
    _relink(_v2)


def downgrade() -> None:
    with op.batch_alter_table("log_entries") as batch:
        batch.drop_column("subject_id")
        batch.drop_column("request_hash")
    _relink(_v1)
