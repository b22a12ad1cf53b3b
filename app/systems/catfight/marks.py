"""What the log line flags beside a cat-fight step (RuleSystem.result_marks; app/rolls/faces.py): a confirmed
6-6 or 5-5 (the rules' _CRITICALS) is a critical; the step's events carry it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_FIGHT_CRITICALS = frozenset(
    {"critical_hit", "critical_goof", "lucky_fate", "unlucky_cat", "escape", "stumble", "caught", "injured"}
)


def result_marks(outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    events = outcome.get("events")
    found = isinstance(events, list) and any(
        isinstance(e, dict) and e.get("result") in _FIGHT_CRITICALS for e in events
    )
    return [{"mark": "critical"}] if found else []
