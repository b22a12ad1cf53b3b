"""The ART Engine as a Fateboard rule system: sheets, creation, actions, rulings, demo.

Pure rules live in app/rules/art/; this package turns requests into rules calls and sheet changes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.rules import art
from app.rules.art import ATTRIBUTES, FORTUNE_RANKS, Level
from app.systems.base import Action, RuleSystem
from app.web import ENV

from . import advancement as adv
from . import complex as complex_
from . import creation, equipment, followups, health, rolling
from .sheet import FOE_TRAITS, LEVEL_CODES, SLOT_NAMES, SLOTS, WEAPON_KINDS, ArtSheet, derived, owner_sheet, public_sheet


class _Nothing(BaseModel):
    pass


def _act(id: str, name: str, params: type[BaseModel], resolve: Any, **extra: Any) -> tuple[str, Action]:
    return id, Action(id=id, name=name, params=params, resolve=resolve, **extra)


ACTIONS: dict[str, Action] = dict([
    _act("roll_attributes", "Roll attributes", creation.RollAttributesParams, creation.resolve_roll_attributes,
         description="Random method: 2d6 for each attribute, assigned as rolled."),
    _act("trait_roll", "Trait roll", rolling.TraitRollParams, rolling.resolve_trait_roll, odds=rolling.trait_roll_odds,
         odds_uses_settings=True, takes_context=True, involves=("opponent_id", "helper_id")),
    _act("defend", "Defense roll", rolling.DefendParams, rolling.resolve_defend, odds=rolling.defend_odds,
         odds_uses_settings=True, takes_context=True, involves=("opponent_id",)),
    _act("attack", "Attack", rolling.AttackParams, rolling.resolve_attack, odds=rolling.attack_odds,
         odds_uses_settings=True, takes_context=True, involves=("opponent_id",)),
    _act("henchman_roll", "Roll for a henchman", rolling.HenchmanParams, rolling.resolve_henchman_roll,
         takes_context=True, involves=("henchman_id",)),
    _act("start_complex", "Start a complex action", complex_.StartComplexParams, complex_.resolve_start_complex,
         description="A preset number of trait rolls; each step's successes or failures carry to the next."),
    _act("end_complex", "Abandon the complex action", complex_.EndComplexParams, complex_.resolve_end_complex),
    _act("fame_after", "Spend Fame after rolling", followups.FameAfterParams, followups.resolve_fame_after,
         takes_context=True, involves=("opponent_id",)),
    _act("inspire", "Take the inspiration", followups.InspireParams, followups.resolve_inspire, takes_context=True),
    _act("take_damage", "Take damage", health.TakeDamageParams, health.resolve_take_damage),
    _act("first_aid", "First aid", health.FirstAidParams, health.resolve_first_aid, takes_context=True,
         involves=("patient_id",)),
    _act("rest", "Rest and heal", health.RestParams, health.resolve_rest, takes_context=True),
    _act("med_kit", "Use a med-kit", health.MedKitParams, health.resolve_med_kit, takes_context=True,
         involves=("patient_id",)),
    _act("fatigue", "Fatigue", health.FatigueParams, health.resolve_fatigue),
    _act("sustained_damage", "Sustained damage: next round", health.SustainedDamageParams,
         health.resolve_sustained_damage, narrator_only=True,
         description="Fire or acid: Inferior on the first round, one level more each round."),
    _act("end_sustained_damage", "Put out the sustained damage", health.EndSustainedDamageParams,
         health.resolve_end_sustained_damage, narrator_only=True),
    _act("add_item", "Add gear", equipment.AddItemParams, equipment.resolve_add_item),
    _act("move_item", "Move gear", equipment.MoveItemParams, equipment.resolve_move_item),
    _act("armor", "Armor", equipment.ArmorParams, equipment.resolve_armor),
    _act("raise_attribute", "Raise an attribute", adv.RaiseAttributeParams, adv.resolve_raise_attribute),
    _act("buy_perk", "Buy a perk", adv.BuyPerkParams, adv.resolve_buy_perk),
    _act("buy_health", "Increase Health", adv.NoParams, adv.resolve_buy_health),
    _act("buy_skill", "Buy a skill", adv.BuySkillParams, adv.resolve_buy_skill),
    # The narrator's, on the ART campaign page
    _act("end_session", "End the session", adv.EndSessionParams, adv.resolve_end_session, takes_context=True,
         needs_character=False, narrator_only=True, involves=("participants",)),
    _act("award_glory", "Award Glory", adv.GloryParams, adv.resolve_glory, takes_context=True,
         needs_character=False, narrator_only=True, involves=("target_id",)),
    _act("combine", "Combine efforts", equipment.CombineParams, equipment.resolve_combine, takes_context=True,
         needs_character=False, narrator_only=True, involves=("participants",)),
    _act("upload_table", "Use our own table", equipment.TableParams, equipment.resolve_upload_table,
         takes_context=True, needs_character=False, narrator_only=True),
    _act("default_table", "Use the default table", _Nothing, equipment.resolve_default_table, takes_context=True,
         needs_character=False, narrator_only=True),
])

RULINGS: tuple[str, ...] = (
    "The Action Results Table is data: a campaign may upload its own (same CSV: header, rows 0-30, bounds "
    "never decreasing, last column 100) on the ART page, and go back to the default.",
    "00 is 100; the kicker is the ones digit (00 → 0); doubles are 11 … 99 and 00.",
    "Trait = attribute + up to two skills + modifiers − fatigue, +2 per Fame spent before rolling, kept to rows "
    "1-25; a henchman rolls its converted trait (the middle of its band) unclamped.",
    "Catastrophic difficulty always succeeds and Extreme always fails; both are still rolled for degree.",
    "Successes: columns between + 1 at or above the difficulty; below it, columns between are failures.",
    "Fame after rolling: only below the difficulty, 2 per column, up to it. It is a follow-up on the roll's own "
    "entry, checked against the sheet's record of that roll; on a Defense roll the damage is worked out again.",
    "Awesome erases the Fame tally unless Fame improved that roll; taking 25 is no roll: no kicker, doubles or "
    "Fame back.",
    "Player damage: failures + the hazard's damage rating → Inferior … Awesome; 8 or more is Extreme, every box. "
    "Boxes are marked by the recording rules (ruling 10); the rightmost box staggers, all boxes defeat "
    "(−1 Fame, unconscious until a box is healed).",
    "Against a foe, the foe's level is the difficulty and the narrator never rolls; against an adventurer, "
    "their latest roll's result is. Attacks on a foe mark its track with the column rolled.",
    "Assist and impede: the helper rolls first; their successes are added to (or taken from) the trait, once.",
    "Fatigue is −1 on every roll per point until the narrator or player removes it.",
    "Shotguns get +2 Attack (the Weapon Attack table's note; the features list says +4).",
    "Perks and Health are bought between adventures: a new character is between adventures until the narrator "
    "ends a session that is not the adventure's end. Ending the adventure also heals every box and fatigue.",
    "Starting skills (+1 … +4 at 1/3/6/10 xp) are bought until the first session ends; later a new +1 skill "
    "costs 1 xp.",
    "First aid is paid by the one giving it; a med-kit's roll is made by the one using it.",
    "Complex actions: the narrator or the player opens one on the sheet (a name and 2-12 steps). Every trait "
    "roll is then a step unless marked otherwise; the step's successes (failures negative) are the modifier on "
    "the next step — replacing, not adding to, the last one; Catastrophic ends it in disaster, which Fame spent "
    "after rolling does not undo; the last step's result is the outcome. Either may abandon it.",
    "Sustained damage (fire, acid) is the narrator's: each 'next round' marks Inferior, then one level more each "
    "round (capped at Extreme), like any damage; given a number of rounds it stops by itself after the last, "
    "otherwise when the narrator puts it out.",
    "A foe's levels are the narrator's secret (not in what players see of its sheet): the odds of a roll "
    "opposed by a foe show the chance on the narrator's page (it sends the foes' levels with the form) and to "
    "anyone who names the level (foe_level); a player picking a foe sees 'the narrator knows the level'.",
)


def seed_demo(db: Any, narrator: Any, player: Any) -> None:
    """An adventurer for the player (with gear and a roll in the log) and a foe for the narrator."""
    from app.characters.service import create_character
    from app.rolls import prompts
    from app.rolls import service as rolls
    from app.rules.dice import ScriptedDice

    # The rules text's climbing example: Strength 9, Climbing +4, Rock climbing +1 -> row 14.
    pairs = {"AGI": (5, 4), "ALE": (4, 3), "CHA": (3, 2), "CRA": (1, 2), "CUN": (3, 1), "DEX": (5, 2),
             "FAT": (4, 1), "INT": (6, 5), "STA": (6, 4), "STR": (6, 3)}
    fields: dict[str, Any] = {"sheet_kind": "adventurer", "method": "balanced", "skill_0": "Climbing",
                              "skill_0_rating": "4", "skill_1": "Rock climbing", "skill_1_rating": "1"}
    for code, (a, b) in pairs.items():
        fields[f"{code}_a"], fields[f"{code}_b"] = str(a), str(b)
    hero = create_character(db, player, name="Maren Quickhand", system="art", sheet=fields)
    foe_fields = {"sheet_kind": "foe", **{f"level_{code}": "PR" for code in FOE_TRAITS},
                  "level_ALE": "IN", "level_ATK": "PR", "level_DEF": "PS", "health_0": "PR", "health_1": "PS",
                  "health_2": "GD", "health_3": "GT", "damage_rating": "1", "notes": "Goblin chieftain"}
    foe = create_character(db, narrator, name="Goblin Chieftain", system="art", sheet=foe_fields, kind="npc")
    db.commit()
    act = rolls.ActionRequest
    rolls.perform_action(db, player, act(system="art", action="add_item", character_id=hero.id, params={
        "name": "Sword", "slot": "ready", "type": "weapon", "cost": "Poor", "weapon": "melee_1h"}))
    rolls.perform_action(db, player, act(system="art", action="trait_roll", character_id=hero.id, params={
        "attribute": "STR", "difficulty": "PR", "skills": ["Climbing", "Rock climbing"]},
        note="climb the cliff"), dice=ScriptedDice([73]))
    prompts.create_prompt(db, narrator, character_id=hero.id, system="art", action="trait_roll",
                        locked={"attribute": "AGI", "difficulty": "IN"}, note="Sneak past the goblin chieftain")
    del foe


SYSTEM = RuleSystem(
    id="art",
    name="ART Engine",
    description="Percentile trait rolls on the Action Results Table: attributes 2-12, foes from Catastrophic "
                "to Extreme, Fame, Health tracks.",
    sheet=ArtSheet,
    actions=ACTIONS,
    has_pages=True,
    public_sheet=public_sheet,
    owner_sheet=owner_sheet,
    create=creation.create,
    rulings=RULINGS,
    seed_demo=seed_demo,
)

# What the ART templates need to show a sheet (the derived numbers are computed, never stored).
ENV.globals["art_view"] = {
    "derived": derived, "attributes": ATTRIBUTES, "foe_traits": FOE_TRAITS, "levels": LEVEL_CODES,
    "level_names": {level.name: level.display_name for level in Level}, "fortunes": FORTUNE_RANKS,
    "slots": SLOTS, "slot_names": SLOT_NAMES, "weapon_kinds": WEAPON_KINDS, "perks": art.PERKS,
    "balanced": sorted(set(art.BALANCED_NUMBERS)), "balanced_list": art.BALANCED_NUMBERS,
    "skill_costs": art.STARTING_SKILL_COSTS, "surfaces": art.FALLING_SURFACES,
    "difficulty_challenge": {level.name: text for level, text in art.DIFFICULTY_CHALLENGE.items()},
    "sanity": {level.name: text for level, (text, _example) in art.SANITY_DIFFICULTY.items()},
    "sustained_next": lambda done: art.sustained_damage(int(done) + 1)[-1].display_name,
}
