"""The turn-based cat fight (app/systems/catfight/rules/) as a Fateboard system: cat sheets, duels as encounters.
sheet.py: the sheet; duel.py: the actions; rest.py: regeneration; log.py: the log lines.

Health lives in the duel's state while the cats fight and is copied to both cats' sheets on every step
(Resolution.sheet for the cat that moved, Resolution.others for its opponent), so a sheet always shows the
health its cat has now. A cat that escaped keeps the server time of its escape (`escaped_at`) and regains a
point per `regen_minutes` (campaign setting) from then on (ruling 11); the regained points are counted
when it next fights, and shown on its sheet meanwhile.

Log lines are stored language-neutral (app.i18n.msg) and read in each viewer's language.
"""

from __future__ import annotations

from app.i18n import N_
from app.systems.base import RuleSystem, Sheets, action_table
from app.systems.catfight import marks
from app.systems.catfight import rules as catfight
from app.systems.catfight.actions import ACTIONS
from app.systems.catfight.challenge import challenged
from app.systems.catfight.demo import seed_demo
from app.systems.catfight.models import DuelState
from app.systems.catfight.rest import rest_view
from app.systems.catfight.sheet import STAT_NAMES, STAT_SHORT, CatSheet, create_cat, dump, load, public_sheet
from app.systems.catfight.waits import awaited
from app.systems.kinds import EncounterKind, kind_table

SYSTEM = RuleSystem(
    result_marks=marks.result_marks,
    encounters=kind_table(
        (
            EncounterKind(
                "duel", DuelState, awaited=awaited, challenged=challenged, challenge="catfight/_challenge.html"
            ),
        )
    ),
    id="catfight",
    name=N_("Cat fight"),
    labels={**STAT_NAMES, "health": N_("Health"), "fighting": N_("In a duel")},
    description=N_("The turn-based cat fight: two cats duel with the plus-minus d6 (English and German rules)."),
    has_pages=True,
    sheet=CatSheet,
    sheets=Sheets(load, dump),
    public_sheet=public_sheet,
    create=create_cat,
    seed_demo=seed_demo,
    rulings=(
        N_(
            "The plus-minus d6: even faces add, odd faces subtract; a first 6 or 5 is confirmed by a second roll "
            "(the server rolls it and the log shows it); an unconfirmed 6 counts +6, an unconfirmed 5 −5."
        ),
        N_(
            "Beginning: each cat rolls a plain d6, higher starts by sneaking; ties roll again (SNEAK, JUMP and "
            "QUICKNESS ties too). DEFEND wins ties."
        ),
        N_(
            "After a hit the attacker attacks again. Critical hit: the defender loses 1 at once and gets no choice. "
            "Critical goof: the other cat attacks. Lucky fate: parried, the defender attacks. Unlucky cat: the "
            "defender loses 2 in all. JUMP has no criticals."
        ),
        N_(
            "Fleeing: only the cat about to attack may flee; QUICKNESS against QUICKNESS, criticals first; two "
            "criticals cancel. An escaped cat regains 1 health per 5 real minutes (narrator's setting), up to 3."
        ),
        N_("Health 3; at 0 a cat is knocked out and the duel ends; a narrator can heal a cat back to 3."),
        N_(
            "A cat's five values are whole numbers of at least 1 that add up to 70. A brawl is a series of duels "
            "that the narrator pairs up; a cat fights one duel at a time."
        ),
    ),
    actions=action_table(ACTIONS),
    # The sheet and campaign pages show health as it is now (regeneration runs on the server's clock).
    # The values' names (English msgids, shown as {{ _(name) }}) and the moves' names (the buttons' words).
    template_data={
        "rest": rest_view,
        "stats": tuple(STAT_NAMES.items()),
        "short": STAT_SHORT,
        "moves": catfight.MOVE_NAMES,
    },
)
