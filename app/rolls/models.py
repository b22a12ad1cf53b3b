from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.i18n import _
from app.types import JSONType, UTCDateTime, utcnow


class LogEntry(Base):
    """One append-only, hash-chained log entry. Rows are inserted, never updated or deleted."""

    __tablename__ = "log_entries"
    __table_args__ = (
        UniqueConstraint("campaign_id", "seq"),
        UniqueConstraint("campaign_id", "actor_id", "idempotency_key"),
        Index("ix_log_entries_campaign_target", "campaign_id", "target_seq"),
        # The log's filters and a sheet's recent entries (app/rolls/log.py, LogFilter): one range scan each.
        Index("ix_log_entries_campaign_character", "campaign_id", "character_id", "seq"),
        Index("ix_log_entries_campaign_actor", "campaign_id", "actor_id", "seq"),
        Index("ix_log_entries_campaign_session", "campaign_id", "game_session_id", "seq"),
        Index("ix_log_entries_campaign_system", "campaign_id", "system", "seq"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # NULL only for an entry without an author (an X-card, app/between/safety.py): nobody's name, anywhere.
    actor_name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    character_id: Mapped[int | None] = mapped_column(ForeignKey("characters.id", ondelete="SET NULL"))
    game_session_id: Mapped[int | None] = mapped_column(ForeignKey("game_sessions.id", ondelete="SET NULL"))
    kind: Mapped[str] = mapped_column(String(16))  # action | void | reveal | adjust | session
    system: Mapped[str] = mapped_column(String(32))
    action: Mapped[str] = mapped_column(String(64))
    visibility: Mapped[str] = mapped_column(String(16))
    target_seq: Mapped[int | None] = mapped_column(default=None)
    body: Mapped[dict[str, Any]] = mapped_column(JSONType)
    salt: Mapped[str] = mapped_column(String(32))
    body_hash: Mapped[str] = mapped_column(String(64))
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    idempotency_key: Mapped[str | None] = mapped_column(String(100), default=None)
    # SHA-256 of the request that came with the idempotency key: a reuse with another request is refused.
    request_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    # Whom a correction is about (a void's or reveal's target entry's actor): they see it as its actor would.
    subject_id: Mapped[int | None] = mapped_column(default=None)

    @property
    def shown_actor(self) -> str:
        """The author as pages show them: their name, or "a former member" once their account is deleted (the
        name stays in the hashed header and the export: the chain covers it; docs/TRUST.md)."""
        if self.actor_name is None:
            return _("Someone at the table")
        return self.actor_name if self.actor_id is not None else _("a former member")

    def header(self) -> dict[str, Any]:
        """What every member sees of this entry, hidden or not; all of it is in the hash (chain.HEADER_FIELDS)."""
        return {
            "seq": self.seq,
            "created_at": self.created_at.isoformat(),
            "actor": self.actor_name,
            # The column is cleared when the author's account is deleted; the hashed body keeps the id it had.
            "actor_id": self.actor_id if self.actor_id is not None else self.body.get("actor_id"),
            "character_id": self.character_id,
            "system": self.system,
            "action": self.action,
            "kind": self.kind,
            "visibility": self.visibility,
            "target_seq": self.target_seq,
            "subject_id": self.subject_id,
        }


class RollPrompt(Base):
    """The narrator calls for a roll: the parameters in `locked` cannot be changed by the player."""

    __tablename__ = "roll_prompts"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"), index=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    system: Mapped[str] = mapped_column(String(32))
    action: Mapped[str] = mapped_column(String(64))
    locked: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    visibility: Mapped[str] = mapped_column(String(16), default="public")
    note: Mapped[str] = mapped_column(String(500), default="")
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | done | cancelled
    entry_seq: Mapped[int | None] = mapped_column(default=None)
