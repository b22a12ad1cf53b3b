"""The chance on every ART combat roll button is exactly the chance of the roll the step then makes: the odds
function and the resolve function read the same trait, bonuses and difficulty shift (a dodge's bonus, a
grapple's -4, a failed grapple's modifier, a fumble's penalty). Each check takes the odds first, then makes
the step with scripted dice and recomputes the probability from the row and difficulty the server rolled
with (the sheet's note of its last roll)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.art_fight import Fight, face, sword_fight

from app.encounters.models import Encounter
from app.systems import Context, get_action
from app.systems.art import rules as art
from app.systems.art.fight.models import CombatState
from app.systems.art.rules import Level
from app.systems.art.sheet import defense, load, weapon_stats

SHIELD = {"name": "Buckler", "slot": "at_hand", "type": "shield", "cost": "Struggling"}


@pytest.fixture
def fight(play: Play) -> Fight:
    """Maren and Tom (swords) against a Goblin, all in band 2; Maren, Tom, then the Goblin act."""
    return sword_fight(play, (face(7, "GD"), face(7, "PR")))


def change(fight: Fight, fid: int | None = None, *, pending: dict[str, Any] | None = None, **fields: Any) -> None:
    """Put a fighter (or the pending reaction) into the state a test needs, as earlier steps would have."""
    with fight.play.factory() as db:
        enc = db.get(Encounter, fight.encounter_id)
        state = dict(enc.state)
        state["fighters"] = [{**f, **fields} if f["id"] == fid else f for f in state["fighters"]]
        if pending is not None:
            state["pending"] = {**state["pending"], **pending}
        enc.state = state
        db.commit()


def odds(fight: Fight, cid: int, action: str, **params: Any) -> Any:
    """The odds on the button, with the context the odds route gives (the state, the adventurers' sheets)."""
    enc = fight.encounter()
    others = {c: load(fight.sheet(c)) for c in (fight.play.hero, fight.play.friend) if c != cid}
    ctx = Context(
        character_id=cid,
        others=others,
        encounter={
            "id": enc.id,
            "kind": enc.kind,
            "state": CombatState.model_validate(enc.state),
            "participants": list(enc.participants),
            "version": enc.version,
        },
    )
    _system, act = get_action("art", action)
    p = act.params.model_validate({"encounter_id": enc.id, "version": enc.version, **params})
    return act.odds(load(fight.sheet(cid)), p, ctx)


def chance_rolled(fight: Fight, cid: int) -> tuple[int, str, Fraction]:
    """The row and difficulty of the roll the server just made, and the exact chance of success of it."""
    last = fight.sheet(cid)["last_roll"]
    difficulty = Level[last["difficulty"]]
    p = sum((q for lv, q in art.result_odds(last["row"]).items() if art.count(difficulty, lv) > 0), Fraction(0))
    return last["row"], last["difficulty"], p


def check(
    fight: Fight, who: int, cid: int, action: str, faces: list[int], *, shown: str | None = None, **params: Any
) -> dict[str, Any]:
    before = odds(fight, cid, action, **({"shown_difficulty": shown} if shown else {}), **params)
    body = fight.step(who, action, cid, faces, **params)
    row, difficulty, p = chance_rolled(fight, cid)
    assert before.details["row"] == row, (action, before.text)
    assert before.chance == pytest.approx(float(p)), (action, before.text, row, difficulty)
    return body


def rolls(fight: Fight, cid: int, code: str, level: str) -> int:
    """The face that rolls `level` on the row of the character's attribute."""
    row = art.effective_row(art.trait_total(load(fight.sheet(cid)).attributes[code] or 1, [], 0))
    return face(row, level)


def to_goblin(fight: Fight) -> None:
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)


def test_dodge_with_a_fumble_penalty_then_defense_with_the_dodge_bonus(fight: Fight) -> None:
    maren = fight.play.hero
    change(fight, maren, penalty={"columns": 2, "turns": 1})  # a fumble's +2 difficulty
    check(fight, PIA, maren, "combat_dodge", [rolls(fight, maren, "AGI", "GD")])
    assert fight.sheet(maren)["last_roll"]["difficulty"] == "PS"  # Inferior + 2 columns
    bonus = fight.fighter(maren)["dodge"]["bonus"]
    assert bonus > 0
    to_goblin(fight)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=maren)
    pending = fight.state()["pending"]
    # the narrator's page shows the Attack; the chance has the dodge's bonus in it
    body = check(fight, PIA, maren, "combat_defend", [50], shown=pending["attack"])
    assert body["outcome"]["trait"] == defense(load(fight.sheet(maren))) + bonus


def test_defense_in_a_grapple_after_a_failed_grapple_with_a_penalty_and_a_shield(fight: Fight) -> None:
    maren = fight.play.hero
    fight.play.act(PIA, "add_item", SHIELD)
    to_goblin(fight)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=maren)
    change(
        fight,
        maren,
        grapple={"with": fight.play.foe, "bonus": 1},
        penalty={"columns": 1, "turns": 1},
        dodge={"bonus": 4, "difficulty": 1},
        pending={"modifier": -1},
    )
    before = odds(fight, maren, "combat_defend", use_shield=True)
    assert before.chance is None and "-1 on your roll from the combat" in before.text  # +4 -4 -1 (the level: secret)
    body = check(fight, PIA, maren, "combat_defend", [50], shown="PR", use_shield=True)
    shield = art.SHIELDS[art.fortune_rank("Struggling")][0]
    assert body["outcome"]["trait"] == defense(load(fight.sheet(maren))) + 4 - 4 - 1 + shield
    assert fight.sheet(maren)["last_roll"]["difficulty"] == "GD"  # Poor + 1 (penalty) + 1 (the dodge's fall)


def test_parry_free_action_aoe_and_the_foes_blast_with_a_penalty(fight: Fight) -> None:
    maren, tom = fight.play.hero, fight.play.friend
    change(fight, maren, penalty={"columns": 1, "turns": 2}, prone=True)
    check(fight, PIA, maren, "combat_free_action", [rolls(fight, maren, "AGI", "GD")], what="stand")
    fight.step(NARRATOR, "combat_place", None, target=tom, band=4)
    check(
        fight,
        PIA,
        maren,
        "combat_aoe",
        [rolls(fight, maren, "DEX", "GD")],
        band=4,
        weapon=-1,
        damage="PR",
        targets=1,
        origin=2,
    )
    fight.step(PIA, "combat_aoe_hit", maren, [50])
    fight.step(PIA, "combat_end_turn", maren)
    fight.step(OTTO, "combat_end_turn", tom)
    # the Goblin's blast: Maren rolls Fate with her penalty; then its attack, her Defense, her parry
    fight.step(NARRATOR, "combat_foe_aoe", fight.play.foe, band=2, max_range=3, damage="IN", targets=1)
    check(
        fight,
        PIA,
        maren,
        "combat_aoe_fate",
        [rolls(fight, maren, "FAT", "GD")],
        shown=fight.state()["pending"]["difficulty"],
    )
    fight.step(NARRATOR, "combat_aoe_hit", fight.play.foe, [50])
    change(fight, fight.play.foe, out=False)
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    fight.step(PIA, "combat_wait", maren, after=fight.play.foe)  # so she may still parry (not after her turn)
    fight.step(OTTO, "combat_end_turn", tom)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=maren)
    change(fight, maren, penalty={"columns": 1, "turns": 1})
    fight.step(PIA, "combat_defend", maren, [1])
    pending = fight.state()["pending"]
    assert pending["kind"] == "parry"
    check(fight, PIA, maren, "combat_parry", [50], shown=pending["damage"], item=pending["items"][0])


@pytest.mark.parametrize(("foe", "code"), [(False, "AGI"), (True, "CUN")])
def test_the_fumble_button_reads_the_column_rolled(fight: Fight, foe: bool, code: str) -> None:
    """An adventurer's own fumble: Agility, Awesome recovers; a foe's fumble: the player's Cunning (reversed
    column), Awesome is the worst for the foe."""
    maren = fight.play.hero
    sheet = load(fight.sheet(maren))
    if foe:
        to_goblin(fight)
        fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=maren)
        fight.step(PIA, "combat_defend", maren, [100])  # Awesome: the Goblin fumbles
    else:
        row = art.effective_row(int(weapon_stats(sheet, sheet.gear[0])["attack"]))
        fight.step(PIA, "combat_attack", maren, [face(row, "CT")], target=fight.play.foe)
    assert fight.state()["pending"]["kind"] == "fumble"
    before = odds(fight, maren, "combat_fumble")
    body = fight.step(PIA, "combat_fumble", maren, [100])
    assert fight.sheet(maren)["last_roll"]["attribute"] == code
    row = art.effective_row(art.trait_total(sheet.attributes[code] or 1, [], 0))
    assert before.details["row"] == body["outcome"]["row"] == row
    assert before.chance == pytest.approx(float(art.result_odds(row)[Level.AW]))
    assert ("worst for the foe" in before.details["label"]) is foe
    assert body["outcome"]["effect"] == ("penalty_2" if foe else "recover")


def test_attack_maneuver_sneak_and_stop_with_a_penalty_on_the_narrators_page(fight: Fight) -> None:
    maren, tom, goblin = fight.play.hero, fight.play.friend, fight.play.foe
    change(fight, maren, penalty={"columns": 1, "turns": 2}, aim=4)
    fight.set_sheet(goblin, levels={**load(fight.sheet(goblin)).levels, "AGI": "GT"})  # quick enough to get away
    levels = load(fight.sheet(goblin)).levels
    check(fight, PIA, maren, "combat_attack", [50], shown=f"{goblin}={levels['DEF']};", target=goblin, weapon=0)
    fight.step(PIA, "combat_end_turn", maren)
    change(fight, tom, penalty={"columns": 2, "turns": 1})
    check(
        fight,
        OTTO,
        tom,
        "combat_maneuver",
        [rolls(fight, tom, "STR", "PS")],
        shown=levels["AGI"],
        target=goblin,
        maneuver="knock_down",
    )
    fight.step(OTTO, "combat_end_turn", tom)
    fight.step(NARRATOR, "combat_end_turn", goblin)
    # round 2: Maren sneaks away (the Goblin's Alertness), the Goblin tries to follow; Tom tries to stop it
    check(fight, PIA, maren, "combat_sneak", [rolls(fight, maren, "AGI", "GD")], shown=levels["ALE"], band=3)
    fight.step(PIA, "combat_end_turn", maren)
    fight.step(OTTO, "combat_end_turn", tom)
    fight.step(NARRATOR, "combat_foe_move", goblin, band=1)
    assert fight.state()["pending"]["kind"] == "stop"
    change(fight, tom, penalty={"columns": 1, "turns": 1})
    check(fight, OTTO, tom, "combat_stop", [50], shown=levels["AGI"])
