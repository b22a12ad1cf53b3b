"""Rabbits (rabbits.da.txt / rabbits.en.md, RULINGS.md "Rabbits"): the sheet, its tests and their follow-ups.

Pure rules live in app.systems.rabbits.rules; this package turns a sheet and a roll dialog into those calls.
Conflicts are encounters (conflict*.py): set-up, disposition, secret scripts with commitments, the exchanges.
"""

from __future__ import annotations

from app.i18n import N_
from app.systems.base import GroupCall, RuleSystem, Sheets, action_table
from app.systems.kinds import EncounterKind, kind_table
from app.systems.rabbits import marks
from app.systems.rabbits.actions import ACTIONS
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.script import TEMPLATE_DATA as CONFLICT_DATA
from app.systems.rabbits.conflict.script import view as conflict_view
from app.systems.rabbits.demo import seed_demo
from app.systems.rabbits.sheet import TABLES, RabbitSheet, create, dump, load, public_sheet
from app.systems.rabbits.waits import awaited, teams

RULINGS = (
    N_("A die showing 4–6 is a success; margins are the difference from the Ob (or between the sides)."),
    N_("Fate, once per roll and after it: every 6 is rolled again as a new die, and new 6s keep rerolling."),
    N_("Persona: +1D each, at most 3 per roll, or 1 to tap Nature (never for Resources or Circles)."),
    N_(
        "Beginner's luck: Will or Health, with help and wise, halved rounding up; Persona and Nature added after. "
        "A skill is learned (at 2) after as many beginner's-luck tests as the rabbit's Nature."
    ),
    N_("Advancement: a rating rises once it has as many passes as the rating and one fewer fails."),
    N_(
        "Nature tax: a failure with Nature (rolled or tapped) costs the margin of failure; a success outside the "
        "rabbit's nature (flee, hide, dig, breed) costs 1."
    ),
    N_("Ruling 1: starting Fate and Persona are a campaign setting (default 2 and 1), given at a rabbit's first roll."),
    N_("Ruling 2: Nature taxed to 0 retires the rabbit; it stays on the sheet, retired."),
    N_("Ruling 3: an Afraid rabbit cannot help and cannot use beginner's luck."),
    N_(
        "Ties in versus tests, in this order: give the tie away with a trait (2 checks), then Fate, then a "
        "tiebreaker roll (a skill tie → Will or Health; a Will or Health tie → Nature; a Nature tie: the narrator)."
    ),
    N_(
        "Checks are earned in the narrator's turn only. In the players' turn every test a player makes costs "
        "1 check; a recovery test in the narrator's turn costs 2; a trait's extra use costs 2."
    ),
    N_("Traits: +1D once per session (a level-2 trait twice, a level-3 trait three times); after that, 2 checks."),
    N_(
        "Deeper understanding (1 Fate) and Of course! (1 Persona) each need a wise that has not yet backed a "
        "reroll of that roll; each is used at most once per roll."
    ),
    N_(
        "A versus test against another rabbit rolls its plain rating (with its conditions); both rabbits may "
        "follow the roll up with their own Fate."
    ),
    N_(
        "Conflicts, ruling 7: a team's disposition is one roll by its captain, each able teammate +1D, every unique "
        "condition penalty of the team once (Afraid −1; Angry only in Will conflicts), at least 1."
    ),
    N_(
        "Conflicts, rulings 8 and 9: each team scripts three actions, every member at least one; nobody outside the "
        "team (the narrator included, except for the narrator's own team) sees them before every team has locked; "
        "locking logs a salted commitment of each action, and each reveal publishes the action and its salt."
    ),
    N_("Conflicts, ruling 4: a Feint against a Defend: the defender does not roll; the feinter tests at Ob 0."),
    N_(
        "Conflicts, rulings 5 and 6: both teams at 0 in one action both win and each owes a major compromise; "
        "otherwise the winner owes by its starting S and remaining R: R ≥ S none; R ≤ max(1, ⌊S/4⌋) major; "
        "R > S/2 minor; else a compromise. The narrator records it in words and may choose another level (logged)."
    ),
    N_("Conflicts: conflict tests cost no checks in the players' turn."),
    N_(
        'Conflicts, ruling 10: the sample weapons for Fight, Fight Animal and War; the argument "weapons" for '
        "Argument, Speech and Negotiation; none for Chase and Journey; for Other, the narrator's pick at set-up."
    ),
    N_(
        "Conflicts, ruling 11: the Halberd's mode (axe or spear) is chosen with each scripted action and revealed "
        "with it: axe gives its Attack, Defend and Feint modifiers, spear its Maneuver modifier."
    ),
    N_(
        "Conflicts, ruling 12: a tied versus action: a trait may give the tie away, then either side may spend "
        "Fate, then a tiebreaker roll (Will for Argument, Speech, Negotiation and War; Health for Fight, Fight "
        "Animal, Chase and Journey; Other: the narrator's pick; Nature after a Will or Health test). Only a tied "
        "tiebreaker changes no disposition; a won tie counts as a margin of 1."
    ),
)


SYSTEM = RuleSystem(
    group_calls=(GroupCall("test", N_("Rabbits: a test"), "rabbits/_group_call.html"),),
    die_marks=marks.die_marks,
    result_total=marks.result_total,
    result_details=marks.result_details,
    id="rabbits",
    name=N_("Rabbits"),
    labels={
        "fate": N_("Fate"),
        "persona": N_("Persona"),
        "fate_spent": N_("Fate spent"),
        "persona_spent": N_("Persona spent"),
        "rewards_started": N_("Starting Fate and Persona given"),
        "checks": N_("Checks"),
        "belief": N_("Belief"),
        "goal": N_("Goal"),
        "instinct": N_("Instinct"),
        "retired": N_("Retired"),
        "abilities": N_("Abilities"),
        "skills": N_("Skills"),
        "wises": N_("Wises"),
        "traits": N_("Traits"),
        "conditions": N_("Conditions"),
        "nature": N_("Nature"),
    },
    description=N_("Rabbits with Nature (flee, hide, dig, breed): d6 pools, 4–6 succeed, Fate and Persona."),
    sheet=RabbitSheet,
    sheets=Sheets(load, dump),
    actions=action_table(ACTIONS),
    has_pages=True,
    public_sheet=public_sheet,
    encounters=kind_table(
        (
            EncounterKind(
                "conflict", ConflictState, view=conflict_view, awaited=awaited, teams=teams, title=lambda s: s.title
            ),
        )
    ),
    create=create,
    rulings=RULINGS,
    seed_demo=seed_demo,
    template_data={"tables": TABLES, "conflict": CONFLICT_DATA},  # what the pages draw on
)
