"""The ART Engine in the leak test (tests/security/test_hidden_results.py, through tests/utils/leak.py): the hidden
actions it plays, how the world's characters are made, what it cannot hide."""

from __future__ import annotations

from typing import Any

from utils.art import GOBLIN, balanced_fields
from utils.leak import Case, Leak, LeakWorld

from app.characters.models import Character
from app.rolls import service as rolls
from app.rules.dice import ScriptedDice

ART_HERO = balanced_fields()
ART_FOE = {**GOBLIN, "level_ALE": "IN"}

CASES = [
    Case("art-trait_roll", "art", "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [73], [2]),
    Case("art-trait_roll-foe", "art", "trait_roll", {"attribute": "ALE", "opponent_id": "{foe}"}, [99], [2]),
    Case("art-defend", "art", "defend", {"attack": "PR"}, [99], [2]),
    Case("art-attack-foe", "art", "attack", {"weapon": "0", "opponent_id": "{foe}"}, [99], [70], setup="sword"),
    Case(
        "art-henchman_roll",
        "art",
        "henchman_roll",
        {"henchman_id": "{foe}", "attribute": "STR", "difficulty": "PR"},
        [99],
        [2],
        setup="henchman",
        changes_sheet=False,
    ),
    Case(
        "art-first_aid",
        "art",
        "first_aid",
        {"box": "0"},
        [],
        [],
        setup="wounded",
        compare=False,
        secrets={"success": ["box is healed"]},
    ),
    Case("art-rest", "art", "rest", {}, [99], [2], setup="wounded"),
    Case("art-med_kit", "art", "med_kit", {"item": "0"}, [99], [2], setup="medkit"),
]


def characters(world: LeakWorld, db: Any) -> None:
    world.ids["mine"] = world.make(db, "pia", "Maren", dict(ART_HERO))
    world.ids["theirs"] = world.make(db, "otto", "Tom", dict(ART_HERO))
    world.ids["foe"] = world.make(db, "nora", "Goblin", dict(ART_FOE), kind="npc")
    # A combat in the open (its initiative rolled), so the ART encounter pages are walked too.
    req = rolls.ActionRequest(
        system="art",
        action="combat_setup",
        params={"adventurers": [world.ids["mine"], world.ids["theirs"]], "foes": [world.ids["foe"]]},
    )
    result = rolls.perform_action(db, world.acc(db, "nora"), req)
    assert result.encounter_id is not None
    world.encounters.append(result.encounter_id)
    for who, key, face in (("pia", "mine", 40), ("otto", "theirs", 70)):
        req = rolls.ActionRequest(
            system="art",
            action="combat_initiative",
            character_id=world.ids[key],
            params={"encounter_id": result.encounter_id, "version": 1 + (key == "theirs")},
        )
        rolls.perform_action(db, world.acc(db, who), req, dice=ScriptedDice([face]))


def prepare(world: LeakWorld, setup: str) -> None:
    """A sword to attack with, a med-kit, a goblin that is a henchman, a hero with a checked Health box."""
    if setup == "sword":
        world.act_public(
            "pia",
            "add_item",
            {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"},
        )
        return
    if setup == "medkit":
        world.act_public(
            "pia", "add_item", {"name": "Med-kit", "slot": "at_hand", "type": "medkit", "uses": 3, "bonus": 1}
        )
    with world.factory() as db:
        if setup == "henchman":
            ch = db.get(Character, world.ids["foe"])
            ch.sheet = {**ch.sheet, "henchman": True}
        elif setup in ("wounded", "medkit"):
            ch = db.get(Character, world.ids["mine"])
            checked = [False] * len(ch.sheet["health"])
            checked[0] = True
            ch.sheet = {**ch.sheet, "checked": checked, "fame": max(3, int(ch.sheet.get("fame", 0)))}
        db.commit()


LEAK = Leak(
    cases=CASES,
    characters=characters,
    prepare=prepare,
    not_played={
        "upload_table": {
            "csv": "\n".join(["row,CT,PT,FB,IN,PR,PS,GD,GT,SP,AW"] + [f"{r},1,2,3,4,5,6,7,8,9,100" for r in range(31)])
        },
        "default_table": {},  # after the upload (back to the default is refused while it is in use)
        "combat_initiative_setting": {"simplified": True},
    },
    follow_ups=frozenset(
        {
            "fame_after",
            "inspire",
            "start_complex",
            "end_complex",
            "add_item",
            "move_item",
            "armor",
            "raise_attribute",
            "buy_perk",
            "buy_health",
            "buy_skill",
            "roll_attributes",
            "take_damage",
            "fatigue",
            "sustained_damage",
            "end_sustained_damage",
            "end_session",
            "award_glory",
            "combine",
        }
    ),
)
