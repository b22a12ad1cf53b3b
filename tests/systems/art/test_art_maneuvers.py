"""Combat options and grappling (art-engine.md ch. 5 "Combat Options" to "Taking a Weapon").

Rulings: RULINGS.md, ART Engine 4, 23 (grapple ties), 33 (disarm columns, Knock Down's Agility).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.systems.art.rules import (
    ArtRuleError,
    Disarm,
    Grapple,
    Level,
    count,
    disarm,
    grapple,
    knock_down,
    lowest_fate,
    maneuver_difficulty,
    protect,
    sees_through,
)

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level
levels = st.sampled_from(list(Level))


# --- maneuver_difficulty ------------------------------------------------------------------------


@pytest.mark.parametrize("maneuver", ["force_back", "knock_down", "pin"])
def test_higher_of_strength_and_agility(maneuver: str) -> None:
    """ch. 5, "Force Back", "Knock Down", "Pinning a Foe": Strength or Agility, whichever is higher."""
    assert maneuver_difficulty(maneuver, strength=PR, agility=GD) == GD
    assert maneuver_difficulty(maneuver, strength=GT, agility=IN) == GT


def test_takedown_is_the_lower() -> None:
    """ch. 5, "Takedown": Strength or Agility, whichever is lower."""
    assert maneuver_difficulty("takedown", strength=PR, agility=GD) == PR


def test_take_weapon_is_strength() -> None:
    """ch. 5, "Taking a Weapon": against the foe's Strength."""
    assert maneuver_difficulty("take_weapon", strength=PS) == PS
    assert maneuver_difficulty("take_weapon", strength=PS, agility=AW) == PS


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, GD),
        ({"one_vs_two_handed": True}, SP),
        ({"ranged": True}, EX),  # Good + 5 = 11 columns: capped at Extreme (ruling 33)
        ({"one_vs_two_handed": True, "ranged": True}, EX),
    ],
)
def test_disarm_difficulty(options: dict[str, bool], expected: Level) -> None:
    """ch. 5, "Disarm": Dexterity or Strength, whichever is higher; +2 one-handed against two-handed,
    +5 ranged, as columns (ruling 33, not limited to 3)."""
    assert maneuver_difficulty("disarm", strength=PR, dexterity=GD, **options) == expected


def test_disarm_difficulty_ranged_below_the_cap() -> None:
    assert maneuver_difficulty("disarm", strength=FB, dexterity=IN, ranged=True) == SP


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, GD),
        ({"both_hands": True}, PS),
        ({"silent": True}, GT),
        ({"both_hands": True, "silent": True}, GD),
        ({"surprise": True}, IN),  # the lowest of Strength, Agility, Alertness
        ({"surprise": True, "both_hands": True}, FB),
    ],
)
def test_grapple_difficulty(options: dict[str, bool], expected: Level) -> None:
    """ch. 5, "Grappling"."""
    assert maneuver_difficulty("grapple", strength=PR, agility=GD, alertness=IN, **options) == expected


def test_grapple_by_surprise_ignores_dexterity() -> None:
    """ch. 5, "Grappling": with surprise, the lowest of Strength, Agility and Alertness only."""
    assert maneuver_difficulty("grapple", strength=GD, agility=GD, alertness=PS, dexterity=CT, surprise=True) == PS


def test_grapple_options_net_shift_at_the_ends() -> None:
    """The net shift is applied, then kept within CT..EX: both options together change nothing."""
    assert maneuver_difficulty("grapple", strength=CT, agility=CT, both_hands=True, silent=True) == CT
    assert maneuver_difficulty("grapple", strength=EX, agility=EX, both_hands=True, silent=True) == EX
    assert maneuver_difficulty("grapple", strength=CT, agility=CT, both_hands=True) == CT
    assert maneuver_difficulty("grapple", strength=EX, agility=AW, silent=True) == EX


@pytest.mark.parametrize(
    ("maneuver", "levels_given"),
    [
        ("knock_down", {"strength": PS}),  # no agility
        ("takedown", {"strength": PS}),
        ("pin", {"strength": PS}),
        ("force_back", {"strength": PS}),
        ("disarm", {"strength": PS}),  # no dexterity
        ("grapple", {"strength": PS}),
        ("grapple", {"strength": PS, "agility": PS, "surprise": True}),  # no alertness
    ],
)
def test_maneuver_difficulty_refuses_missing_levels(maneuver: str, levels_given: dict[str, object]) -> None:
    with pytest.raises(ArtRuleError):
        maneuver_difficulty(maneuver, **levels_given)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("maneuver", "option"),
    [
        ("knock_down", "surprise"),
        ("force_back", "ranged"),
        ("pin", "both_hands"),
        ("takedown", "silent"),
        ("take_weapon", "one_vs_two_handed"),
        ("disarm", "surprise"),
        ("disarm", "both_hands"),
        ("grapple", "ranged"),
        ("grapple", "one_vs_two_handed"),
    ],
)
def test_maneuver_difficulty_refuses_another_maneuvers_option(maneuver: str, option: str) -> None:
    with pytest.raises(ArtRuleError):
        maneuver_difficulty(maneuver, strength=PS, agility=PS, dexterity=PS, alertness=PS, **{option: True})


def test_maneuver_difficulty_refuses_unknown_maneuvers() -> None:
    with pytest.raises(ArtRuleError) as raised:
        maneuver_difficulty("suplex", strength=PS, agility=PS)
    assert raised.value.field == "maneuver"


@given(
    st.sampled_from(["force_back", "knock_down", "pin", "takedown", "take_weapon", "disarm", "grapple"]),
    levels,
    levels,
    levels,
    levels,
)
def test_maneuver_difficulty_stays_a_level(
    maneuver: str, strength: Level, agility: Level, dexterity: Level, alertness: Level
) -> None:
    difficulty = maneuver_difficulty(
        maneuver, strength=strength, agility=agility, dexterity=dexterity, alertness=alertness
    )
    assert CT <= difficulty <= EX


def test_force_back_pin_takedown_outcomes_are_counts() -> None:
    """ch. 5, "Force Back": a foot per success, or the foe moves you a foot per failure; "Pinning a
    Foe": one round per success; "Takedown", "Taking a Weapon": succeed on a success."""
    difficulty = maneuver_difficulty("force_back", strength=PR, agility=PS)
    assert count(difficulty, GT) == 3  # push 3 feet
    assert count(difficulty, IN) == -2  # pushed 2 feet
    assert count(maneuver_difficulty("pin", strength=PS, agility=PR), GD) == 2  # pinned 2 rounds


# --- Knock Down (ruling 33) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "agility", "expected"),
    [
        (PS, 5, "foe_down"),
        (PR, 2, "none"),  # 1 failure against Agility 2
        (IN, 2, "you_down"),  # 2 failures: equals your Agility
        (CT, 4, "you_down"),  # 5 failures
        (CT, 6, "none"),
    ],
)
def test_knock_down(result: Level, agility: int, expected: str) -> None:
    """ch. 5, "Knock Down": failures equal to or above your Agility (the attribute) knock you down."""
    assert knock_down(result, PS, agility=agility) == expected


def test_knock_down_refuses_an_agility_below_one() -> None:
    with pytest.raises(ArtRuleError):
        knock_down(PS, PS, agility=0)


# --- Disarm, Grappling --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "ranged", "expected"),
    [
        (GD, False, Disarm(disarmed=True, own_weapon_away=False)),
        (PR, False, Disarm(disarmed=False, own_weapon_away=False)),
        (CT, False, Disarm(disarmed=False, own_weapon_away=True)),
        (CT, True, Disarm(disarmed=False, own_weapon_away=False)),
    ],
)
def test_disarm(result: Level, ranged: bool, expected: Disarm) -> None:
    """ch. 5, "Disarm"."""
    assert disarm(result, PS, ranged=ranged) == expected


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (GT, Grapple(held=True, bonus=3, defense_modifier=0)),
        (PS, Grapple(held=True, bonus=1, defense_modifier=0)),
        (PR, Grapple(held=False, bonus=0, defense_modifier=-1)),
        (FB, Grapple(held=False, bonus=0, defense_modifier=-3)),
    ],
)
def test_grapple(result: Level, expected: Grapple) -> None:
    """ch. 5, "Grappling": the successes are the bonus in the grapple; each failure is -1 on your
    Defense against the foe's free attack."""
    assert grapple(result, PS) == expected


def test_attack_into_a_grapple_hits_the_lowest_fate() -> None:
    """ch. 5, "Fighting in a Grapple": the lowest Fate is hit, friend or foe; ties: attacker decides."""
    assert lowest_fate([("you", PS), ("orc", PR), ("ally", PR)]) == ("orc",)


# --- Protecting, Playing Dead -------------------------------------------------------------------


@pytest.mark.parametrize(("result", "expected"), [(PS, True), (AW, True), (PR, False), (CT, False)])
def test_protect(result: Level, expected: bool) -> None:
    """ch. 5, "Protecting": Passable or better."""
    assert protect(result) is expected


@pytest.mark.parametrize(
    ("result", "intelligence", "alertness", "expected"),
    [
        (PS, PR, PR, False),
        (PS, PS, PS, False),  # equal is not greater
        (PS, GD, IN, True),
        (PS, IN, GD, True),
        (AW, EX, CT, True),
    ],
)
def test_sees_through(result: Level, intelligence: Level, alertness: Level, expected: bool) -> None:
    """ch. 5, "Playing Dead": foes with Intelligence or Alertness greater than your Cunning roll."""
    assert sees_through(result, intelligence, alertness) is expected
