from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.types import JSONType, UTCDateTime, utcnow


class Character(Base):
    __tablename__ = "characters"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    system: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(16), default="pc")  # "pc" | "npc" (narrator's foes and extras)
    sheet: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    # Optimistic concurrency: every sheet write is "UPDATE … WHERE version = :seen".
    version: Mapped[int] = mapped_column(default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
