"""The Rabbits' actions: tests (play.py, versus.py), their follow-ups and the narrator's answers
(followups.py)."""

from __future__ import annotations

from app.systems.base import Action
from app.systems.rabbits import followups, play, versus

FOLLOW_UP = ("opponent_id",)

ACTIONS: tuple[Action, ...] = (
    Action("test", "Test", play.TestParams, play.resolve_test, odds=play.test_odds, involves=("helpers",),
           description="An independent test against an obstacle."),
    Action("versus", "Versus test", versus.VersusParams, versus.resolve_versus, odds=versus.versus_odds,
           involves=("helpers", "opponent_id"), description="Most successes wins: against a rabbit or a set pool."),
    Action("recover", "Recover", play.RecoverParams, play.resolve_recover, odds=play.recover_odds,
           involves=("helpers",), description="The test that gets rid of a condition."),
    Action("fate", "Spend Fate", followups.FollowUp, followups.resolve_fate, involves=FOLLOW_UP,
           description="Reroll the 6s of your latest roll."),
    Action("deeper", "Deeper understanding", followups.FollowUp, followups.resolve_deeper, involves=FOLLOW_UP,
           description="1 Fate and a wise: reroll one failed die."),
    Action("of_course", "Of course!", followups.FollowUp, followups.resolve_of_course, involves=FOLLOW_UP,
           description="1 Persona and a wise: reroll every failed die."),
    Action("concede", "Give the tie away", followups.FollowUp, followups.resolve_concede, involves=FOLLOW_UP,
           description="A trait lets the opponent win the tie: 2 checks."),
    Action("tiebreak", "Tiebreaker", followups.FollowUp, followups.resolve_tiebreak, involves=FOLLOW_UP,
           description="Roll Will or Health (Nature after those) to break the tie."),
    Action("consequence", "Twist or condition", followups.Consequence, followups.resolve_consequence,
           narrator_only=True, description="The narrator's answer to a failure."),
    Action("clear", "Lift a condition", followups.ClearCondition, followups.resolve_clear, narrator_only=True),
    Action("award", "Award", followups.Award, followups.resolve_award, narrator_only=True),
    Action("settings", "Rabbits settings", followups.Settings, followups.resolve_settings, narrator_only=True,
           needs_character=False),
)
