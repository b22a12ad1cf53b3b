"""Cat: cats who test fate with even d6s (cat.txt; RULINGS.md, "Cat"). The rules are app/rules/cat.py;
this package is the sheet, the actions, the pages' data and the demo."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from app.systems.base import Action, Resolution, RuleSystem
from app.systems.cat import fight, play, table
from app.systems.cat.demo import seed_demo
from app.systems.cat.sheet import CatSheet, create, public_sheet

RULINGS = (
    "Traits: Claws, Coat, Face, Fangs, Legs, Tail. Ranks roll Best 5, Strong 4, Good 3, Hurt 2 dice; a Crippled "
    "Trait (0) cannot be used for Risks, fights or dodging. A new cat: one Best, three Strong, two Good; three "
    "names; 9 Lives; Reputations worth exactly 7 points, none above 3 (in play up to 5 Reputations, rank 5 at most).",
    "Ruling 1: scars are counted per Trait; every 3 scars lower the Trait one rank. The narrator advances game "
    "time by weeks on the Cat page: each cat heals one scar a week — the Trait its player chose, else the most "
    "scarred — so ranks come back by themselves.",
    "Ruling 2: a failed dangerous Risk gives as many scars as its lowest odd die; with no odd die, none. A Life "
    "spent to win a Risk rolls nothing: no scars, no Style.",
    "Ruling 3: evens beyond those needed become Style points, banked on the sheet, or spent at once to edit the "
    "scene (logged as a note). Banked Style spent on a roll counts as automatic evens (never dice: they never "
    "decide scars); those not needed come back.",
    "Scars wait on the sheet until the player places them among the Traits with a reason (or spends a Life to "
    "dodge the whole batch); a cat places them before its next Risk or fight round. The narrator may move a scar "
    "that lacks a good reason (logged).",
    "Ruling 4: a fight between cats is one exchange. The challenger names Fangs, Claws or a dodge first (hidden); "
    "the other cat answers on its own screen; the server rolls both. Each takes scars equal to the other's evens; "
    "a tie has no winner; a dodger takes and inflicts no scars and loses.",
    "Ruling 5: fights with foes go in rounds until one side is beaten, flees or dies; a dodging cat rolls Legs, "
    "each even cancels one scar, and inflicts none. A Life dodges all scars of one round. Both sides place their "
    "scars before the next round.",
    "Ruling 6: foes have any dice per Trait and a Lives count; the ship dog, rat, rat swarm and Boggin are "
    "editable examples, not canon. Decided here: a foe loses one die in a Trait per 3 scars there.",
    "Ruling 7: a cat with four Crippled Traits or no Lives is dead and cannot act; three Crippled Traits show a "
    "warning.",
    "Ruling 8: magic is optional and off by default (a campaign setting on the Cat page). Magic points: 5 + 1 per "
    "Tail rank above Hurt; using magic costs 1 point and rolls Tail; each extra point adds one die.",
    "Ruling 9: Reputation dice need the narrator's agreement. The narrator approves a Reputation for the scene "
    "(one tap on the cat's sheet, also answering the player's proposal); approvals end when the narrator clears "
    "them or the session changes. A narrator rolling for the cat counts as agreeing.",
    "Losing Reputation: the narrator docks a point with a reason; restoring it in the same session undoes the "
    "loss, later it is lost for good. A Reputation at 0 is gone.",
    "Getting a new Reputation (narrator action): the giving cat spends — loses — a fitting Reputation; the other "
    "cat gets a new one at half its rank, rounded down, minimum 1.",
)


def _a(id: str, name: str, params: type[BaseModel], resolve: Callable[..., Resolution], **kw: Any) -> Action:
    return Action(id=id, name=name, params=params, resolve=resolve, **kw)


ACTIONS = {a.id: a for a in (
    _a("test_fate", "Test fate", play.TestFate, play.resolve_test_fate, odds=play.fate_odds, takes_context=True),
    _a("edit_scene", "Edit the scene with Style", play.EditScene, play.resolve_edit_scene),
    _a("place_scars", "Place scars", play.PlaceScars, play.resolve_place_scars, takes_context=True),
    _a("dodge_with_life", "Spend a Life to dodge the scars", play.DodgeWithLife, play.resolve_dodge_with_life,
       takes_context=True),
    _a("propose_reputation", "Propose a Reputation", play.ProposeReputation, play.resolve_propose),
    _a("heal_first", "Choose what heals first", play.HealFirst, play.resolve_heal_first),
    _a("notes", "Save notes", play.Notes, play.resolve_notes),
    _a("move_scar", "Move a scar", play.MoveScar, play.resolve_move_scar, narrator_only=True),
    _a("grant_advantage", "Grant Advantage Dice", play.GrantAdvantage, play.resolve_grant_advantage,
       narrator_only=True),
    _a("approve_reputation", "Approve a Reputation for the scene", play.ApproveReputation, play.resolve_approve,
       narrator_only=True, takes_context=True),
    _a("clear_approvals", "Clear Reputation approvals", play.ClearApprovals, play.resolve_clear_approvals,
       narrator_only=True),
    _a("dock_reputation", "Dock a Reputation point", table.DockReputation, table.resolve_dock, narrator_only=True,
       takes_context=True),
    _a("restore_reputation", "Restore a docked Reputation", table.RestoreReputation, table.resolve_restore,
       narrator_only=True, takes_context=True),
    _a("gift_reputation", "Give a new Reputation", table.GiftReputation, table.resolve_gift, narrator_only=True,
       involves=("recipient_id",), takes_context=True),
    _a("advance_time", "Advance game time", table.AdvanceTime, table.resolve_advance_time, narrator_only=True,
       needs_character=False, involves=("cat_ids",), takes_context=True),
    _a("settings", "Cat settings", table.Settings, table.resolve_settings, narrator_only=True, needs_character=False,
       takes_context=True),
    _a("challenge", "Challenge a cat", fight.Challenge, fight.resolve_challenge, involves=("opponent_id",),
       takes_context=True, encounter="create"),
    _a("answer", "Answer the challenge", fight.Answer, fight.resolve_answer, involves=("opponent_id",),
       takes_context=True, encounter="step"),
    _a("start_foe_fight", "Attack a cat with this foe", fight.StartFoeFight, fight.resolve_start_foe_fight,
       narrator_only=True, involves=("cat_id",), takes_context=True, encounter="create"),
    _a("foe_round", "Fight a round", fight.FoeRound, fight.resolve_foe_round, involves=("foe_id",),
       takes_context=True, encounter="step"),
    _a("end_fight", "End the fight", fight.EndFight, fight.resolve_end_fight, takes_context=True, encounter="step"),
)}

SYSTEM = RuleSystem(
    id="cat",
    name="Cat",
    description="Cats testing fate with even d6s: Traits, scars, nine Lives, Style and Reputation.",
    sheet=CatSheet,
    actions=ACTIONS,
    has_pages=True,
    public_sheet=public_sheet,
    create=create,
    rulings=RULINGS,
    seed_demo=seed_demo,
)
