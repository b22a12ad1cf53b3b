"""Starting gear (issue 21, point 3): a new adventurer made by the balanced or the random method gets the weapon
class chosen at creation at the best cost its Fortune allows, ready, and the best armor its Fortune and Strength
allow (ch. 2 "Fortune", "Gear", "Armor", "Weapon Class", "Weapon Attack"); a character made without any weapon
takes one up on its turn in a combat (`combat_arm`), and one that has a weapon must draw it instead. The foe's
move options are the bands the server accepts (point 5)."""

from __future__ import annotations

import pytest
from utils.art import NARRATOR, PIA, Play, balanced_fields
from utils.art_fight import Fight, face

from app.errors import BadRequest
from app.systems.art import creation
from app.systems.art import rules as art
from app.systems.art.fight.models import CombatState
from app.systems.art.fight.moves import foe_move_options, reachable


def test_the_weapon_classes_are_the_texts_table() -> None:
    assert len(art.WEAPON_CLASSES) == 21
    assert art.WEAPON_CLASSES["Blade"] == "melee_1h" and art.WEAPON_CLASSES["Spear"] == "melee_2h"
    assert art.WEAPON_CLASSES["Bow"] == "ranged_2h" and art.WEAPON_CLASSES["Handgun"] == "ranged_1h"
    assert art.WEAPON_CLASSES["Shotgun"] == "shotgun"


@pytest.mark.parametrize(
    ("weapon", "fortune", "strength", "cost"),
    [
        ("Blade", "Middle Class", 2, "Middle Class"),  # a melee weapon: your Fortune, whatever your Strength
        ("Greatsword", "Wealthy", 2, "Wealthy"),
        ("Bow", "Wealthy", 8, "Wealthy"),  # 2h Ranged STR Req. 8 at Wealthy: met
        ("Bow", "Wealthy", 5, "Well-off"),  # STR 5: Well-off (5) is the best a 2h ranged weapon allows
        ("Rifle", "Getting By", 1, "Struggling"),  # Struggling and below require no Strength
        ("Shotgun", "Affluent", 6, "Prosperous"),
    ],
)
def test_a_starting_weapon_costs_the_best_the_fortune_and_strength_allow(
    weapon: str, fortune: str, strength: int, cost: str
) -> None:
    assert art.starting_weapon_cost(weapon, fortune, strength) == cost


def test_a_weapon_class_not_in_the_table_is_refused() -> None:
    with pytest.raises(art.ArtRuleError):
        art.starting_weapon_cost("Lightsaber", "Poor", 5)


@pytest.mark.parametrize(
    ("fortune", "strength", "armor"),
    [
        ("Comfortable", 9, "Comfortable"),
        ("Comfortable", 3, "Middle Class"),
        ("Middle Class", 2, "Getting By"),
        ("Struggling", 2, "Struggling"),
        ("Destitute", 9, None),
    ],
)
def test_starting_armor_is_the_best_the_fortune_and_strength_allow(
    fortune: str, strength: int, armor: str | None
) -> None:
    assert art.starting_armor(fortune, strength) == armor


def test_a_balanced_adventurer_gets_the_chosen_weapon_ready_and_armor() -> None:
    # PAIRS: Fate 5 (Struggling), Strength 9, Agility 9, Dexterity 7
    sheet = creation.create(balanced_fields(starting_weapon="Blade", starting_armor="on"))
    assert sheet["fortune"] == "Struggling" and sheet["armor"] == "Struggling"
    [weapon] = sheet["gear"]
    assert (weapon["name"], weapon["type"], weapon["weapon"], weapon["slot"], weapon["cost"]) == (
        "Blade",
        "weapon",
        "melee_1h",
        "ready",
        "Struggling",
    )
    assert sheet["starting_gear"] is None
    none = creation.create(balanced_fields(starting_weapon="none"))
    assert none["gear"] == [] and none["armor"] is None


def test_a_random_adventurer_gets_its_gear_once_the_fortune_is_rolled(play: Play) -> None:
    fields = {"sheet_kind": "adventurer", "method": "random", "starting_weapon": "Bow", "starting_armor": "on"}
    sheet = creation.create(fields)
    assert sheet["gear"] == [] and sheet["starting_gear"] == {"weapon": "Bow", "armor": True}
    with play.factory() as db:
        from app.characters.models import Character

        db.get(Character, play.friend).sheet = sheet
        db.commit()
    # 2d6 per attribute in the sheet's order: AGI ALE CHA CRA CUN DEX FAT INT STA STR; Fate 6+6 = Wealthy, STR 2+3
    faces = [3, 3] * 6 + [6, 6] + [3, 3] * 2 + [2, 3]
    _seq, body = play.act(2, "roll_attributes", {}, faces, character=play.friend)
    after = play.sheet(play.friend)
    assert after["fortune"] == "Wealthy" and after["attributes"]["STR"] == 5
    [bow] = after["gear"]
    assert (bow["weapon"], bow["cost"], bow["slot"]) == ("ranged_2h", "Well-off", "ready")  # STR 5: Well-off
    assert after["armor"] == "Well-off"  # Wealthy Fortune, but Strength 5: Well-off armor (STR Required 5)
    assert "starting gear" in str(body)


def test_a_weapon_class_not_on_the_list_is_refused_at_creation() -> None:
    with pytest.raises(Exception) as caught:
        creation.create(balanced_fields(starting_weapon="Lightsaber"))
    assert getattr(caught.value, "field", None) == "starting_weapon"


@pytest.fixture
def fight(play: Play) -> Fight:
    return Fight(play)


def _to(fight: Fight, cid: int) -> None:
    fight.step(PIA, "combat_initiative", fight.play.hero, [face(7, "GD")])
    fight.step(2, "combat_initiative", fight.play.friend, [face(7, "PR")])
    while fight.turn() != cid:
        fight.step(NARRATOR, "combat_end_turn", fight.turn())


def test_a_character_without_a_weapon_takes_up_its_starting_weapon_in_combat(fight: Fight) -> None:
    play = fight.play
    assert play.sheet()["gear"] == []
    fight.setup()
    _to(fight, play.hero)
    with pytest.raises(BadRequest) as caught:
        fight.step(PIA, "combat_arm", play.hero, weapon_class="Lightsaber")
    assert caught.value.field == "weapon_class"
    body = fight.step(PIA, "combat_arm", play.hero, weapon_class="Spear")
    [spear] = play.sheet()["gear"]
    assert (spear["weapon"], spear["slot"], spear["cost"]) == ("melee_2h", "ready", "Struggling")
    assert "starting weapon" in str(body)
    assert fight.state()["turn"]["action"] is False  # no action spent: it can attack now
    fight.step(PIA, "combat_attack", play.hero, [face(9, "GD")], target=play.foe, weapon=0)
    with pytest.raises(BadRequest) as caught:  # it has a weapon now: draw it, never a second one for free
        fight.step(PIA, "combat_arm", play.hero, weapon_class="Blade")
    assert "carries a weapon" in str(caught.value)


def test_arming_is_on_the_characters_own_turn(fight: Fight) -> None:
    fight.setup()
    _to(fight, fight.play.hero)
    with pytest.raises(BadRequest) as caught:
        fight.step(2, "combat_arm", fight.play.friend, weapon_class="Blade")
    assert "turn" in str(caught.value)


def test_the_foes_move_options_are_what_the_server_accepts(fight: Fight) -> None:
    """The Goblin (Poor Agility: 1 band) leaves band 2, held by Maren and Tom: escaping costs 2, so it cannot
    move at all; alone in band 5 it reaches bands 4 and 6 only, and the server refuses band 3."""
    play = fight.play
    fight.setup(foe_band=2)
    _to(fight, play.foe)
    state = fight.state()
    assert foe_move_options(state, "PR") == []
    assert reachable(CombatState.model_validate(state), play.foe, art.foe_movement(art.Level.PR)) == []
    fight.step(NARRATOR, "combat_place", None, target=play.foe, band=5)
    state = fight.state()
    assert foe_move_options(state, "PR") == [4, 6]
    # Awesome Agility moves 5 bands; leaving band 2 (two adventurers) costs 2, so band 0 is one too far
    assert foe_move_options(state, "AW") == [1, 2, 3, 4, 6, 7]
    with pytest.raises(BadRequest):
        fight.step(NARRATOR, "combat_foe_move", play.foe, band=3)
    fight.step(NARRATOR, "combat_foe_move", play.foe, band=6)
    assert foe_move_options(fight.state(), "PR") == []  # it has moved this turn
