from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint, true
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.types import JSONType, UTCDateTime, utcnow

GENESIS_HASH = "0" * 64


class Campaign(Base):
    __tablename__ = "campaigns"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    systems: Mapped[list[str]] = mapped_column(JSONType, default=list)
    language: Mapped[str] = mapped_column(String(10), default="en")
    settings: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # The log's head. Every append bumps it inside the appending transaction: that row lock is what
    # makes seq gapless and the chain linear under concurrent writers, on SQLite and PostgreSQL alike.
    last_seq: Mapped[int] = mapped_column(default=0)
    head_hash: Mapped[str] = mapped_column(String(64), default=GENESIS_HASH)
    # The narrator's switch for the whole table: dice shown without their short animation (e.g. during a fight).
    dice_animation: Mapped[bool] = mapped_column(default=True, server_default=true())


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(16))  # "narrator" | "player"
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Invite(Base):
    __tablename__ = "invites"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    code: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    max_uses: Mapped[int | None] = mapped_column(default=None)
    uses: Mapped[int] = mapped_column(default=0)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class GameSession(Base):
    """A play night. Every log entry records the one that was running when it was written."""

    __tablename__ = "game_sessions"
    __table_args__ = (UniqueConstraint("campaign_id", "number"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column()
    title: Mapped[str] = mapped_column(String(120), default="")
    started_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
