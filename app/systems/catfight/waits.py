"""Who the duel waits for: the cat whose move it is (notifications, app/notify)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.systems.catfight.rules import duel as moves


def awaited(encounter: Mapping[str, Any]) -> dict[int, str]:
    state = encounter["state"]
    if state.get("over"):
        return {}
    side = moves.to_move(state)
    cid = next((p["character_id"] for p in encounter["participants"] if p.get("side") == side), None)
    return {} if cid is None else {cid: f"{state.get('round')}-{state.get('phase')}-{side}"}
