"""The generic roller's actions."""

from __future__ import annotations

from app.systems.base import Action
from app.systems.dice import roll

ACTIONS: tuple[Action, ...] = (
    Action("roll", "Roll dice", roll.RollParams, roll.resolve_roll, odds=roll.roll_odds, needs_character=False),
)
