"""A log entry's summary as an English reader sees it (entries store it language-neutral: app.i18n.msg)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import i18n


def said(body: Mapping[str, Any] | None, locale: str = "en") -> str:
    """`body`: an entry's body, or an entry as the API returns it."""
    return i18n.log_line(body, locale)
