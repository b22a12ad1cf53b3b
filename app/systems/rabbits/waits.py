"""Who a conflict waits for (notifications, app/notify): each team's captain for its disposition, every member of
a team still scripting (any of them may script), the rabbit who rolls an action, and one whose roll waits for Fate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.systems.rabbits.conflict.exchange import exchanges
from app.systems.rabbits.conflict.models import conflict_state
from app.systems.rabbits.conflict.state import in_front


def awaited(encounter: Mapping[str, Any]) -> dict[int, str]:
    if encounter["kind"] != "conflict":
        return {}
    state = conflict_state(encounter["state"])  # the stored JSON, or the model a step just made
    phase, volley = state.phase, state.volley
    waits: dict[int, str] = {}
    for key, team in state.teams.items():
        if phase == "disposition" and team.start is None and team.roll is None:
            waits[team.captain] = "disposition"
        elif phase == "script" and not team.locked and in_front(state, key):
            waits.update(dict.fromkeys(team.members, f"script-{volley}"))
    current = state.current
    if phase == "resolve" and current:
        for ex in exchanges(current):
            for team, side in ex["sides"].items():
                roll = ex["rolls"].get(team)
                if roll is None and side.get("tests"):
                    waits[side["member"]] = f"roll-{volley}-{state.index}"
                elif roll is not None and roll.get("fate"):
                    waits[roll["member"]] = f"fate-{volley}-{state.index}"
    return waits
