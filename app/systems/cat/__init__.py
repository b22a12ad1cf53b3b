"""Cat: cats who test fate with even d6s (cat.txt; RULINGS.md, "Cat"). The rules are app/systems/cat/rules/;
this package is the sheet, the actions, the pages' data and the demo."""

from __future__ import annotations

from app.i18n import N_
from app.systems.base import GroupCall, RuleSystem, Sheets, action_table
from app.systems.cat import marks
from app.systems.cat import rules as rules
from app.systems.cat.actions import ACTIONS
from app.systems.cat.demo import seed_demo
from app.systems.cat.fights import CatFightState, FoeFightState
from app.systems.cat.sheet import (
    DIFFICULTY_NAMES,
    FOE_TEMPLATES,
    RANK_NAMES,
    TRAIT_HELP,
    TRAIT_NAMES,
    WEAPON_NAMES,
    CatSheet,
    create,
    dump,
    load,
    public_sheet,
    view,
)
from app.systems.kinds import EncounterKind, kind_table

RULINGS = (
    N_(
        "Traits: Claws, Coat, Face, Fangs, Legs, Tail. Ranks roll Best 5, Strong 4, Good 3, Hurt 2 dice; a Crippled "
        "Trait (0) cannot be used for Risks, fights or dodging. A new cat: one Best, three Strong, two Good; three "
        "names; 9 Lives; Reputations worth exactly 7 points, none above 3 (in play up to 5 Reputations, rank 5 at most)."  # noqa: E501 -- a catalog msgid
    ),
    N_(
        "Ruling 1: scars are counted per Trait; every 3 scars lower the Trait one rank. The narrator advances game "
        "time by weeks on the Cat page: each cat heals one scar a week — the Trait its player chose, else the most "
        "scarred — so ranks come back by themselves."
    ),
    N_(
        "Ruling 2: a failed dangerous Risk gives as many scars as its lowest odd die; with no odd die, none. A Life "
        "spent to win a Risk rolls nothing: no scars, no Style."
    ),
    N_(
        "Ruling 3: evens beyond those needed become Style points, banked on the sheet, or spent at once to edit the "
        "scene (logged as a note). Banked Style spent on a roll counts as automatic evens (never dice: they never "
        "decide scars); those not needed come back."
    ),
    N_(
        "Scars wait on the sheet until the player places them among the Traits with a reason (or spends a Life to "
        "dodge the whole batch); a cat places them before its next Risk or fight round. The narrator may move a scar "
        "that lacks a good reason (logged)."
    ),
    N_(
        "Ruling 4: a fight between cats is one exchange. The challenger names Fangs, Claws or a dodge first (hidden); "
        "the other cat answers on its own screen; the server rolls both. Each takes scars equal to the other's evens; "
        "a tie has no winner; a dodger takes and inflicts no scars and loses."
    ),
    N_(
        "Ruling 5: fights with foes go in rounds until one side is beaten, flees or dies; a dodging cat rolls Legs, "
        "each even cancels one scar, and inflicts none. A Life dodges all scars of one round. Both sides place their "
        "scars before the next round."
    ),
    N_(
        "Ruling 6: foes have any dice per Trait and a Lives count; the ship dog, rat, rat swarm and Boggin are "
        "editable examples, not canon. Decided here: a foe loses one die in a Trait per 3 scars there."
    ),
    N_(
        "Ruling 7: a cat with four Crippled Traits or no Lives is dead and cannot act; three Crippled Traits show a "
        "warning."
    ),
    N_(
        "Ruling 8: magic is optional and off by default (a campaign setting on the Cat page). Magic points: 5 + 1 per "
        "Tail rank above Hurt; using magic costs 1 point and rolls Tail; each extra point adds one die."
    ),
    N_(
        "Ruling 9: Reputation dice need the narrator's agreement. The narrator approves a Reputation for the scene "
        "(one tap on the cat's sheet, also answering the player's proposal); approvals end when the narrator clears "
        "them or the session changes. A narrator rolling for the cat counts as agreeing."
    ),
    N_(
        "Losing Reputation: the narrator docks a point with a reason; restoring it in the same session undoes the "
        "loss, later it is lost for good. A Reputation at 0 is gone."
    ),
    N_(
        "Getting a new Reputation (narrator action): the giving cat spends — loses — a fitting Reputation; the other "
        "cat gets a new one at half its rank, rounded down, minimum 1."
    ),
)


SYSTEM = RuleSystem(
    group_calls=(GroupCall("test_fate", N_("Cat: a test of fate"), "cat/_group_call.html"),),
    die_marks=marks.die_marks,
    sheets=Sheets(load, dump),
    encounters=kind_table((EncounterKind("cat-fight", CatFightState), EncounterKind("foe-fight", FoeFightState))),
    id="cat",
    name=N_("Cat"),
    labels={
        "human_name": N_("Human name"),
        "cat_name": N_("Cat name"),
        "secret_name": N_("Secret name"),
        "lives": N_("Lives"),
        "style": N_("Style"),
        "advantage": N_("Advantage dice"),
        "magic": N_("Magic dice"),
        "notes": N_("Notes"),
        "proposal": N_("Proposed secret name"),
        "fresh_style": N_("Style earned this session"),
        "heal_first": N_("Heal first"),
        "foe": N_("Foe"),
        "example": N_("Example foe"),
    },
    description=N_("Cats testing fate with even d6s: Traits, scars, nine Lives, Style and Reputation."),
    sheet=CatSheet,
    actions=action_table(ACTIONS),
    has_pages=True,
    public_sheet=public_sheet,
    create=create,
    rulings=RULINGS,
    seed_demo=seed_demo,
    # For the pages: a sheet's derived numbers (ranks, dice, death, warning) and the tables they list; the names
    # are English msgids, shown as {{ _(name) }}.
    template_data={
        "derived": view,
        "traits": rules.TRAITS,
        "ranks": rules.RANKS,
        "trait_help": TRAIT_HELP,
        "foe_templates": FOE_TEMPLATES,
        "trait_names": TRAIT_NAMES,
        "rank_names": RANK_NAMES,
        "difficulty_names": DIFFICULTY_NAMES,
        "weapon_names": WEAPON_NAMES,
    },
)
