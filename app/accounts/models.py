from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, false, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.types import UTCDateTime, utcnow


class User(Base):
    __tablename__ = "users"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(40))
    # Lower-cased, so "Anna" and "anna" are one account.
    username_key: Mapped[str] = mapped_column(String(40), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    locale: Mapped[str | None] = mapped_column(String(10), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # A confirmed address (set only through a link sent to it): where a password reset is sent.
    email: Mapped[str | None] = mapped_column(String(254), default=None)
    # How the pages look and move for this account (app/accounts/display.py; docs/ACCESSIBILITY.md). The server
    # defaults keep rows made before migration 0011 on the quiet choices: follow the device, no sound, no buzz.
    motion: Mapped[str] = mapped_column(String(8), default="device", server_default="device")
    theme: Mapped[str] = mapped_column(String(8), default="device", server_default="device")
    text_size: Mapped[int] = mapped_column(Integer, default=100, server_default=text("100"))
    sound: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    vibration: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class AccountToken(Base):
    """A single-use, short-lived link: a password reset, or the confirmation of a new e-mail address. Only the
    SHA-256 of the token is stored; `used_at` makes it single-use."""

    __tablename__ = "account_tokens"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(String(16))  # reset | email
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    email: Mapped[str | None] = mapped_column(String(254), default=None)  # the address a confirmation confirms
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class LoginSession(Base):
    """A signed-in browser. The cookie carries its random id; signing out deletes the row."""

    __tablename__ = "login_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ApiToken(Base):
    __tablename__ = "api_tokens"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    # SHA-256 of the token; the token itself is shown once, at creation.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class AuthCounter(Base):
    """One throttle counter (app/accounts/throttle.py): a key such as "signin:pair:anna|127.0.0.1", how many
    attempts it has had since its window opened, and when the window closes. Bumped by one atomic
    INSERT … ON CONFLICT DO UPDATE … RETURNING, so concurrent requests in any process count exactly."""

    __tablename__ = "auth_counters"

    key: Mapped[str] = mapped_column(String(160), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
