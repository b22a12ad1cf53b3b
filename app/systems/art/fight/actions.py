"""The actions of a combat round (the package's modules), declared once; art/actions.py lists them among the ART
Engine's ACTIONS."""

from __future__ import annotations

from typing import Any

from app.systems.art.sheet import ArtSheet
from app.systems.base import Action

from . import (
    aoe,
    attacks,
    defense,
    foe_moves,
    free,
    fumbles,
    gear,
    grapple,
    grapple_hit,
    moves,
    options,
    perks,
    ruses,
    setup,
    turns,
)

COMBAT_ACTIONS: tuple[Action[ArtSheet, Any], ...] = (
    Action(
        "combat_setup",
        "Set up a combat",
        setup.SetupParams,
        setup.resolve_setup,
        needs_character=False,
        narrator_only=True,
        involves=("adventurers", "foes"),
        encounter="create",
        description="Adventurers and foes on the range track; initiative next.",
    ),
    Action(
        "combat_initiative",
        "Roll initiative",
        turns.InitiativeParams,
        turns.resolve_initiative,
        odds=turns.initiative_odds,
        encounter="step",
    ),
    Action("combat_wait", "Wait", turns.WaitParams, turns.resolve_wait, encounter="step"),
    Action("combat_end_turn", "End the turn", turns.EndTurnParams, turns.resolve_end_turn, encounter="step"),
    Action(
        "combat_free_action",
        "Free action",
        turns.FreeActionParams,
        turns.resolve_free_action,
        odds=turns.free_action_odds,
        encounter="step",
    ),
    Action("combat_arm", "Take up a starting weapon", gear.ArmParams, gear.resolve_arm, encounter="step"),
    Action(
        "combat_move_roll",
        "Roll to move",
        moves.MoveRollParams,
        moves.resolve_move_roll,
        odds=moves.move_roll_odds,
        encounter="step",
    ),
    Action("combat_move", "Move", moves.MoveParams, moves.resolve_move, encounter="step"),
    Action("combat_sneak", "Sneak", moves.SneakParams, moves.resolve_sneak, odds=moves.sneak_odds, encounter="step"),
    Action(
        "combat_foe_move",
        "Move a foe",
        foe_moves.FoeMoveParams,
        foe_moves.resolve_foe_move,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_stop",
        "Stop the foe",
        foe_moves.StopParams,
        foe_moves.resolve_stop,
        odds=foe_moves.stop_odds,
        encounter="step",
    ),
    Action(
        "combat_attack",
        "Attack",
        attacks.AttackParams,
        attacks.resolve_attack,
        odds=gear.attack_odds_in_reach,
        encounter="step",
    ),
    Action(
        "combat_foe_attack",
        "A foe attacks",
        attacks.FoeAttackParams,
        attacks.resolve_foe_attack,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_defend",
        "Defense roll",
        defense.DefendParams,
        defense.resolve_defend,
        odds=defense.defend_odds,
        encounter="step",
    ),
    Action(
        "combat_parry", "Parry", defense.ParryParams, defense.resolve_parry, odds=defense.parry_odds, encounter="step"
    ),
    Action("combat_take", "Take the damage", defense.TakeParams, defense.resolve_take, encounter="step"),
    Action(
        "combat_dodge", "Dodge", options.DodgeParams, options.resolve_dodge, odds=options.dodge_odds, encounter="step"
    ),
    Action(
        "combat_fumble",
        "Roll on the Fumble table",
        fumbles.FumbleParams,
        fumbles.resolve_fumble,
        odds=fumbles.fumble_odds,
        encounter="step",
    ),
    Action("combat_aoe", "AOE attack", aoe.AoeParams, aoe.resolve_aoe, odds=aoe.aoe_odds, encounter="step"),
    Action(
        "combat_foe_aoe",
        "A foe's AOE attack",
        aoe.FoeAoeParams,
        aoe.resolve_foe_aoe,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_aoe_fate",
        "Fate against a blast",
        aoe.AoeFateParams,
        aoe.resolve_aoe_fate,
        odds=aoe.aoe_fate_odds,
        encounter="step",
    ),
    Action("combat_prone", "Fall prone", aoe.ProneParams, aoe.resolve_prone, encounter="step"),
    Action("combat_aoe_hit", "Who is hit", aoe.AoeHitParams, aoe.resolve_aoe_hit, encounter="step"),
    Action(
        "combat_maneuver",
        "Combat option",
        options.ManeuverParams,
        options.resolve_maneuver,
        odds=options.maneuver_odds,
        encounter="step",
    ),
    Action("combat_aim", "Aim", options.AimParams, options.resolve_aim, encounter="step"),
    Action(
        "combat_protect",
        "Protect a companion",
        ruses.ProtectParams,
        ruses.resolve_protect,
        odds=ruses.protect_odds,
        encounter="step",
        description="Jump in front of a companion a foe attacks (Agility, Passable or better).",
    ),
    Action(
        "combat_play_dead",
        "Play dead",
        ruses.PlayDeadParams,
        ruses.resolve_play_dead,
        odds=ruses.play_dead_odds,
        encounter="step",
        description="Hit: pretend the wounds are fatal (Cunning against the foes' Intelligence and Alertness).",
    ),
    Action(
        "combat_place",
        "Place a token",
        turns.PlaceParams,
        turns.resolve_place,
        needs_character=False,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_end",
        "End the combat",
        turns.EndCombatParams,
        turns.resolve_end_combat,
        needs_character=False,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_initiative_setting",
        "Simplified initiative",
        turns.InitiativeSettingParams,
        turns.resolve_initiative_setting,
        needs_character=False,
        narrator_only=True,
    ),
    # kicker-triggered perks (fight/perks.py)
    Action(
        "combat_perk_choose", "Choose the perk", perks.PerkChooseParams, perks.resolve_perk_choose, encounter="step"
    ),
    Action(
        "combat_free_attack",
        "Free attack",
        free.FreeAttackParams,
        free.resolve_free_attack,
        odds=free.free_attack_odds,
        encounter="step",
    ),
    # grapples (fight/grapple.py)
    Action(
        "combat_grapple_hit",
        "Choose who is hit in the grapple",
        grapple_hit.GrappleHitParams,
        grapple_hit.resolve_grapple_hit,
        encounter="step",
    ),
    Action(
        "combat_grapple_join",
        "Join the grapple",
        grapple.GrappleJoinParams,
        grapple.resolve_grapple_join,
        encounter="step",
    ),
)
