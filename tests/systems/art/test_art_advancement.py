"""Creation, gear, advancement and perks (art-engine.md ch. 2 and ch. 6)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import ScriptedDice
from app.systems.art.rules import (
    ATTRIBUTES,
    BALANCED_NUMBERS,
    PERKS,
    SHIELDS,
    STARTING_FAME,
    WEAPON_ATTACK,
    ArtRuleError,
    Level,
    SkillUse,
    balanced_attributes,
    defense,
    end_of_session_skill,
    equipping_fortune,
    fortune_after_adventure,
    fortune_rank,
    gain_glory,
    inspiration_options,
    inspire_skill,
    lip_reading_difficulty,
    perk_cost,
    raise_attribute,
    random_attributes,
    shield_uses,
    starting_experience,
    starting_fortune,
    starting_skill_cost,
    thrown_range,
    triggered_perks,
    unmet_requirements,
    weapon_attack,
)

VALID_PAIRS = {
    "AGI": (4, 3), "ALE": (1, 6), "CHA": (1, 6), "CRA": (1, 6), "CUN": (2, 5),
    "DEX": (2, 5), "FAT": (2, 5), "INT": (3, 4), "STA": (3, 4), "STR": (3, 4),
}  # fmt: skip


# --- creating an adventurer ---------------------------------------------------------------------


def test_balanced_method_example() -> None:
    """ch. 2, "Balanced Method": strike a 4 and a 3 off the list for Agility 7."""
    scores = balanced_attributes(VALID_PAIRS)
    assert scores["AGI"] == 7
    assert set(scores) == set(ATTRIBUTES)
    assert sum(BALANCED_NUMBERS) / len(ATTRIBUTES) == 7  # ch. 2: "an average score of 7"


@pytest.mark.parametrize(
    "change",
    [
        {"AGI": (6, 6)},  # a third 6
        {"AGI": (7, 0)},  # not on the list
        {"DEF": (1, 1)},  # Defense is not rolled
        {"AGI": (4, 3, 1)},  # three numbers
    ],
)
def test_balanced_method_misuse_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ArtRuleError):
        balanced_attributes({**VALID_PAIRS, **change})


def test_balanced_method_needs_every_attribute() -> None:
    pairs = dict(VALID_PAIRS)
    del pairs["STR"]
    with pytest.raises(ArtRuleError) as raised:
        balanced_attributes(pairs)
    assert "STR" in raised.value.message


def test_random_method_rolls_2d6_ten_times() -> None:
    faces = [1, 1, 6, 6, 3, 4, 2, 5, 1, 2, 6, 1, 4, 4, 5, 5, 3, 3, 2, 2]
    assert random_attributes(ScriptedDice(faces)) == (2, 12, 7, 7, 3, 7, 8, 10, 6, 4)


def test_starting_fame_experience_and_skills() -> None:
    """ch. 2, "Fame", "Starting Experience", "Starting Skills"."""
    assert STARTING_FAME == 1
    assert starting_experience(8) == 8
    assert [starting_skill_cost(rating) for rating in (1, 2, 3, 4)] == [1, 3, 6, 10]
    with pytest.raises(ArtRuleError):
        starting_skill_cost(5)


# --- Fortune and gear ---------------------------------------------------------------------------


def test_starting_fortune_from_fate() -> None:
    """ch. 2, "Fortune"."""
    assert starting_fortune(2) == "Destitute"
    assert starting_fortune(7) == "Middle Class"
    assert starting_fortune(12) == "Wealthy"
    with pytest.raises(ArtRuleError):
        starting_fortune(13)


def test_treasures_example() -> None:
    """ch. 2, "Treasures": Tim (well-off) with an affluent jaguar becomes prosperous; Tony
    (struggling) keeps his Fortune with four treasures no more than two ranks below."""
    assert fortune_after_adventure("Well-off", ["Affluent"]) == "Prosperous"
    tony = ["Poor", "Impoverished", "Impoverished", "Impoverished"]
    assert fortune_after_adventure("Struggling", tony) == "Struggling"
    assert fortune_after_adventure("Struggling", tony[:3]) == "Poor"
    assert fortune_after_adventure("Struggling", ["Poor", "Poor"]) == "Struggling"
    assert fortune_after_adventure("Struggling", ["Struggling"]) == "Struggling"
    assert fortune_after_adventure("Struggling", ["Rich", "Wealthy"]) == "Getting By"  # one rank at most
    assert fortune_after_adventure("Destitute", []) == "Destitute"


def test_equipping_others_example() -> None:
    """ch. 2, "Equipping Others": middle class equipping two others buys at struggling."""
    assert equipping_fortune("Middle Class", 2) == "Struggling"
    assert equipping_fortune("poor", 5) == "Destitute"


def test_armor_example() -> None:
    """ch. 2, "Armor & Defense": Agility 10 in getting by armor has Defense 8; none is Agility - 6."""
    assert defense(10, "Getting By") == 8
    assert defense(10) == 4
    assert defense(3) == 1  # never below 1
    assert defense(10, "Well-off", strength=5) == 11
    with pytest.raises(ArtRuleError) as raised:
        defense(10, "Well-off", strength=4)
    assert raised.value.field == "armor"


def test_shield_example() -> None:
    """ch. 2, "Shields": Defense 9 with a well-off shield is 11; 15 + 5 + 8 = 28 speed, 3 uses."""
    bonus, speed = SHIELDS[fortune_rank("Well-off")]
    assert 9 + bonus == 11
    assert shield_uses(5, 8, speed) == 3


@pytest.mark.parametrize(("total", "uses"), [(0, 0), (15, 0), (16, 1), (20, 1), (21, 2), (30, 3), (35, 4), (36, 5)])
def test_shield_uses_table(total: int, uses: int) -> None:
    assert shield_uses(total, 0, 0) == uses


def test_weapon_example() -> None:
    """ch. 2, "Weapons & Attack": Alertness 6 with an affluent pistol (ALE+3) attacks at 9."""
    row = WEAPON_ATTACK[fortune_rank("Affluent")]
    assert weapon_attack(6, row.ranged_1h_ale) == 9
    assert weapon_attack(2, WEAPON_ATTACK[0].melee_1h_dex) == 1  # never below 1
    assert (row.aoe_damage, row.aoe_targets) == (Level.GD, 5)
    assert len(WEAPON_ATTACK) == 13


def test_thrown_range() -> None:
    """ch. 2, "Thrown Range"; ch. 5's grenade example: Strength 7 throws grenades 2 bands."""
    assert [thrown_range(strength) for strength in (2, 3, 4, 7, 8, 9, 11, 12, 14)] == [
        (0, 1), (0, 1), (1, 2), (1, 2), (1, 2), (2, 3), (2, 3), (3, 4), (3, 4),
    ]  # fmt: skip


# --- inspiration ------------------------------------------------------------------------------


def test_creating_climb_then_climb_rope() -> None:
    """ch. 6, "Creating Skills": 22 with no skills creates Climb; 11 with Climb +1 creates Climb Rope
    (the kicker 1 is not above Climb's +1, so Climb itself takes no point)."""
    first = inspiration_options(22, "STR")
    assert first.create_skill and first.attribute is None and first.skills == ()
    second = inspiration_options(11, "STR", [SkillUse("Climb", 1)])
    assert second.create_skill and second.skills == ()


def test_picking_the_padlock() -> None:
    """ch. 6, "Improving Skills": 44 with +4 opening locks and +2 picking padlocks: no new skill (two
    used), not opening locks (4 is not more than 4), but picking padlocks."""
    options = inspiration_options(44, "DEX", [SkillUse("opening locks", 4), SkillUse("picking padlocks", 2)])
    assert not options.create_skill
    assert options.attribute is None
    assert options.skills == ("picking padlocks",)
    assert options.any


@pytest.mark.parametrize(
    ("kind", "attribute"),
    [
        ("trait", "CHA"),
        ("defense", "AGI"),
        ("melee_attack", "DEX"),
        ("ranged_attack", "ALE"),
        ("unarmed_attack", "STR"),
    ],
)
def test_00_may_inspire_the_attribute(kind: str, attribute: str) -> None:
    """ch. 6, "Increasing Attributes": on 00 only; Defense goes on Agility, attacks by kind."""
    options = inspiration_options(100, "CHA", [SkillUse("flattery", 1)], roll_kind=kind)
    assert options.attribute == attribute
    assert options.skills == ()  # the kicker of 00 is 0, never above a skill
    assert inspiration_options(99, "CHA", roll_kind=kind).attribute is None


def test_no_inspiration_without_doubles() -> None:
    for roll in (None, 10, 45, 1):
        assert not inspiration_options(roll, "AGI").any


def test_capped_and_maxed_skills_take_no_points() -> None:
    skills = [SkillUse("capped", 2, inspiration=4), SkillUse("master", 8)]
    assert inspiration_options(99, "DEX", skills).skills == ()


def test_inspiration_refuses_bad_input() -> None:
    with pytest.raises(ArtRuleError):
        inspiration_options(11, "DEX", roll_kind="dance")
    with pytest.raises(ArtRuleError):
        inspiration_options(11, "DEX", [SkillUse("a", 1), SkillUse("b", 1), SkillUse("c", 1)])


def test_skill_points_cap_and_raise_at_session_end() -> None:
    """ch. 6, "Improving Skills": four points cap a skill; at session end it rises by 1."""
    skill = SkillUse("picking padlocks", 2, inspiration=3)
    skill = inspire_skill(skill, 44)
    assert skill.capped
    with pytest.raises(ArtRuleError):
        inspire_skill(skill, 55)
    assert end_of_session_skill(skill) == SkillUse("picking padlocks", 3, 0)
    assert end_of_session_skill(SkillUse("x", 3, 2)) == SkillUse("x", 3, 2)
    with pytest.raises(ArtRuleError):
        inspire_skill(SkillUse("x", 3), 45)


def test_raising_agility_example() -> None:
    """ch. 6, "Increasing Attributes": five points next to Agility 3; erase three, Agility 4."""
    assert raise_attribute(3, 5) == (4, 2)
    assert raise_attribute(3, 7) == (5, 0)
    assert raise_attribute(7, 6) == (7, 6)


@given(score=st.integers(1, 20), points=st.integers(0, 200))
def test_raising_attributes_spends_the_score_each_time(score: int, points: int) -> None:
    new, left = raise_attribute(score, points)
    assert left < new
    assert points - left == sum(range(score, new))


def test_glory_raises_fame() -> None:
    """ch. 2, "Glory": Glory of ten times Fame is erased and Fame goes up by one."""
    assert gain_glory(15, 2, 5) == (0, 3)
    assert gain_glory(15, 2, 3) == (18, 2)
    assert gain_glory(5, 2, -8) == (0, 2)


# --- perks ------------------------------------------------------------------------------------


def test_perk_costs() -> None:
    """ch. 6, "Perks"."""
    assert perk_cost("Piloting") == 1
    assert perk_cost("Advanced Flurry") == 3
    assert perk_cost("Breakfall", 2) == 1
    assert perk_cost("Lip Reading", 4) == 1
    with pytest.raises(ArtRuleError):
        perk_cost("Breakfall", 3)
    with pytest.raises(ArtRuleError):
        perk_cost("Teleport")
    assert len(PERKS) == 33


def test_perk_requirements() -> None:
    assert unmet_requirements("Piloting", {"INT": 5}) == ()
    assert unmet_requirements("Advanced Flurry", {"DEX": 6}) == ("DEX 7+", "the Flurry perk")
    assert unmet_requirements("Advanced Flurry", {"DEX": 7}, ["Flurry"]) == ()
    assert unmet_requirements("Breakfall", {"AGI": 9}, rank=2) == ("AGI 10+",)
    assert unmet_requirements("Breakfall", {"AGI": 9}) == ()


def test_perks_the_kicker_triggers() -> None:
    owned = ["Flurry", "Advanced Flurry", "Combat Tactics", "Strategic Positioning", "Defensive Maneuver",
             "Counterstrike", "Riposte", "Advanced Riposte"]  # fmt: skip
    assert triggered_perks(owned, "hit", 0, Level.GD) == ("Flurry", "Advanced Flurry", "Combat Tactics")
    assert triggered_perks(owned, "hit", 1, Level.GD) == ("Advanced Flurry",)
    assert triggered_perks(owned, "attack", 0, Level.PT) == ("Combat Tactics",)
    assert triggered_perks(owned, "defense", 5, Level.GD) == ("Defensive Maneuver",)
    assert triggered_perks(owned, "defense", 0, Level.AW) == ("Strategic Positioning", "Counterstrike")
    assert triggered_perks(owned, "defense", None, Level.AW) == ("Counterstrike",)
    assert triggered_perks(owned, "parried", 9, Level.GT) == ("Advanced Riposte",)
    with pytest.raises(ArtRuleError):
        triggered_perks(owned, "sneeze", 0, Level.GT)


def test_lip_reading_difficulty() -> None:
    """ch. 6, "Lip Reading": Passable, one lower per extra rank, never below Inferior."""
    assert [lip_reading_difficulty(rank) for rank in (1, 2, 3, 4)] == [Level.PS, Level.PR, Level.IN, Level.IN]
