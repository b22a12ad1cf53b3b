"""Protecting a companion and playing dead (art-engine.md ch. 5 "Protecting", "Playing Dead") through the
rules service with scripted dice: who may protect and when, the attack moving to the protector, the turn
forfeited either way; playing dead after a hit, which foes are fooled kept for the narrator."""

from __future__ import annotations

import pytest
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.art_fight import Fight, face, sword_fight
from utils.said import said

from app.errors import BadRequest
from app.systems.art import SYSTEM
from app.systems.art import rules as art
from app.systems.art.sheet import load
from app.systems.base import EncounterViewer


@pytest.fixture
def fight(play: Play) -> Fight:
    """Maren and Tom (swords) against a Goblin, all in band 2; Maren, Tom, then the Goblin act."""
    return sword_fight(play, (face(7, "GD"), face(7, "PR")))


def rolls(fight: Fight, cid: int, code: str, level: str) -> int:
    row = art.effective_row(art.trait_total(load(fight.sheet(cid)).attributes[code] or 1, [], 0))
    return face(row, level)


def goblin_attacks_maren_before_tom_acts(fight: Fight) -> None:
    """Round 1: Maren ends her turn, Tom waits until after the Goblin, the Goblin attacks Maren."""
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_wait", fight.play.friend, after=fight.play.foe)
    body = fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero)
    assert "Maren must roll Defense" in said(body)


def test_protecting_moves_the_attack_to_the_protector_who_forfeits_the_turn(fight: Fight) -> None:
    maren, tom = fight.play.hero, fight.play.friend
    goblin_attacks_maren_before_tom_acts(fight)
    with pytest.raises(BadRequest):  # the one attacked does not protect herself
        fight.step(PIA, "combat_protect", maren, [50])
    body = fight.step(OTTO, "combat_protect", tom, [rolls(fight, tom, "AGI", "PS")])
    text = said(body)
    assert "Tom tries to protect Maren" in text and "Tom jumps in front of Maren: the attack is on Tom now" in text
    assert "Tom forfeits this round's turn" in text and body["outcome"]["protected"] is True
    state = fight.state()
    assert state["pending"]["defender"] == tom and state["pending"]["kind"] == "defense"
    assert state["pending"]["protected"] == maren and tom not in state["order"]
    with pytest.raises(BadRequest):  # not again on this attack
        fight.step(PIA, "combat_protect", maren, [50])
    with pytest.raises(BadRequest):  # Maren no longer rolls Defense against it
        fight.step(PIA, "combat_defend", maren, [50])
    body = fight.step(OTTO, "combat_defend", tom, [50])
    assert "Tom defends against Goblin" in said(body)


def test_a_failed_protect_still_forfeits_the_turn_and_only_a_companion_in_the_band_may_try(fight: Fight) -> None:
    maren, tom = fight.play.hero, fight.play.friend
    goblin_attacks_maren_before_tom_acts(fight)
    fight.step(NARRATOR, "combat_place", None, target=tom, band=3)
    with pytest.raises(BadRequest) as caught:  # another band
        fight.step(OTTO, "combat_protect", tom, [50])
    assert "same band" in caught.value.message
    fight.step(NARRATOR, "combat_place", None, target=tom, band=2)
    body = fight.step(OTTO, "combat_protect", tom, [rolls(fight, tom, "AGI", "PR")])
    assert "Tom does not get in front of Maren" in said(body) and body["outcome"]["protected"] is False
    state = fight.state()
    assert state["pending"]["defender"] == maren and tom not in state["order"]
    with pytest.raises(BadRequest):  # one try
        fight.step(OTTO, "combat_protect", tom, [50])


def test_no_protect_after_acting_this_round_or_against_a_player(fight: Fight) -> None:
    maren, tom = fight.play.hero, fight.play.friend
    fight.step(PIA, "combat_end_turn", maren)
    fight.step(OTTO, "combat_end_turn", tom)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=maren)
    with pytest.raises(BadRequest):  # Tom has acted this round
        fight.step(OTTO, "combat_protect", tom, [50])


def test_playing_dead_after_a_hit_keeps_who_is_fooled_for_the_narrator(fight: Fight) -> None:
    maren, goblin = fight.play.hero, fight.play.foe
    with pytest.raises(BadRequest):  # not hit
        fight.step(PIA, "combat_play_dead", maren, [50])
    fight.set_sheet(goblin, levels={**load(fight.sheet(goblin)).levels, "INT": "GT"})
    fight.step(PIA, "combat_end_turn", maren)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", goblin, target=maren)
    fight.step(PIA, "combat_defend", maren, [1])
    assert fight.sheet(maren)["checked"].count(True) >= 1
    assert fight.fighter(maren)["may_play_dead"]
    with pytest.raises(BadRequest):  # only the one hit
        fight.step(OTTO, "combat_play_dead", fight.play.friend, [50])
    # a Good Cunning roll: the Goblin's Great Intelligence sees through it
    body = fight.step(PIA, "combat_play_dead", maren, [rolls(fight, maren, "CUN", "GD")])
    text = said(body)
    assert "Maren plays dead" in text and "the narrator knows which foes are fooled" in text
    assert "Great" not in text and "Goblin" not in text
    me = fight.fighter(maren)
    assert me["playing_dead"] and me["ruse"] == {"fooled": [], "seen": [goblin]} and "may_play_dead" not in me
    state = fight.state()
    player = SYSTEM.kind("combat").shown(state, EncounterViewer(is_narrator=False, controls=frozenset({maren})))
    assert all("ruse" not in f for f in player["fighters"])
    narrator = SYSTEM.kind("combat").shown(state, EncounterViewer(is_narrator=True))
    assert next(f for f in narrator["fighters"] if f["id"] == maren)["ruse"]["seen"] == [goblin]
    with pytest.raises(BadRequest):  # once
        fight.step(PIA, "combat_play_dead", maren, [50])
    # her next turn: acting ends the ruse
    fight.step(NARRATOR, "combat_end_turn", goblin)
    while fight.turn() != maren:  # (staggered by the hit, she may lose a turn)
        who = fight.turn()
        fight.step(OTTO if who == fight.play.friend else NARRATOR, "combat_end_turn", who)
    assert fight.fighter(maren)["playing_dead"]  # lying still through turns
    fight.step(PIA, "combat_aim", maren)
    assert "playing_dead" not in fight.fighter(maren) and "ruse" not in fight.fighter(maren)


def test_a_foe_with_lower_levels_is_fooled(fight: Fight) -> None:
    maren, goblin = fight.play.hero, fight.play.foe
    fight.step(PIA, "combat_end_turn", maren)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", goblin, target=maren)
    fight.step(PIA, "combat_defend", maren, [1])
    fight.step(PIA, "combat_play_dead", maren, [rolls(fight, maren, "CUN", "PR")])  # Poor: not below PR or IN
    assert fight.fighter(maren)["ruse"] == {"fooled": [goblin], "seen": []}
