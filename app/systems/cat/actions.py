"""The Cat's actions: a cat's own (play.py, scars.py), the narrator's table tools (table.py), fights (brawls.py; the
cat-fight duel is the catfight system)."""

from __future__ import annotations

from typing import Any

from app.systems.base import Action
from app.systems.cat import brawls, play, scars, table
from app.systems.cat.sheet import CatSheet

ACTIONS: tuple[Action[CatSheet, Any], ...] = (
    Action("test_fate", "Test fate", play.TestFate, play.resolve_test_fate, odds=play.fate_odds),
    Action("edit_scene", "Edit the scene with Style", play.EditScene, play.resolve_edit_scene),
    Action("place_scars", "Place scars", scars.PlaceScars, scars.resolve_place_scars),
    Action("dodge_with_life", "Spend a Life to dodge the scars", scars.DodgeWithLife, scars.resolve_dodge_with_life),
    Action("propose_reputation", "Propose a Reputation", play.ProposeReputation, play.resolve_propose),
    Action("heal_first", "Choose what heals first", scars.HealFirst, scars.resolve_heal_first),
    Action("notes", "Save notes", play.Notes, play.resolve_notes),
    Action("move_scar", "Move a scar", scars.MoveScar, scars.resolve_move_scar, narrator_only=True),
    Action(
        "grant_advantage", "Grant Advantage Dice", play.GrantAdvantage, play.resolve_grant_advantage, narrator_only=True
    ),
    Action(
        "approve_reputation",
        "Approve a Reputation for the scene",
        play.ApproveReputation,
        play.resolve_approve,
        narrator_only=True,
    ),
    Action(
        "clear_approvals",
        "Clear Reputation approvals",
        play.ClearApprovals,
        play.resolve_clear_approvals,
        narrator_only=True,
    ),
    Action("dock_reputation", "Dock a Reputation point", table.DockReputation, table.resolve_dock, narrator_only=True),
    Action(
        "restore_reputation",
        "Restore a docked Reputation",
        table.RestoreReputation,
        table.resolve_restore,
        narrator_only=True,
    ),
    Action(
        "gift_reputation",
        "Give a new Reputation",
        table.GiftReputation,
        table.resolve_gift,
        narrator_only=True,
        involves=("recipient_id",),
    ),
    Action(
        "advance_time",
        "Advance game time",
        table.AdvanceTime,
        table.resolve_advance_time,
        narrator_only=True,
        needs_character=False,
        involves=("cat_ids",),
    ),
    Action(
        "settings", "Cat settings", table.Settings, table.resolve_settings, narrator_only=True, needs_character=False
    ),
    Action(
        "challenge",
        "Challenge a cat",
        brawls.Challenge,
        brawls.resolve_challenge,
        involves=("opponent_id",),
        encounter="create",
    ),
    Action(
        "answer",
        "Answer the challenge",
        brawls.Answer,
        brawls.resolve_answer,
        involves=("opponent_id",),
        encounter="step",
    ),
    Action(
        "start_foe_fight",
        "Attack a cat with this foe",
        brawls.StartFoeFight,
        brawls.resolve_start_foe_fight,
        narrator_only=True,
        involves=("cat_id",),
        encounter="create",
    ),
    Action(
        "foe_round", "Fight a round", brawls.FoeRound, brawls.resolve_foe_round, involves=("foe_id",), encounter="step"
    ),
    Action("end_fight", "End the fight", brawls.EndFight, brawls.resolve_end_fight, encounter="step"),
)
