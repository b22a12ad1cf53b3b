"""The generic roller's actions."""

from __future__ import annotations

from typing import Any

from app.i18n import N_
from app.systems.base import Action
from app.systems.dice import roll
from app.systems.dice.sheet import DiceSheet

ACTIONS: tuple[Action[DiceSheet, Any], ...] = (
    Action(
        "roll",
        N_("Roll dice"),
        roll.RollParams,
        roll.resolve_roll,
        odds=roll.roll_odds,
        needs_character=False,
        changes_nothing=True,
    ),
)
