"""REGENERATION (ruling 11): a cat that escaped keeps the server time of its escape (`escaped_at`) and regains
a point per `regen_minutes` (campaign setting) from then on; the points are counted when it next fights, and
shown on its sheet meanwhile."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from app.systems.catfight import rules as catfight

DEFAULT_REGEN_MINUTES = 5


def regen_seconds(settings: Mapping[str, Any]) -> int:
    minutes = settings.get("regen_minutes", DEFAULT_REGEN_MINUTES)
    return max(1, int(minutes if isinstance(minutes, int | float) else DEFAULT_REGEN_MINUTES)) * 60


def health_now(sheet: Mapping[str, Any], settings: Mapping[str, Any], now: float) -> int:
    """The health a cat has at `now`: a cat set aside after escaping regains points with time."""
    health = int(sheet.get("health", catfight.MAX_HEALTH))
    escaped_at = sheet.get("escaped_at")
    if escaped_at is None or sheet.get("fighting"):
        return health
    return catfight.regenerate(health, float(escaped_at), now, regen_seconds(settings))


def rest_view(
    sheet: Mapping[str, Any], settings: Mapping[str, Any] | None = None, now: float | None = None
) -> dict[str, Any]:
    """For the pages: health now, whether the cat is resting, and the minutes to its next point."""
    settings = settings or {}
    now = time.time() if now is None else now
    health = health_now(sheet, settings, now)
    resting = sheet.get("escaped_at") is not None and not sheet.get("fighting") and health < catfight.MAX_HEALTH
    next_in = None
    if resting:
        interval = regen_seconds(settings)
        elapsed = max(0.0, now - float(sheet["escaped_at"]))
        next_in = max(1, round((interval - elapsed % interval) / 60))
    return {
        "health": health,
        "max": catfight.MAX_HEALTH,
        "resting": resting,
        "next_in_minutes": next_in,
        "minutes": regen_seconds(settings) // 60,
        "knocked_out": health == 0 and not sheet.get("fighting"),
    }
