"""A narrator's foe attacking into a grapple from outside (Fate decides who is hit, the narrator on a tie) and
a Fumble table result that gives the opponent a free attack (art-engine.md ch. 5 "Fighting in a Grapple",
"Fumble Table")."""

from __future__ import annotations

from typing import Any

import pytest
from utils.art import FOE, NARRATOR, OTTO, PIA, Play
from utils.art_fight import Fight, face, sword_fight

from app.errors import BadRequest
from app.i18n import render
from app.systems.art import rules as art
from app.systems.art.sheet import load, weapon_stats


def said(body: dict[str, Any]) -> str:
    return render(body["summary"], "en")


def row_of(fight: Fight, cid: int, code: str) -> int:
    return art.effective_row(art.trait_total(load(fight.sheet(cid)).attributes[code] or 1, [], 0))


def orc_of(fight: Fight) -> int:
    """The fixture's second foe (the Orc), from the combat's participants."""
    return next(p["character_id"] for p in fight.encounter().participants if p["name"] == "Orc")


@pytest.fixture
def fight(play: Play) -> Fight:
    """Maren (a sword) and Tom against a Goblin and an Orc, all in band 2; Maren has grappled the Goblin and
    it is the Orc's turn."""
    orc = Fight(play).add("Orc", dict(FOE))
    f = sword_fight(play, (face(7, "GD"), face(7, "PR")), foes=[play.foe, orc])
    body = f.step(PIA, "combat_maneuver", play.hero, [face(9, "GD")], target=play.foe, maneuver="grapple")
    assert "grapples Goblin" in said(body)
    f.step(PIA, "combat_end_turn", play.hero)
    f.step(OTTO, "combat_end_turn", play.friend)
    if f.turn() == play.foe:
        f.step(NARRATOR, "combat_end_turn", play.foe)
    assert f.turn() == orc
    return f


def test_a_foe_attacking_into_a_grapple_hits_the_lowest_fate(fight: Fight) -> None:
    orc, maren = orc_of(fight), fight.play.hero
    # Maren rolls Fate Catastrophic, below the Goblin's Poor rating: the Orc's attack goes to Maren
    body = fight.step(
        NARRATOR,
        "combat_foe_attack",
        orc,
        [face(row_of(fight, maren, "FAT"), "CT")],
        target=maren,
        attack_with="one_handed",
    )
    text = said(body)
    assert "Orc attacks into the grapple: Fate " in text and "Maren Catastrophic" in text
    assert "Goblin (rating)" in text and "Goblin Poor" not in text  # a foe's Fate is the narrator's
    assert "→ Maren is hit" in text and "Orc attacks Maren" in text
    pending = fight.state()["pending"]
    assert pending["kind"] == "defense" and pending["defender"] == maren and pending["attacker"] == orc
    assert len(body["dice"]) == 1  # Maren's Fate roll; foes never roll
    # the hit goes on through the ordinary Defense flow
    fight.step(PIA, "combat_defend", maren, [50])
    assert (fight.state()["pending"] or {}).get("kind") != "defense"


def test_a_foe_attacking_into_a_grapple_on_a_fate_tie_the_narrator_chooses(fight: Fight) -> None:
    orc, maren, goblin = orc_of(fight), fight.play.hero, fight.play.foe
    body = fight.step(
        NARRATOR,
        "combat_foe_attack",
        orc,
        [face(row_of(fight, maren, "FAT"), "PR")],
        target=maren,
        attack_with="two_handed",
        from_behind=True,
    )
    assert "a tie: Orc chooses who is hit" in said(body)
    pending = fight.state()["pending"]
    assert pending["kind"] == "grapple_tie" and sorted(pending["options"]) == sorted([maren, goblin])
    assert pending["foe_attack"] == {
        "attack_with": "two_handed",
        "surprised": False,
        "from_behind": True,
        "reach": False,
    }
    with pytest.raises(BadRequest):  # only the attacker's narrator decides
        fight.step(PIA, "combat_grapple_hit", maren, [], target=goblin)
    with pytest.raises(BadRequest):  # someone not tied
        fight.step(NARRATOR, "combat_grapple_hit", orc, [], target=fight.play.friend)
    body = fight.step(NARRATOR, "combat_grapple_hit", orc, [], target=maren)
    assert "Orc chooses Maren in the grapple; Orc attacks Maren from behind" in said(body)
    pending = fight.state()["pending"]
    assert pending["kind"] == "defense" and pending["defender"] == maren and pending["from_behind"]
    assert pending["attack_with"] == "two_handed" and fight.state()["turn"]["action"]


def test_a_foe_choosing_the_goblin_on_a_tie_leaves_the_damage_to_the_narrator(fight: Fight) -> None:
    orc, maren, goblin = orc_of(fight), fight.play.hero, fight.play.foe
    fight.step(NARRATOR, "combat_foe_attack", orc, [face(row_of(fight, maren, "FAT"), "PR")], target=maren)
    body = fight.step(NARRATOR, "combat_grapple_hit", orc, [], target=goblin)
    assert "Orc chooses Goblin in the grapple; Orc strikes Goblin: the narrator marks the damage" in said(body)
    assert fight.state()["pending"] is None and fight.state()["turn"]["action"]


def test_a_foe_inside_the_grapple_is_not_diverted(fight: Fight) -> None:
    goblin, maren = fight.play.foe, fight.play.hero
    fight.step(NARRATOR, "combat_end_turn", orc_of(fight))
    while fight.turn() != goblin:
        cid = fight.turn()
        fight.step(PIA if cid == maren else OTTO if cid == fight.play.friend else NARRATOR, "combat_end_turn", cid)
    body = fight.step(NARRATOR, "combat_foe_attack", goblin, [], target=maren)
    assert "into the grapple" not in said(body) and body["dice"] == []
    assert fight.state()["pending"]["defender"] == maren


def test_a_foe_fumble_gives_the_player_a_free_attack_that_is_then_taken(fight: Fight) -> None:
    orc, maren = orc_of(fight), fight.play.hero
    fight.step(NARRATOR, "combat_foe_attack", orc, [face(row_of(fight, maren, "FAT"), "CT")], target=maren)
    body = fight.step(PIA, "combat_defend", maren, [100])  # Awesome Defense: the Orc fumbles
    assert "Orc fumbles" in said(body) and fight.state()["pending"]["kind"] == "fumble"
    assert "free_attack" not in fight.fighter(maren)
    # Maren's Cunning Good reads "the target gets a free attack" for a foe's fumble
    body = fight.step(PIA, "combat_fumble", maren, [face(row_of(fight, maren, "CUN"), "GD")])
    assert body["outcome"]["effect"] == "free_attack"
    assert "Maren may attack Orc at once" in said(body)
    assert fight.fighter(maren)["free_attack"] == {"perk": "Fumble", "target": orc}
    assert fight.state()["pending"] is None
    with pytest.raises(BadRequest):  # Tom has none
        fight.step(OTTO, "combat_free_attack", fight.play.friend, [50])
    sheet = load(fight.sheet(maren))
    row = art.effective_row(int(weapon_stats(sheet, sheet.gear[0])["attack"]))
    body = fight.step(PIA, "combat_free_attack", maren, [face(row, "GD")])
    assert "Maren's free attack (Fumble) on Orc" in said(body) and body["outcome"]["row"] == row
    assert "free_attack" not in fight.fighter(maren)
    assert fight.sheet(orc)["checked"] != [False, False, False, False]  # the Orc took the hit
    assert fight.turn() == orc  # out of turn: still the Orc's turn
    with pytest.raises(BadRequest):  # used up
        fight.step(PIA, "combat_free_attack", maren, [50])


def test_a_foe_fumble_striking_a_friend_keeps_the_foes_fate_out_of_the_log(fight: Fight) -> None:
    """The Fumble table's "hit a friend" for a foe: its friends (foes) use their Fate rating, the narrator's."""
    orc, maren = orc_of(fight), fight.play.hero
    fight.set_sheet(maren, attributes={**fight.sheet(maren)["attributes"], "CUN": 8})  # (a row that rolls Great)
    fight.step(NARRATOR, "combat_foe_attack", orc, [face(row_of(fight, maren, "FAT"), "CT")], target=maren)
    fight.step(PIA, "combat_defend", maren, [100])  # Awesome Defense: the Orc fumbles
    # Cunning Great reads the Agility Feeble row on the reversed column: the Orc strikes a friend
    body = fight.step(PIA, "combat_fumble", maren, [face(row_of(fight, maren, "CUN"), "GT")])
    assert body["outcome"]["effect"] == "hit_friend"
    text = said(body)
    assert "Goblin is struck" in text and "Goblin (rating)" in text and "Goblin Poor" not in text, text
