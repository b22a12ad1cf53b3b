"""Who is challenged to a duel and has not answered yet (RuleSystem.challenged): the campaign page offers them the
duel (templates/campaigns/table.html)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def challenged(state: Mapping[str, Any], participants: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    if state.get("phase") != "begin" or state.get("over"):
        return []
    return [p for p in participants if p.get("side") == "b"]
