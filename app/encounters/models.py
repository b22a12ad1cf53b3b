from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.types import JSONType, UTCDateTime, utcnow


class Encounter(Base):
    """A stored, turn-based encounter (a duel, a combat round, a conflict): a versioned state that only the
    rules service changes, one log entry per step. `participants` lists {character_id, side, name}."""

    __tablename__ = "encounters"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    system: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(120), default="")
    participants: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    state: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    # Every step is "UPDATE … WHERE version = :seen": of two racing taps, one wins; the other is told
    # the move was already resolved.
    version: Mapped[int] = mapped_column(default=1)
    status: Mapped[str] = mapped_column(String(16), default="active")  # active | over
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
