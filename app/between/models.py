"""Read marks, scheduled sessions and their answers, calendar feeds, lines and veils, and the anonymous counters."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.types import JSONType, UTCDateTime, utcnow


class ReadMark(Base):
    """How far a member has read a campaign's log. Only ever moves forward (an UPDATE … WHERE seq < :new)."""

    __tablename__ = "read_marks"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, default=0)


class PlannedSession(Base):
    """A game session the narrators proposed: when (UTC), how long, and an optional title."""

    __tablename__ = "planned_sessions"
    __table_args__ = (Index("ix_planned_sessions_campaign_starts", "campaign_id", "starts_at"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime())
    duration_minutes: Mapped[int] = mapped_column(Integer, default=180)
    title: Mapped[str] = mapped_column(String(120), default="")
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # When each reminder was queued (app/between/reminders.py claims it with UPDATE … WHERE … IS NULL: once).
    reminded_24h_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    reminded_1h_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class Rsvp(Base):
    """One member's answer to a planned session: yes, maybe or no (a new answer replaces the old one)."""

    __tablename__ = "rsvps"

    session_id: Mapped[int] = mapped_column(ForeignKey("planned_sessions.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    answer: Mapped[str] = mapped_column(String(8))
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class CalendarFeed(Base):
    """A member's secret calendar URL: only the SHA-256 of its secret is kept; a new one replaces it."""

    __tablename__ = "calendar_feeds"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class SafetyItem(Base):
    """A line (never in the game) or a veil (off screen) of a campaign. Deliberately without an author and
    without a time: nothing here says who added it or when (docs/TRUST.md, "Safety tools")."""

    __tablename__ = "safety_items"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))  # line | veil
    text: Mapped[str] = mapped_column(String(200))


class Replay(Base):
    """The first answer to a write that came with an Idempotency-Key, until `expires_at`. `key` is a hash of who,
    where and the key — for the anonymous safety writes an HMAC under the server's secret that expires with the
    rate-limit window, so nothing lasting links them to their sender."""

    __tablename__ = "between_replays"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    answer: Mapped[dict[str, Any]] = mapped_column(JSONType)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class SafetyCounter(Base):
    """The safety tools' rate limit: a keyed hash of (campaign, member) — never the member — and how many plays it
    has had until `expires_at`. Expired rows are deleted at the next play."""

    __tablename__ = "safety_counters"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class DigestChoice(Base):
    """A member's opt-in to the daily digest of a campaign (an e-mail at most once a day while they are away)."""

    __tablename__ = "digest_choices"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
