"""The cat fight's actions: a duel is an encounter (challenge creates it, every move is a step)."""

from __future__ import annotations

from typing import Any

from app.systems.base import Action
from app.systems.catfight import duel
from app.systems.catfight.sheet import CatSheet

ACTIONS: tuple[Action[CatSheet, Any], ...] = (
    Action(
        "challenge",
        "Challenge",
        duel.ChallengeParams,
        duel.resolve_challenge,
        involves=("opponent_id",),
        encounter="create",
        description="Start a duel with another cat.",
    ),
    Action(
        "move",
        "Move",
        duel.MoveParams,
        duel.resolve_move,
        encounter="step",
        description="The next move of a duel: begin, sneak, attack, defend, jump or flee.",
    ),
    Action(
        "call_off",
        "Call off the duel",
        duel.CallOffParams,
        duel.resolve_call_off,
        encounter="step",
        narrator_only=True,
        needs_character=False,
    ),
    Action(
        "settings",
        "Regeneration time",
        duel.SettingsParams,
        duel.resolve_settings,
        narrator_only=True,
        needs_character=False,
    ),
    Action("heal", "Heal", duel.HealParams, duel.resolve_heal, narrator_only=True),
)
