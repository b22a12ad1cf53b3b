"""Who an ART combat waits for: the fighter whose turn it is (notifications, app/notify)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.systems.art.fight.state import combat_state, on_turn


def awaited(encounter: Mapping[str, Any]) -> dict[int, str]:
    if encounter["kind"] != "combat":
        return {}
    state = combat_state(encounter["state"])
    fighter = on_turn(state)
    return {} if fighter is None else {int(fighter): f"round-{state.round}"}
