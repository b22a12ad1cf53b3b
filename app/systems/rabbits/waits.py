"""Who a conflict waits for (notifications, app/notify): each team's captain for its disposition, every member of
a team still scripting (any of them may script), the rabbit who rolls an action, and one whose roll waits for Fate.
And its teams, for team talk (app/talk)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.systems.kinds import Team
from app.systems.rabbits.conflict.exchange import exchanges
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.state import in_front


def awaited(state: ConflictState, participants: Sequence[Mapping[str, Any]]) -> dict[int, str]:
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


def teams(state: ConflictState) -> list[Team]:
    """The conflict's teams, for team talk (app/talk): each team's players talk among themselves; a narrator-run
    team's narrators with them."""
    return [Team(key, team.name, tuple(team.members), team.narrator) for key, team in sorted(state.teams.items())]
