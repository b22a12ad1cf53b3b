"""ART combat attacks through the rules service with scripted dice: an attack on a foe (its level stays out of
the log), the Defense roll and its damage on the Health track, a parry offered only when legal, dodging,
fumbles both ways, player against player, AOE with prone and Fate, grappling, and a foe defeated."""

from __future__ import annotations

import pytest
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.art_fight import Fight, face, sword_fight
from utils.said import said

from app.errors import BadRequest
from app.systems.art.sheet import load, weapon_stats
from app.systems.base import EncounterViewer

BOW = {"name": "Bow", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "ranged_2h"}


@pytest.fixture
def fight(play: Play) -> Fight:
    """Maren (a sword) and Tom against a Goblin, all in band 2; Maren, Tom, then the Goblin act."""
    return sword_fight(play, (face(7, "GD"), face(7, "PR")))


def attack_row(fight: Fight, cid: int, index: int = 0) -> int:
    sheet = load(fight.sheet(cid))
    return int(weapon_stats(sheet, sheet.gear[index])["attack"])


def to_goblin(fight: Fight) -> None:
    """End Maren's and Tom's turns: the Goblin's turn."""
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)


def test_an_attack_on_a_foe_marks_its_track_and_keeps_its_level_secret(fight: Fight) -> None:
    row = attack_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [face(row, "GD")], target=fight.play.foe)
    assert "Goblin's Defense" in said(body) and "Passable" not in said(body)
    assert body["outcome"]["difficulty"] is None and body["outcome"]["successes"] is None
    assert "Goblin takes Good damage" in said(body)
    assert fight.sheet(fight.play.foe)["checked"] == [False, False, True, False]
    with pytest.raises(BadRequest):  # one action a turn
        fight.step(PIA, "combat_attack", fight.play.hero, [50], target=fight.play.foe)


def test_out_of_reach_is_refused(fight: Fight) -> None:
    fight.step(NARRATOR, "combat_place", None, target=fight.play.foe, band=4)
    with pytest.raises(BadRequest) as caught:
        fight.step(PIA, "combat_attack", fight.play.hero, [50], target=fight.play.foe)
    assert "out of reach" in caught.value.message


def test_a_foe_attack_waits_for_the_defense_roll_and_marks_the_damage(fight: Fight) -> None:
    to_goblin(fight)
    body = fight.step(
        NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="large_natural"
    )
    assert "must roll Defense" in said(body) and "Poor" not in said(body)
    pending = fight.state()["pending"]
    assert pending["kind"] == "defense" and pending["attack"] == "PR" and pending["rating"] == 1
    from app.systems.art import SYSTEM

    shown = SYSTEM.kind("combat").shown(fight.state(), EncounterViewer(is_narrator=False))
    assert shown["pending"]["attack"] is None and shown["pending"]["rating"] is None
    assert all(f["initiative"] is None for f in shown["fighters"] if f["side"] == "foe")
    with pytest.raises(BadRequest):  # Tom is not the one attacked
        fight.step(OTTO, "combat_defend", fight.play.friend, [50])
    # Defense 3: Inferior against the Goblin's Poor Attack is 1 failure, +1 damage rating: Poor damage.
    # Maren has acted this round, and a sword cannot parry a large natural weapon: marked at once.
    body = fight.step(PIA, "combat_defend", fight.play.hero, [face(3, "IN")])
    assert body["outcome"]["damage"] == "PR" and "Goblin's Attack" in said(body)
    assert body["outcome"]["difficulty"] is None
    assert fight.sheet(fight.play.hero)["checked"] == [False, True, False, False]
    assert fight.state()["pending"] is None


def test_a_parry_is_offered_after_the_damage_only_when_legal(fight: Fight) -> None:
    # Maren waits until after the Goblin, so she has not acted when it attacks
    fight.step(PIA, "combat_wait", fight.play.hero, after=fight.play.foe)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="one_handed")
    body = fight.step(PIA, "combat_defend", fight.play.hero, [face(3, "IN")])
    pending = fight.state()["pending"]
    assert pending["kind"] == "parry" and pending["damage"] == "PR" and pending["items"] == [0]
    assert "may parry it" in said(body)
    assert fight.sheet(fight.play.hero)["checked"] == [False, False, False, False]  # not yet
    with pytest.raises(BadRequest):
        fight.step(PIA, "combat_parry", fight.play.hero, [50], item=3)
    body = fight.step(PIA, "combat_parry", fight.play.hero, [face(7, "GD")], item=0)
    assert body["outcome"]["parried"] and "parried: no damage" in said(body)
    assert fight.sheet(fight.play.hero)["checked"] == [False, False, False, False]
    # the parry was Maren's action: she is out of this round's order
    assert fight.turn() == fight.play.foe
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    assert fight.state()["round"] == 2
    # Now Maren has acted (round 2, her turn done): no parry is offered any more
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="one_handed")
    fight.step(PIA, "combat_defend", fight.play.hero, [face(3, "IN")])
    assert fight.state()["pending"] is None
    assert fight.sheet(fight.play.hero)["checked"] == [False, True, False, False]


def test_declining_a_parry_takes_the_damage(fight: Fight) -> None:
    fight.step(PIA, "combat_wait", fight.play.hero, after=fight.play.foe)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="one_handed")
    fight.step(PIA, "combat_defend", fight.play.hero, [face(3, "IN")])
    body = fight.step(PIA, "combat_take", fight.play.hero)
    assert "takes Poor damage" in said(body)
    assert fight.sheet(fight.play.hero)["checked"] == [False, True, False, False]


def test_dodging_adds_its_successes_to_defense(fight: Fight) -> None:
    body = fight.step(PIA, "combat_dodge", fight.play.hero, [face(9, "GD")])
    assert body["outcome"]["defense_bonus"] == 4 and fight.fighter(fight.play.hero)["dodge"]["bonus"] == 4
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="one_handed")
    body = fight.step(PIA, "combat_defend", fight.play.hero, [50])
    assert body["outcome"]["row"] == 7  # Defense 3 + 4


def test_a_catastrophic_attack_fumbles_on_the_agility_column(fight: Fight) -> None:
    body = fight.step(PIA, "combat_attack", fight.play.hero, [1], target=fight.play.foe)
    assert body["outcome"]["fumble"] == "fumble"
    with pytest.raises(BadRequest):
        fight.step(PIA, "combat_end_turn", fight.play.hero)  # the fumble roll first
    body = fight.step(PIA, "combat_fumble", fight.play.hero, [face(9, "PR")])
    assert body["outcome"]["effect"] == "drop_weapon"
    assert fight.sheet(fight.play.hero)["gear"][0]["slot"] == "stowed"


def test_an_awesome_defense_makes_the_foe_fumble_on_the_cunning_column(fight: Fight) -> None:
    to_goblin(fight)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="large_natural")
    body = fight.step(PIA, "combat_defend", fight.play.hero, [100])
    assert "Goblin fumbles" in said(body) and body["outcome"]["damage"] is None
    assert fight.state()["pending"]["kind"] == "fumble"
    body = fight.step(PIA, "combat_fumble", fight.play.hero, [face(4, "IN")])  # Cunning Inferior: the GD row
    assert body["outcome"]["effect"] == "no_attack"
    assert fight.fighter(fight.play.foe)["next"] == ["no_attack"]
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    with pytest.raises(BadRequest) as caught:
        fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero)
    assert "cannot attack" in caught.value.message


def test_player_against_player(fight: Fight) -> None:
    row = attack_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [face(row, "GD")], target=fight.play.friend)
    pending = fight.state()["pending"]
    assert pending["defender"] == fight.play.friend and pending["attack"] == "GD" and pending["secret"] == []
    assert "Tom must roll Defense" in said(body)
    body = fight.step(OTTO, "combat_defend", fight.play.friend, [face(3, "PR")])
    assert body["outcome"]["damage"] == "PR"  # Poor against Good: 2 failures


def test_an_aoe_attack_lands_in_a_band_and_fate_decides_who_is_hit(fight: Fight) -> None:
    fight.step(NARRATOR, "combat_place", None, target=fight.play.foe, band=3)
    fight.step(NARRATOR, "combat_place", None, target=fight.play.friend, band=3)
    # a grenade: Dexterity 7, range 3 (Strength 9); band 3 is 1 away: difficulty 2 under Good = Inferior
    body = fight.step(PIA, "combat_aoe", fight.play.hero, [face(7, "PS")], band=3, damage="PS", targets=1)
    assert "the blast hits band 3" in said(body)
    assert fight.state()["pending"]["kind"] == "aoe"
    fight.step(OTTO, "combat_prone", fight.play.friend)
    assert fight.fighter(fight.play.friend)["prone"]
    with pytest.raises(BadRequest):  # Maren attacked this round: she cannot fall prone
        fight.step(PIA, "combat_prone", fight.play.hero)
    # Fate: Tom rolls (Fate 5) a Catastrophic 1; the Goblin's Poor Fate is higher: Tom is hit, prone: Poor
    body = fight.step(PIA, "combat_aoe_hit", fight.play.hero, [1])
    assert body["outcome"]["hit"] == [fight.play.friend]
    assert "Tom takes Poor damage" in said(body)
    # the Goblin's Fate is its rating, the narrator's: only its name is in the log
    assert "Tom Catastrophic" in said(body) and "Goblin (rating)" in said(body) and "Goblin Poor" not in said(body)
    assert fight.state()["order"] == [fight.play.hero, fight.play.foe]  # Tom's fall was his action


def test_a_foe_aoe_is_rolled_by_a_player_on_the_fate_column(fight: Fight) -> None:
    to_goblin(fight)
    fight.step(NARRATOR, "combat_foe_aoe", fight.play.foe, band=2, max_range=3, damage="IN", targets=3)
    pending = fight.state()["pending"]
    # 3 bands under the range: Inferior on the Attack column, so Great on the Fate column (ruling 27)
    assert pending["kind"] == "aoe_fate" and pending["roller"] == fight.play.hero and pending["difficulty"] == "GT"
    # Fate 5 (row 5): Awesome against Great is 3 successes: 2 bands over, into empty band 4
    body = fight.step(PIA, "combat_aoe_fate", fight.play.hero, [100])
    assert body["outcome"]["band"] == 2 and "nobody is in band 4" in said(body)
    assert fight.state()["pending"] is None
    # a Catastrophic Fate roll: the blast lands in the band, hitting one more
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_aoe", fight.play.foe, band=2, max_range=3, damage="IN", targets=1)
    body = fight.step(PIA, "combat_aoe_fate", fight.play.hero, [1])
    assert "the blast hits band 2 (2 at most)" in said(body)
    body = fight.step(NARRATOR, "combat_aoe_hit", fight.play.foe, [50, 50])
    assert len(body["outcome"]["hit"]) == 2
    assert "Goblin (rating)" in said(body) and "Goblin Poor" not in said(body)  # a foe's own AOE too


def test_grappling_and_a_free_attack_when_it_fails(fight: Fight) -> None:
    body = fight.step(
        PIA, "combat_maneuver", fight.play.hero, [face(9, "GD")], target=fight.play.foe, maneuver="grapple"
    )
    assert "grapples Goblin (+3" in said(body) and "Poor" not in said(body)
    assert fight.fighter(fight.play.hero)["grapple"] == {"with": fight.play.foe, "bonus": 3}
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    body = fight.step(
        OTTO, "combat_maneuver", fight.play.friend, [face(9, "IN")], target=fight.play.foe, maneuver="grapple"
    )
    assert "the grapple fails" in said(body)
    pending = fight.state()["pending"]
    assert pending["defender"] == fight.play.friend and pending["modifier"] == -1


def test_a_foe_defeated_is_out_and_the_narrator_ends_the_combat(fight: Fight) -> None:
    fight.set_sheet(fight.play.foe, checked=[True, True, False, False])  # softened up: Good and Great left
    body = fight.step(PIA, "combat_attack", fight.play.hero, [100], target=fight.play.foe)
    assert "defeated" in said(body) and "every foe is defeated" in said(body)
    assert fight.fighter(fight.play.foe)["out"]
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    assert fight.state()["order"] == [fight.play.hero, fight.play.friend]  # the Goblin is out
    body = fight.step(NARRATOR, "combat_end", None)
    assert "every foe is defeated" in said(body) and fight.encounter().status == "over"


def test_a_staggered_foe_loses_its_turn_this_round(fight: Fight) -> None:
    row = attack_row(fight, fight.play.hero) + 5  # the narrator's +5
    body = fight.step(PIA, "combat_attack", fight.play.hero, [face(row, "GT")], target=fight.play.foe, modifiers=5)
    assert "staggered" in said(body)
    assert fight.play.foe not in fight.state()["order"]
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    assert fight.state()["round"] == 2 and fight.state()["order"][-1] == fight.play.foe  # back next round


def test_a_group_attacks_with_its_members_attack_added_up(play: Play) -> None:
    f = Fight(play)
    f.setup(groups=[f"{play.foe}:3"])
    f.step(PIA, "combat_initiative", play.hero, [face(7, "GD")])
    f.step(OTTO, "combat_initiative", play.friend, [face(7, "PR")])
    f.step(PIA, "combat_end_turn", play.hero)
    f.step(OTTO, "combat_end_turn", play.friend)
    f.step(NARRATOR, "combat_foe_attack", play.foe, target=play.hero)
    assert f.state()["pending"]["attack"] == "GD"  # Poor + Poor + Poor (ruling 8)


def test_sneaking_is_against_the_foes_alertness_added_up(fight: Fight) -> None:
    fight.step(NARRATOR, "combat_place", None, target=fight.play.hero, band=4)
    with pytest.raises(BadRequest):
        fight.step(PIA, "combat_sneak", fight.play.hero, [50], band=2)  # not adjacent
    body = fight.step(PIA, "combat_sneak", fight.play.hero, [face(9, "GD")], band=3)
    assert "slips unnoticed into band 3" in said(body) and "the foes' Alertness" in said(body)
    assert "Inferior" not in said(body) and fight.fighter(fight.play.hero)["band"] == 3


@pytest.mark.parametrize(("weapon", "away"), [("sword", True), ("bow", False)])
def test_a_catastrophic_disarm_knocks_only_a_melee_weapon_away(fight: Fight, weapon: str, away: bool) -> None:
    """ch. 5 "Disarm": on a Catastrophic roll with a melee weapon your own weapon goes flying; not with a
    ranged one (its difficulty is +5 columns instead)."""
    if weapon == "bow":
        fight.play.act(PIA, "move_item", {"item": 0, "slot": "stowed"})
        fight.play.act(PIA, "add_item", BOW)
    index = 0 if weapon == "sword" else 1
    row = attack_row(fight, fight.play.hero, index)
    body = fight.step(
        PIA,
        "combat_maneuver",
        fight.play.hero,
        [face(row, "CT")],
        target=fight.play.foe,
        maneuver="disarm",
        weapon=index,
    )
    assert "no disarm" in said(body)
    assert ("Maren's own weapon is knocked away" in said(body)) is away
    assert fight.sheet(fight.play.hero)["gear"][index]["slot"] == ("stowed" if away else "ready")


SPEAR = {"name": "Spear", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_2h", "reach": True}


def test_a_reach_weapon_attacks_an_adjacent_band_and_only_two_handed_melee_has_reach(fight: Fight) -> None:
    """ch. 2 "Melee Weapon Features", Reach: a two-handed melee weapon with reach attacks characters in an
    adjacent band; weapons with reach must be two-handed."""
    with pytest.raises(BadRequest) as caught:
        fight.play.act(PIA, "add_item", {**SPEAR, "weapon": "melee_1h", "slot": "stowed"})
    assert caught.value.field == "reach"
    fight.play.act(PIA, "move_item", {"item": 0, "slot": "stowed"})
    fight.play.act(PIA, "add_item", SPEAR)
    sheet = load(fight.sheet(fight.play.hero))
    assert sheet.gear[1].reach and weapon_stats(sheet, sheet.gear[1])["reach"]
    assert not weapon_stats(sheet, sheet.gear[0])["reach"]
    fight.step(NARRATOR, "combat_place", None, target=fight.play.foe, band=4)
    with pytest.raises(BadRequest) as caught:  # two bands away: out of reach even with reach
        fight.step(PIA, "combat_attack", fight.play.hero, [50], target=fight.play.foe, weapon=1)
    assert "out of reach" in caught.value.message
    fight.step(NARRATOR, "combat_place", None, target=fight.play.foe, band=3)
    row = attack_row(fight, fight.play.hero, 1)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [face(row, "GD")], target=fight.play.foe, weapon=1)
    assert "Maren attacks Goblin" in said(body) and "Goblin takes Good damage" in said(body)
    fight.step(PIA, "combat_end_turn", fight.play.hero)  # Tom's sword (no reach) cannot
    with pytest.raises(BadRequest) as caught:
        fight.step(OTTO, "combat_attack", fight.play.friend, [50], target=fight.play.foe)
    assert "out of reach" in caught.value.message


def test_a_foes_reach_weapon_attacks_an_adjacent_band(fight: Fight) -> None:
    to_goblin(fight)
    fight.step(NARRATOR, "combat_place", None, target=fight.play.foe, band=3)
    with pytest.raises(BadRequest) as caught:  # no reach: the same band only
        fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="two_handed")
    assert "same band" in caught.value.message
    with pytest.raises(BadRequest) as caught:  # reach needs a two-handed weapon
        fight.step(
            NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="one_handed", reach=True
        )
    assert caught.value.field == "reach"
    body = fight.step(
        NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="two_handed", reach=True
    )
    assert "Maren must roll Defense" in said(body) and fight.state()["pending"]["defender"] == fight.play.hero
