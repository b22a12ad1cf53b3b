"""Who an ART combat waits for: the fighter whose turn it is (notifications, app/notify)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.systems.art.fight.models import CombatState
from app.systems.art.fight.state import on_turn


def awaited(state: CombatState, participants: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    fighter = on_turn(state)
    return {} if fighter is None else {int(fighter): f"round-{state.round}"}
