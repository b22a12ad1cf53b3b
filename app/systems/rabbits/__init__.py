"""Rabbits (rabbits.da.txt / rabbits.en.md, RULINGS.md "Rabbits"): the sheet, its tests and their follow-ups.

Pure rules live in app.rules.rabbits; this package turns a sheet and a roll dialog into those calls.
Conflicts are a later step: the teams, disposition and conflict-skill tables are ready in the rules package.
"""

from __future__ import annotations

from app.systems.base import Action, RuleSystem
from app.systems.rabbits import followups, play, versus
from app.systems.rabbits.demo import seed_demo
from app.systems.rabbits.sheet import RabbitSheet, create, public_sheet

FOLLOW_UP = ("opponent_id",)

ACTIONS = {
    "test": Action(id="test", name="Test", params=play.TestParams, resolve=play.resolve_test, odds=play.test_odds,
                   odds_uses_settings=True, involves=("helpers",), takes_context=True,
                   description="An independent test against an obstacle."),
    "versus": Action(id="versus", name="Versus test", params=versus.VersusParams, resolve=versus.resolve_versus,
                     odds=versus.versus_odds, odds_uses_settings=True, involves=("helpers", "opponent_id"),
                     takes_context=True, description="Most successes wins: against a rabbit or a set pool."),
    "recover": Action(id="recover", name="Recover", params=play.RecoverParams, resolve=play.resolve_recover,
                      odds=play.recover_odds, odds_uses_settings=True, involves=("helpers",), takes_context=True,
                      description="The test that gets rid of a condition."),
    "fate": Action(id="fate", name="Spend Fate", params=followups.FollowUp, resolve=followups.resolve_fate,
                   involves=FOLLOW_UP, takes_context=True, description="Reroll the 6s of your latest roll."),
    "deeper": Action(id="deeper", name="Deeper understanding", params=followups.FollowUp,
                     resolve=followups.resolve_deeper, involves=FOLLOW_UP, takes_context=True,
                     description="1 Fate and a wise: reroll one failed die."),
    "of_course": Action(id="of_course", name="Of course!", params=followups.FollowUp,
                        resolve=followups.resolve_of_course, involves=FOLLOW_UP, takes_context=True,
                        description="1 Persona and a wise: reroll every failed die."),
    "concede": Action(id="concede", name="Give the tie away", params=followups.FollowUp,
                      resolve=followups.resolve_concede, involves=FOLLOW_UP, takes_context=True,
                      description="A trait lets the opponent win the tie: 2 checks."),
    "tiebreak": Action(id="tiebreak", name="Tiebreaker", params=followups.FollowUp,
                       resolve=followups.resolve_tiebreak, involves=FOLLOW_UP, takes_context=True,
                       description="Roll Will or Health (Nature after those) to break the tie."),
    "consequence": Action(id="consequence", name="Twist or condition", params=followups.Consequence,
                          resolve=followups.resolve_consequence, narrator_only=True, takes_context=True,
                          description="The narrator's answer to a failure."),
    "clear": Action(id="clear", name="Lift a condition", params=followups.ClearCondition,
                    resolve=followups.resolve_clear, narrator_only=True, takes_context=True),
    "award": Action(id="award", name="Award", params=followups.Award, resolve=followups.resolve_award,
                    narrator_only=True, takes_context=True),
    "settings": Action(id="settings", name="Rabbits settings", params=followups.Settings,
                       resolve=followups.resolve_settings, narrator_only=True, needs_character=False,
                       takes_context=True),
}

RULINGS = (
    "A die showing 4–6 is a success; margins are the difference from the Ob (or between the sides).",
    "Fate, once per roll and after it: every 6 is rolled again as a new die, and new 6s keep rerolling.",
    "Persona: +1D each, at most 3 per roll, or 1 to tap Nature (never for Resources or Circles).",
    "Beginner's luck: Will or Health, with help and wise, halved rounding up; Persona and Nature added after. "
    "A skill is learned (at 2) after as many beginner's-luck tests as the rabbit's Nature.",
    "Advancement: a rating rises once it has as many passes as the rating and one fewer fails.",
    "Nature tax: a failure with Nature (rolled or tapped) costs the margin of failure; a success outside the "
    "rabbit's nature (flee, hide, dig, breed) costs 1.",
    "Ruling 1: starting Fate and Persona are a campaign setting (default 2 and 1), given at a rabbit's first roll.",
    "Ruling 2: Nature taxed to 0 retires the rabbit; it stays on the sheet, retired.",
    "Ruling 3: an Afraid rabbit cannot help and cannot use beginner's luck.",
    "Ties in versus tests, in this order: give the tie away with a trait (2 checks), then Fate, then a "
    "tiebreaker roll (a skill tie → Will or Health; a Will or Health tie → Nature; a Nature tie: the narrator).",
    "Checks are earned in the narrator's turn only. In the players' turn every test a player makes costs "
    "1 check; a recovery test in the narrator's turn costs 2; a trait's extra use costs 2.",
    "Traits: +1D once per session (a level-2 trait twice, a level-3 trait three times); after that, 2 checks.",
    "Deeper understanding (1 Fate) and Of course! (1 Persona) each need a wise that has not yet backed a "
    "reroll of that roll; each is used at most once per roll.",
    "A versus test against another rabbit rolls its plain rating (with its conditions); both rabbits may "
    "follow the roll up with their own Fate.",
)

SYSTEM = RuleSystem(
    id="rabbits",
    name="Rabbits",
    description="Rabbits with Nature (flee, hide, dig, breed): d6 pools, 4–6 succeed, Fate and Persona.",
    sheet=RabbitSheet,
    actions=ACTIONS,
    has_pages=True,
    public_sheet=public_sheet,
    create=create,
    rulings=RULINGS,
    seed_demo=seed_demo,
)
