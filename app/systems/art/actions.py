"""The ART Engine's actions: rolls (rolling.py, skirmish.py), their follow-ups, health, gear, advancement,
complex actions, exploration; the narrator's on the ART campaign page; combat rounds from fight/actions.py."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.systems.base import Action

from . import advancement as adv
from . import complex as complex_
from . import creation, equipment, followups, health, rolling, skirmish
from .explore import declare as explore_declare
from .explore import narrator as explore_narrator
from .explore import plan as explore_plan
from .fight.actions import COMBAT_ACTIONS
from .sheet import ArtSheet


class _Nothing(BaseModel):
    pass


ACTIONS: tuple[Action[ArtSheet, Any], ...] = (
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
        changes_nothing=True,
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
    # Exploration phases (ch. 4): a scene on the phase track is an encounter (explore/)
    Action(
        "explore_start",
        "Start an exploration scene",
        explore_narrator.StartExplorationParams,
        explore_narrator.resolve_start,
        needs_character=False,
        narrator_only=True,
        involves=("participants",),
        encounter="create",
        description="The adventurers' tokens on the phase track, the turn marker under them.",
    ),
    Action(
        "explore_declare",
        "Declare an action",
        explore_plan.DeclareParams,
        explore_declare.resolve_declare,
        odds=explore_plan.explore_odds,
        encounter="step",
        description="An action timed in phases, a trip, shadowing, tracking or letting a phase go by.",
    ),
    Action(
        "explore_scale",
        "Set the time scale",
        explore_narrator.ScaleParams,
        explore_narrator.resolve_scale,
        encounter="step",
        needs_character=False,
        narrator_only=True,
    ),
    Action(
        "explore_raise",
        "Raise a task's time scale",
        explore_narrator.RaiseScaleParams,
        explore_narrator.resolve_raise,
        encounter="step",
        needs_character=False,
        narrator_only=True,
        description="A failed try with no penalty: the next try takes the next longer scale.",
    ),
    Action(
        "explore_time",
        "Spend time without a roll",
        explore_narrator.SpendTimeParams,
        explore_narrator.resolve_spend_time,
        encounter="step",
        needs_character=False,
        narrator_only=True,
    ),
    Action(
        "explore_end",
        "End the exploration scene",
        explore_narrator.EndSceneParams,
        explore_narrator.resolve_end,
        encounter="step",
        needs_character=False,
        narrator_only=True,
    ),
    # Combat rounds (fight/): an encounter set up by the narrator; every step names the encounter
    *COMBAT_ACTIONS,
)
