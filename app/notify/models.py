"""Push subscriptions, per-campaign notification choices, Discord bridges and the durable outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.types import JSONType, UTCDateTime, utcnow


class PushSubscription(Base):
    """One device's Web Push subscription (the browser's PushSubscription: endpoint and keys)."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (UniqueConstraint("user_id", "endpoint"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(2048))
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(100))
    # What the device called itself when it subscribed (the account page lists devices by it).
    device: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class NotifyChoice(Base):
    """A member's choice for one campaign: everything that waits for me (the default, no row) or nothing."""

    __tablename__ = "notify_choices"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True)
    push: Mapped[bool] = mapped_column(Boolean, default=True)


class DiscordBridge(Base):
    """A campaign's Discord webhook: which public entries it posts, and whether it still works."""

    __tablename__ = "discord_bridges"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True)
    webhook_url: Mapped[str] = mapped_column(String(2048))
    # Comma-separated: rolls, talk, sessions (a LIKE in the outbox INSERT … SELECT picks the entries).
    post: Mapped[str] = mapped_column(String(64))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    problem: Mapped[str] = mapped_column(String(300), default="")
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class OutboxItem(Base):
    """A delivery due: written in the same transaction as its cause, sent after the commit by the sender
    (app/notify/outbox.py), deleted once delivered. `lease_until` marks a claimed row; a sender that dies
    mid-send leaves the lease to expire and the row is sent again (at least once; `tag` lets a device show one)."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_due", "channel", "due_at"),
        Index("ix_outbox_campaign", "channel", "campaign_id", "id"),
        NEVER_REUSED,
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    channel: Mapped[str] = mapped_column(String(16))  # push | discord
    campaign_id: Mapped[int | None] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), default=None)
    subscription_id: Mapped[int | None] = mapped_column(
        ForeignKey("push_subscriptions.id", ondelete="CASCADE"), default=None, index=True
    )
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    tag: Mapped[str] = mapped_column(String(120), default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    deadline_at: Mapped[datetime] = mapped_column(UTCDateTime())
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    attempts: Mapped[int] = mapped_column(default=0)
    last_error: Mapped[str] = mapped_column(String(300), default="")
