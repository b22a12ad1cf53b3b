"""The ART Engine as a Fateboard rule system: sheets, creation, actions, rulings, demo.

Pure rules live in app/systems/art/rules/; this package turns requests into rules calls and sheet changes.
"""

from __future__ import annotations

from app.i18n import N_
from app.systems.art import marks
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES, FORTUNE_RANKS, Level
from app.systems.art.waits import awaited
from app.systems.base import GroupCall, RuleSystem, Sheets, action_table
from app.systems.kinds import EncounterKind, kind_table

from . import creation
from .actions import ACTIONS
from .demo import seed_demo
from .explore.models import ExplorationState
from .explore.track import EXPLORATION_RULINGS
from .fight.attacks import attack_reach
from .fight.models import CombatState
from .fight.moves import foe_move_options, move_options
from .fight.state import encounter_view
from .sheet import (
    FOE_TRAITS,
    LEVEL_CODES,
    SLOT_NAMES,
    SLOTS,
    WEAPON_KINDS,
    ArtSheet,
    derived,
    dump,
    owner_sheet,
    public_sheet,
    stored,
)

RULINGS: tuple[str, ...] = (
    N_(
        "The Action Results Table is data: a campaign may upload its own (same CSV: header, rows 0-30, bounds "
        "never decreasing, last column 100) on the ART page, and go back to the default."
    ),
    N_("00 is 100; the kicker is the ones digit (00 → 0); doubles are 11 … 99 and 00."),
    N_(
        "Trait = attribute + up to two skills + modifiers − fatigue, +2 per Fame spent before rolling, kept to rows "
        "1-25; a henchman rolls its converted trait (the middle of its band) unclamped."
    ),
    N_("Catastrophic difficulty always succeeds and Extreme always fails; both are still rolled for degree."),
    N_("Successes: columns between + 1 at or above the difficulty; below it, columns between are failures."),
    N_(
        "Fame after rolling: only below the difficulty, 2 per column, up to it. It is a follow-up on the roll's own "
        "entry, checked against the sheet's record of that roll; on a Defense roll the damage is worked out again."
    ),
    N_(
        "Awesome erases the Fame tally unless Fame improved that roll; taking 25 is no roll: no kicker, doubles or "
        "Fame back."
    ),
    N_(
        "Player damage: failures + the hazard's damage rating → Inferior … Awesome; 8 or more is Extreme, every box. "
        "Boxes are marked by the recording rules (ruling 10); the rightmost box staggers, all boxes defeat "
        "(−1 Fame, unconscious until a box is healed)."
    ),
    N_(
        "Against a foe, the foe's level is the difficulty and the narrator never rolls; against an adventurer, "
        "their latest roll's result is. Attacks on a foe mark its track with the column rolled."
    ),
    N_("Assist and impede: the helper rolls first; their successes are added to (or taken from) the trait, once."),
    N_("Fatigue is −1 on every roll per point until the narrator or player removes it."),
    N_("Shotguns get +2 Attack (the Weapon Attack table's note; the features list says +4)."),
    N_(
        "Perks and Health are bought between adventures: a new character is between adventures until the narrator "
        "ends a session that is not the adventure's end. Ending the adventure also heals every box and fatigue."
    ),
    N_(
        "Starting skills (+1 … +4 at 1/3/6/10 xp) are bought until the first session ends; later a new +1 skill "
        "costs 1 xp."
    ),
    N_("First aid is paid by the one giving it; a med-kit's roll is made by the one using it."),
    N_(
        "Complex actions: the narrator or the player opens one on the sheet (a name and 2-12 steps). Every trait "
        "roll is then a step unless marked otherwise; the step's successes (failures negative) are the modifier on "
        "the next step — replacing, not adding to, the last one; Catastrophic ends it in disaster, which Fame spent "
        "after rolling does not undo; the last step's result is the outcome. Either may abandon it."
    ),
    N_(
        "Sustained damage (fire, acid) is the narrator's: each 'next round' marks Inferior, then one level more each "
        "round (capped at Extreme), like any damage; given a number of rounds it stops by itself after the last, "
        "otherwise when the narrator puts it out."
    ),
    N_(
        "A foe's levels are the narrator's secret (not in what players see of its sheet): the odds of a roll "
        "opposed by a foe show the chance on the narrator's page (it sends the foes' levels with the form) and to "
        "anyone who names the level (foe_level); a player picking a foe sees 'the narrator knows the level'."
    ),
    N_(
        "Combat rounds: the simplified initiative has no bonus round and no lost first turn (the text gives none); a foe "  # noqa: E501 -- a catalog msgid
        "group is one token with one Health track, attacking with its members' Attack added up; a foe's move does not "
        "use its action; sneaking is against the foes within 2 bands; ties in who an AOE hits follow the track's order."
    ),
    N_("Combat log lines never name a foe's level, whoever acted: the log is public."),
    N_(
        "Starting gear: the creation form offers a weapon class from the Weapon Class table and armor, each at the "
        "best cost the adventurer may equip (their Fortune, lowered only where their Strength falls short of the "
        "weapon's or armor's requirement); the weapon is ready. A character whose sheet holds no weapon at all takes "
        "one up the same way on its turn in a combat, without its action."
    ),
)


SYSTEM = RuleSystem(
    group_calls=(GroupCall("trait_roll", N_("ART: a trait roll"), "art/_group_call.html"),),
    die_marks=marks.die_marks,
    result_marks=marks.result_marks,
    marks=marks.MARKS,
    result_total=marks.result_total,
    odds_read_encounter=True,
    sheets=Sheets(stored, dump),
    id="art",
    name=N_("ART Engine"),
    labels={
        "kind": N_("Kind"),
        "method": N_("Method"),
        "fame": N_("Fame"),
        "fame_spent": N_("Fame spent"),
        "glory": N_("Glory"),
        "fortune": N_("Fortune"),
        "xp": N_("Experience points"),
        "fatigue": N_("Fatigue"),
        "unconscious": N_("Unconscious"),
        "armor": N_("Armor"),
        "sessions": N_("Sessions played"),
        "between_adventures": N_("Between adventures"),
        "damage_rating": N_("Damage rating"),
        "henchman": N_("Henchman"),
        "notes": N_("Notes"),
        "health": N_("Health"),
        "attributes": N_("Attributes"),
    },
    description=N_(
        "Percentile trait rolls on the Action Results Table: attributes 2-12, foes from Catastrophic "
        "to Extreme, Fame, Health tracks."
    ),
    sheet=ArtSheet,
    actions=action_table(ACTIONS),
    has_pages=True,
    public_sheet=public_sheet,
    owner_sheet=owner_sheet,
    encounters=kind_table(
        (
            EncounterKind("combat", CombatState, view=encounter_view, awaited=awaited, title=lambda s: s.title),
            EncounterKind("exploration", ExplorationState, title=lambda s: s.title),
        )
    ),
    create=creation.create,
    rulings=RULINGS + EXPLORATION_RULINGS,
    seed_demo=seed_demo,
    # What the ART templates need to show a sheet (the derived numbers are computed, never stored).
    template_data={
        "derived": derived,
        "attributes": ATTRIBUTES,
        "foe_traits": FOE_TRAITS,
        "levels": LEVEL_CODES,
        "level_names": {level.name: level.display_name for level in Level},
        "fortunes": FORTUNE_RANKS,
        "slots": SLOTS,
        "slot_names": SLOT_NAMES,
        "weapon_kinds": WEAPON_KINDS,
        "perks": art.PERKS,
        "balanced": sorted(set(art.BALANCED_NUMBERS)),
        "balanced_list": art.BALANCED_NUMBERS,
        "skill_costs": art.STARTING_SKILL_COSTS,
        "surfaces": art.FALLING_SURFACES,
        "difficulty_challenge": {level.name: text for level, text in art.DIFFICULTY_CHALLENGE.items()},
        "sanity": {level.name: text for level, (text, _example) in art.SANITY_DIFFICULTY.items()},
        "move_options": move_options,
        "foe_move_options": foe_move_options,
        "attack_reach": attack_reach,
        "weapon_classes": art.WEAPON_CLASSES,
        "sustained_next": lambda done: art.sustained_damage(int(done) + 1)[-1].display_name,
    },
)
