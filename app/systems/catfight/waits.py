"""Who the duel waits for: the cat whose move it is (notifications, app/notify)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.systems.catfight.models import DuelState
from app.systems.catfight.rules import duel as moves


def awaited(state: DuelState, participants: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    if state.over:
        return {}
    side = moves.to_move(state.stored())
    cid = next((p["character_id"] for p in participants if p.get("side") == side), None)
    return {} if cid is None else {cid: f"{state.round}-{state.phase}-{side}"}
