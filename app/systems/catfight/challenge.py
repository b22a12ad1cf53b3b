"""Who is challenged to a duel and has not answered yet (the "duel" kind's `challenged`): the campaign page offers
them the duel in this system's words (templates/_challenge.html)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.systems.catfight.models import DuelState


def challenged(state: DuelState, participants: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    if state.phase != "begin" or state.over:
        return []
    return [p for p in participants if p.get("side") == "b"]
