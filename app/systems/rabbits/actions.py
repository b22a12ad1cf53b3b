"""The Rabbits' actions: tests (play.py, versus.py), their follow-ups and the narrator's answers
(followups.py)."""

from __future__ import annotations

from app.systems.base import Action
from app.systems.rabbits import (
    conflict,
    conflict_disposition,
    conflict_end,
    conflict_fate,
    conflict_odds,
    conflict_script,
    conflict_volley,
    followups,
    play,
    versus,
)

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
    # --- conflicts (conflict*.py; docs/RABBITS-CONFLICTS.md) ---
    Action("conflict_setup", "Set up a conflict", conflict.SetupParams, conflict.resolve_setup, narrator_only=True,
           needs_character=False, involves=("a_members", "b_members"), encounter="create",
           description="Conflict type, two teams with a captain and a goal each."),
    Action("conflict_disposition", "Roll disposition", conflict_disposition.DispositionParams,
           conflict_disposition.resolve_disposition,
           encounter="step", description="The captain tests the listed skill; teammates help."),
    Action("conflict_spread", "Spread the disposition", conflict_disposition.SpreadParams,
           conflict_disposition.resolve_spread,
           encounter="step", description="The team's disposition shared among its rabbits, for display."),
    Action("conflict_script", "Script the volley", conflict_script.ScriptParams, conflict_script.resolve_script,
           encounter="step", description="Three actions in private; locking logs a commitment of each."),
    Action("conflict_roll", "Roll the action", conflict_volley.RollParams, conflict_volley.resolve_roll,
           odds=conflict_odds.roll_odds, encounter="step", description="Test the revealed action."),
    Action("conflict_fate", "Fate on the action", conflict_fate.FateParams, conflict_fate.resolve_fate,
           encounter="step", description="Reroll the 6s of your conflict roll, or keep it."),
    Action("conflict_maneuver", "Spend a maneuver", conflict_volley.ManeuverParams, conflict_volley.resolve_maneuver,
           encounter="step", needs_character=False, description="Impede, gain position or disarm."),
    Action("conflict_end", "Record the compromise", conflict_end.EndParams, conflict_end.resolve_end,
           encounter="step", narrator_only=True, needs_character=False,
           description="The compromise in words, and the conditions the outcome brings."),
    Action("conflict_call_off", "Call the conflict off", conflict_end.CallOffParams, conflict_end.resolve_call_off,
           encounter="step", narrator_only=True, needs_character=False,
           description="Stop the conflict with a reason: no winner, no compromise."),
    Action("conflict_settings", "Weapons in conflicts", conflict.ConflictSettings, conflict.resolve_conflict_settings,
           narrator_only=True, needs_character=False),
)
