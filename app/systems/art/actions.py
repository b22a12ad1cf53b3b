"""The ART Engine's actions: rolls (rolling.py, skirmish.py), their follow-ups, health, gear, advancement,
complex actions; the narrator's on the ART campaign page."""

from __future__ import annotations

from pydantic import BaseModel

from app.systems.base import Action

from . import advancement as adv
from . import complex as complex_
from . import creation, equipment, exploration, explore_track, fight, followups, health, rolling, skirmish
from . import fight_aoe as fx
from . import fight_attacks as fa
from . import fight_free as ff
from . import fight_gear as fgear
from . import fight_grapple as fg
from . import fight_grapple_hit as fgh
from . import fight_moves as fm
from . import fight_options as fo
from . import fight_perks as fp
from . import fight_ruses as fr
from . import fight_turns as ft


class _Nothing(BaseModel):
    pass


ACTIONS: tuple[Action, ...] = (
    Action(
        "roll_attributes",
        "Roll attributes",
        creation.RollAttributesParams,
        creation.resolve_roll_attributes,
        description="Random method: 2d6 for each attribute, assigned as rolled.",
    ),
    Action(
        "trait_roll",
        "Trait roll",
        rolling.TraitRollParams,
        rolling.resolve_trait_roll,
        odds=rolling.trait_roll_odds,
        involves=("opponent_id", "helper_id"),
    ),
    Action(
        "defend",
        "Defense roll",
        skirmish.DefendParams,
        skirmish.resolve_defend,
        odds=skirmish.defend_odds,
        involves=("opponent_id",),
    ),
    Action(
        "attack",
        "Attack",
        skirmish.AttackParams,
        skirmish.resolve_attack,
        odds=skirmish.attack_odds,
        involves=("opponent_id",),
    ),
    Action(
        "henchman_roll",
        "Roll for a henchman",
        rolling.HenchmanParams,
        rolling.resolve_henchman_roll,
        involves=("henchman_id",),
    ),
    Action(
        "start_complex",
        "Start a complex action",
        complex_.StartComplexParams,
        complex_.resolve_start_complex,
        description="A preset number of trait rolls; each step's successes or failures carry to the next.",
    ),
    Action("end_complex", "Abandon the complex action", complex_.EndComplexParams, complex_.resolve_end_complex),
    Action(
        "fame_after",
        "Spend Fame after rolling",
        followups.FameAfterParams,
        followups.resolve_fame_after,
        involves=("opponent_id",),
    ),
    Action("inspire", "Take the inspiration", followups.InspireParams, followups.resolve_inspire),
    Action("take_damage", "Take damage", health.TakeDamageParams, health.resolve_take_damage),
    Action("first_aid", "First aid", health.FirstAidParams, health.resolve_first_aid, involves=("patient_id",)),
    Action("rest", "Rest and heal", health.RestParams, health.resolve_rest),
    Action("med_kit", "Use a med-kit", health.MedKitParams, health.resolve_med_kit, involves=("patient_id",)),
    Action("fatigue", "Fatigue", health.FatigueParams, health.resolve_fatigue),
    Action(
        "sustained_damage",
        "Sustained damage: next round",
        health.SustainedDamageParams,
        health.resolve_sustained_damage,
        narrator_only=True,
        description="Fire or acid: Inferior on the first round, one level more each round.",
    ),
    Action(
        "end_sustained_damage",
        "Put out the sustained damage",
        health.EndSustainedDamageParams,
        health.resolve_end_sustained_damage,
        narrator_only=True,
    ),
    Action("add_item", "Add gear", equipment.AddItemParams, equipment.resolve_add_item),
    Action("move_item", "Move gear", equipment.MoveItemParams, equipment.resolve_move_item),
    Action("armor", "Armor", equipment.ArmorParams, equipment.resolve_armor),
    Action("raise_attribute", "Raise an attribute", adv.RaiseAttributeParams, adv.resolve_raise_attribute),
    Action("buy_perk", "Buy a perk", adv.BuyPerkParams, adv.resolve_buy_perk),
    Action("buy_health", "Increase Health", adv.NoParams, adv.resolve_buy_health),
    Action("buy_skill", "Buy a skill", adv.BuySkillParams, adv.resolve_buy_skill),
    # The narrator's, on the ART campaign page
    Action(
        "end_session",
        "End the session",
        adv.EndSessionParams,
        adv.resolve_end_session,
        needs_character=False,
        narrator_only=True,
        involves=("participants",),
    ),
    Action(
        "award_glory",
        "Award Glory",
        adv.GloryParams,
        adv.resolve_glory,
        needs_character=False,
        narrator_only=True,
        involves=("target_id",),
    ),
    Action(
        "combine",
        "Combine efforts",
        equipment.CombineParams,
        equipment.resolve_combine,
        needs_character=False,
        narrator_only=True,
        involves=("participants",),
    ),
    Action(
        "upload_table",
        "Use our own table",
        equipment.TableParams,
        equipment.resolve_upload_table,
        needs_character=False,
        narrator_only=True,
    ),
    Action(
        "default_table",
        "Use the default table",
        _Nothing,
        equipment.resolve_default_table,
        needs_character=False,
        narrator_only=True,
    ),
    # Exploration phases (ch. 4): a scene on the phase track is an encounter (explore_track.py, exploration.py)
    Action(
        "explore_start",
        "Start an exploration scene",
        explore_track.StartExplorationParams,
        explore_track.resolve_start,
        needs_character=False,
        narrator_only=True,
        involves=("participants",),
        encounter="create",
        description="The adventurers' tokens on the phase track, the turn marker under them.",
    ),
    Action(
        "explore_declare",
        "Declare an action",
        exploration.DeclareParams,
        exploration.resolve_declare,
        odds=exploration.explore_odds,
        encounter="step",
        description="An action timed in phases, a trip, shadowing, tracking or letting a phase go by.",
    ),
    Action(
        "explore_scale",
        "Set the time scale",
        explore_track.ScaleParams,
        explore_track.resolve_scale,
        encounter="step",
        needs_character=False,
        narrator_only=True,
    ),
    Action(
        "explore_raise",
        "Raise a task's time scale",
        explore_track.RaiseScaleParams,
        explore_track.resolve_raise,
        encounter="step",
        needs_character=False,
        narrator_only=True,
        description="A failed try with no penalty: the next try takes the next longer scale.",
    ),
    Action(
        "explore_time",
        "Spend time without a roll",
        explore_track.SpendTimeParams,
        explore_track.resolve_spend_time,
        encounter="step",
        needs_character=False,
        narrator_only=True,
    ),
    Action(
        "explore_end",
        "End the exploration scene",
        explore_track.EndSceneParams,
        explore_track.resolve_end,
        encounter="step",
        needs_character=False,
        narrator_only=True,
    ),
    # Combat rounds (fight*.py): an encounter set up by the narrator; every step names the encounter
    Action(
        "combat_setup",
        "Set up a combat",
        fight.SetupParams,
        fight.resolve_setup,
        needs_character=False,
        narrator_only=True,
        involves=("adventurers", "foes"),
        encounter="create",
        description="Adventurers and foes on the range track; initiative next.",
    ),
    Action(
        "combat_initiative",
        "Roll initiative",
        ft.InitiativeParams,
        ft.resolve_initiative,
        odds=ft.initiative_odds,
        encounter="step",
    ),
    Action("combat_wait", "Wait", ft.WaitParams, ft.resolve_wait, encounter="step"),
    Action("combat_end_turn", "End the turn", ft.EndTurnParams, ft.resolve_end_turn, encounter="step"),
    Action(
        "combat_free_action",
        "Free action",
        ft.FreeActionParams,
        ft.resolve_free_action,
        odds=ft.free_action_odds,
        encounter="step",
    ),
    Action("combat_arm", "Take up a starting weapon", fgear.ArmParams, fgear.resolve_arm, encounter="step"),
    Action(
        "combat_move_roll",
        "Roll to move",
        fm.MoveRollParams,
        fm.resolve_move_roll,
        odds=fm.move_roll_odds,
        encounter="step",
    ),
    Action("combat_move", "Move", fm.MoveParams, fm.resolve_move, encounter="step"),
    Action("combat_sneak", "Sneak", fm.SneakParams, fm.resolve_sneak, odds=fm.sneak_odds, encounter="step"),
    Action(
        "combat_foe_move", "Move a foe", fm.FoeMoveParams, fm.resolve_foe_move, narrator_only=True, encounter="step"
    ),
    Action("combat_stop", "Stop the foe", fm.StopParams, fm.resolve_stop, odds=fm.stop_odds, encounter="step"),
    Action(
        "combat_attack", "Attack", fa.AttackParams, fa.resolve_attack, odds=fgear.attack_odds_in_reach, encounter="step"
    ),
    Action(
        "combat_foe_attack",
        "A foe attacks",
        fa.FoeAttackParams,
        fa.resolve_foe_attack,
        narrator_only=True,
        encounter="step",
    ),
    Action("combat_defend", "Defense roll", fa.DefendParams, fa.resolve_defend, odds=fa.defend_odds, encounter="step"),
    Action("combat_parry", "Parry", fa.ParryParams, fa.resolve_parry, odds=fa.parry_odds, encounter="step"),
    Action("combat_take", "Take the damage", fa.TakeParams, fa.resolve_take, encounter="step"),
    Action("combat_dodge", "Dodge", fo.DodgeParams, fo.resolve_dodge, odds=fo.dodge_odds, encounter="step"),
    Action(
        "combat_fumble",
        "Roll on the Fumble table",
        fo.FumbleParams,
        fo.resolve_fumble,
        odds=fo.fumble_odds,
        encounter="step",
    ),
    Action("combat_aoe", "AOE attack", fx.AoeParams, fx.resolve_aoe, odds=fx.aoe_odds, encounter="step"),
    Action(
        "combat_foe_aoe",
        "A foe's AOE attack",
        fx.FoeAoeParams,
        fx.resolve_foe_aoe,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_aoe_fate",
        "Fate against a blast",
        fx.AoeFateParams,
        fx.resolve_aoe_fate,
        odds=fx.aoe_fate_odds,
        encounter="step",
    ),
    Action("combat_prone", "Fall prone", fx.ProneParams, fx.resolve_prone, encounter="step"),
    Action("combat_aoe_hit", "Who is hit", fx.AoeHitParams, fx.resolve_aoe_hit, encounter="step"),
    Action(
        "combat_maneuver",
        "Combat option",
        fo.ManeuverParams,
        fo.resolve_maneuver,
        odds=fo.maneuver_odds,
        encounter="step",
    ),
    Action("combat_aim", "Aim", fo.AimParams, fo.resolve_aim, encounter="step"),
    Action(
        "combat_protect",
        "Protect a companion",
        fr.ProtectParams,
        fr.resolve_protect,
        odds=fr.protect_odds,
        encounter="step",
        description="Jump in front of a companion a foe attacks (Agility, Passable or better).",
    ),
    Action(
        "combat_play_dead",
        "Play dead",
        fr.PlayDeadParams,
        fr.resolve_play_dead,
        odds=fr.play_dead_odds,
        encounter="step",
        description="Hit: pretend the wounds are fatal (Cunning against the foes' Intelligence and Alertness).",
    ),
    Action(
        "combat_place",
        "Place a token",
        ft.PlaceParams,
        ft.resolve_place,
        needs_character=False,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_end",
        "End the combat",
        ft.EndCombatParams,
        ft.resolve_end_combat,
        needs_character=False,
        narrator_only=True,
        encounter="step",
    ),
    Action(
        "combat_initiative_setting",
        "Simplified initiative",
        ft.InitiativeSettingParams,
        ft.resolve_initiative_setting,
        needs_character=False,
        narrator_only=True,
    ),
    # kicker-triggered perks (fight_perks.py)
    Action("combat_perk_choose", "Choose the perk", fp.PerkChooseParams, fp.resolve_perk_choose, encounter="step"),
    Action(
        "combat_free_attack",
        "Free attack",
        ff.FreeAttackParams,
        ff.resolve_free_attack,
        odds=ff.free_attack_odds,
        encounter="step",
    ),
    # grapples (fight_grapple.py)
    Action(
        "combat_grapple_hit",
        "Choose who is hit in the grapple",
        fgh.GrappleHitParams,
        fgh.resolve_grapple_hit,
        encounter="step",
    ),
    Action("combat_grapple_join", "Join the grapple", fg.GrappleJoinParams, fg.resolve_grapple_join, encounter="step"),
)
