"""The generic roller's actions."""

from __future__ import annotations

from app.i18n import N_
from app.systems.base import Action
from app.systems.dice import roll

ACTIONS: tuple[Action, ...] = (
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
