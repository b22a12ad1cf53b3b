"""Handouts (pictures a narrator shows), whom each was shown to, the campaign's scene and its pins."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import NEVER_REUSED, Base
from app.types import JSONType, UTCDateTime, utcnow


class Handout(Base):
    """A picture in a campaign's library. Its bytes live in the MediaStore under `sha256` (of the stored bytes);
    `copies` lists the widths of its phone-sized copies. Deleting sets `deleted_at`: the picture is served to no
    one any more, and the log's entries naming it stay as they were."""

    __tablename__ = "handouts"
    __table_args__ = (Index("ix_handouts_sha256", "sha256"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(120))
    sha256: Mapped[str] = mapped_column(String(64))
    fmt: Mapped[str] = mapped_column(String(8))  # png | jpeg
    width: Mapped[int] = mapped_column()
    height: Mapped[int] = mapped_column()
    size: Mapped[int] = mapped_column()  # bytes of the stored picture
    copies: Mapped[list[int]] = mapped_column(JSONType, default=list)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class HandoutShow(Base):
    """A handout shown to one member (`user_id`) or to everyone (`user_id` NULL), by the log entry `entry_seq`."""

    __tablename__ = "handout_shows"
    __table_args__ = (Index("ix_handout_shows_handout_user", "handout_id", "user_id"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(primary_key=True)
    handout_id: Mapped[int] = mapped_column(ForeignKey("handouts.id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), default=None)
    entry_seq: Mapped[int] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Scene(Base):
    """The campaign's current scene picture (one row per campaign once a scene was ever set)."""

    __tablename__ = "scenes"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True)
    handout_id: Mapped[int | None] = mapped_column(ForeignKey("handouts.id", ondelete="SET NULL"), default=None)


class ScenePin(Base):
    """A named place on a scene picture: `x`, `y` in 0..1 of its width and height. A pin belongs to its picture,
    so a scene set again finds its pins where they were."""

    __tablename__ = "scene_pins"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    handout_id: Mapped[int] = mapped_column(ForeignKey("handouts.id", ondelete="CASCADE"), index=True)
    x: Mapped[float] = mapped_column(Float)
    y: Mapped[float] = mapped_column(Float)
    label: Mapped[str] = mapped_column(String(80))
    visible: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
