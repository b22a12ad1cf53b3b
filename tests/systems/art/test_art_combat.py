"""Combat: defense and damage, fumbles, dodging, parrying, area of effect (art-engine.md ch. 5 "Combat"
to "Foe AOE Attacks").

Rulings: RULINGS.md, ART Engine 4, 8, 9, 22 (foe fumbles), 23 (fumbles), 24 (dodging), 25
(parrying), 26 (AOE scatter), 27 (foe AOE), 28 (falling prone).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.systems.art.rules import (
    FUMBLE_EFFECTS,
    AoeHit,
    ArtRuleError,
    Dodge,
    Level,
    Parry,
    add_difficulties,
    aoe_attack,
    aoe_damage,
    aoe_difficulty,
    attack_fumble,
    can_parry,
    defense_damage,
    dodge,
    foe_fumbles,
    fumble,
    lowest_fate,
    parry,
    thrown_range,
)

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level
results = st.sampled_from([level for level in Level if level <= AW])


# --- Defense and damage (ruling 9) --------------------------------------------------------------


def test_foe_attacking_player_worked_example() -> None:
    """ch. 5, "Foe Attacking Player": Inferior Defense against Passable Attack, 2 failures, Poor damage."""
    assert defense_damage(IN, PS) == PR


def test_player_attacking_player_worked_example() -> None:
    """ch. 5, "Player Attacking Player": Good attack, Poor defense, 2 failures, Poor damage."""
    assert defense_damage(PR, GD) == PR


def test_successful_defense_takes_no_damage() -> None:
    assert defense_damage(PS, PS) is None
    assert defense_damage(AW, GD) is None


def test_multiple_foes_attack_with_their_combined_attack() -> None:
    """ch. 5, "Multiple Foes Attacking a Player": the group's Attack ratings added (ch. 3)."""
    group = add_difficulties([PR, PR, PR])  # PR+PR -> PS; PS and PR -> GD
    assert group == GD
    assert defense_damage(PR, group) == PR  # 2 failures


def test_damage_rating_adds_to_failures_and_eight_is_extreme() -> None:
    """ch. 3, "Taking Damage" (a weapon's damage rating); ruling 9: 8 or more is Extreme."""
    assert defense_damage(IN, PS, rating=1) == PS
    assert defense_damage(FB, AW) == AW  # 7 failures
    assert defense_damage(PT, AW) == EX  # 8 failures
    assert defense_damage(PR, GD, rating=6) == EX  # 2 failures + 6


def test_defense_damage_refuses_a_negative_rating() -> None:
    with pytest.raises(ArtRuleError):
        defense_damage(IN, PS, rating=-1)


# --- Fumbles (rulings 22, 23) -------------------------------------------------------------------


def test_foe_fumbles_on_an_awesome_defense() -> None:
    """ch. 5, "Foe Fumbles"; ruling 22: even when an Extreme Attack still does damage."""
    assert foe_fumbles(AW) is True
    assert foe_fumbles(SP) is False
    assert defense_damage(AW, EX) == IN and foe_fumbles(AW)


@pytest.mark.parametrize(
    ("result", "ranged", "expected"),
    [
        (CT, False, "fumble"),
        (CT, True, "fumble"),  # ruling 23: the Fumble table only, no stray shot
        (PT, True, "stray"),
        (PT, False, None),
        (FB, True, None),
        (AW, True, None),
    ],
)
def test_attack_fumble(result: Level, ranged: bool, expected: str | None) -> None:
    """ch. 5, "Fumbles"."""
    assert attack_fumble(result, ranged=ranged) == expected


def test_stray_shot_hits_the_lowest_fate_with_poor_defense() -> None:
    """ch. 5, "Fumbles": everyone in the target's band rolls Fate; the lowest rolls Poor Defense.
    Ruling 23: ties go to the attacker's choice (the caller lists them so)."""
    victim = lowest_fate([("Ann", GD), ("Bea", IN), ("Cid", IN)])
    assert victim == ("Bea",)
    assert defense_damage(FB, PR) == PR  # 2 failures
    assert defense_damage(PS, PR) is None


def test_fumble_table_agility_column() -> None:
    """ch. 5, "Fumble Table", read top to bottom on the Agility column."""
    assert FUMBLE_EFFECTS == (
        "penalty_2", "penalty_1", "hit_friend", "free_attack", "drop_weapon",
        "fall_down", "no_attack", "no_move", "no_parry_dodge", "recover",
    )  # fmt: skip
    assert [fumble(level) for level in Level if level <= AW] == list(FUMBLE_EFFECTS)


def test_fumble_table_cunning_column_runs_the_other_way() -> None:
    """ch. 5, "Foe Fumbles": the player who caused the fumble rolls Cunning for the foe."""
    assert fumble(AW, foe=True) == "penalty_2"
    assert fumble(SP, foe=True) == "penalty_1"
    assert fumble(GT, foe=True) == "hit_friend"
    assert fumble(GD, foe=True) == "free_attack"
    assert fumble(PS, foe=True) == "drop_weapon"
    assert fumble(PR, foe=True) == "fall_down"
    assert fumble(IN, foe=True) == "no_attack"
    assert fumble(FB, foe=True) == "no_move"
    assert fumble(PT, foe=True) == "no_parry_dodge"
    assert fumble(CT, foe=True) == "recover"


def test_fumble_hit_friend_without_friends_reads_as_pathetic() -> None:
    """Fumble table, FB row: "If there are no friends in your band then treat this as a PT roll"."""
    assert fumble(FB, friend_in_band=False) == "penalty_1"
    assert fumble(GT, foe=True, friend_in_band=False) == "penalty_1"  # ruling 23: a fellow foe


def test_fumble_fall_down_when_prone_drops_the_weapon() -> None:
    """Fumble table, PS row: "If you are already prone, you drop your weapon instead"."""
    assert fumble(PS, prone=True) == "drop_weapon"
    assert fumble(PR, foe=True, prone=True) == "drop_weapon"
    assert fumble(GD, prone=True) == "no_attack"


def test_fumble_refuses_extreme() -> None:
    with pytest.raises(ArtRuleError):
        fumble(EX)
    with pytest.raises(ArtRuleError):
        fumble(EX, foe=True)


# --- Dodging (ruling 24) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (CT, Dodge(defense_bonus=0, defense_difficulty=1, fell=True, may_move=False)),
        (PT, Dodge(defense_bonus=0, defense_difficulty=0, fell=False, may_move=False)),
        (FB, Dodge(defense_bonus=0, defense_difficulty=0, fell=False, may_move=False)),
        (IN, Dodge(defense_bonus=1, defense_difficulty=0, fell=False, may_move=False)),
        (PS, Dodge(defense_bonus=3, defense_difficulty=0, fell=False, may_move=False)),
        (GD, Dodge(defense_bonus=4, defense_difficulty=0, fell=False, may_move=False)),
        (GT, Dodge(defense_bonus=5, defense_difficulty=0, fell=False, may_move=True)),
        (AW, Dodge(defense_bonus=7, defense_difficulty=0, fell=False, may_move=True)),
    ],
)
def test_dodge(result: Level, expected: Dodge) -> None:
    """ch. 5, "Dodging", "Moving While Dodging": an Inferior Agility roll, +1 Defense per success."""
    assert dodge(result) == expected


def test_dodge_extreme_counts_one_column_above_awesome() -> None:
    """Ruling 5: Extreme (never rolled, not refused) counts one column above Awesome."""
    assert dodge(EX) == Dodge(defense_bonus=8, defense_difficulty=0, fell=False, may_move=True)


# --- Parrying (ruling 25) -----------------------------------------------------------------------

PARRIES = {
    "one_handed": {"one_handed", "small_natural"},
    "two_handed": {"one_handed", "two_handed", "small_natural", "large_natural"},
    "shield": {"one_handed", "two_handed", "small_natural", "large_natural", "ranged"},
    "ranged": set(),
    "bare_hands": set(),
}
ATTACKS = ("one_handed", "two_handed", "small_natural", "large_natural", "ranged")


@pytest.mark.parametrize("parry_with", list(PARRIES))
@pytest.mark.parametrize("attack_with", ATTACKS)
def test_can_parry_table(parry_with: str, attack_with: str) -> None:
    """ch. 5, "Parrying"; ruling 25 for natural weapons and bare hands."""
    assert can_parry(parry_with, attack_with) is (attack_with in PARRIES[parry_with])


@pytest.mark.parametrize("flag", ["surprised", "from_behind", "acted"])
def test_cannot_parry_by_surprise_from_behind_or_after_your_turn(flag: str) -> None:
    assert can_parry("shield", "one_handed", **{flag: True}) is False


@pytest.mark.parametrize(("parry_with", "attack_with"), [("sword", "one_handed"), ("shield", "claw"), ("", "")])
def test_can_parry_refuses_unknown_weapons(parry_with: str, attack_with: str) -> None:
    with pytest.raises(ArtRuleError):
        can_parry(parry_with, attack_with)


def test_parrying_worked_example() -> None:
    """ch. 5, "Parrying": Inferior Defense against a Good attack does Passable damage; a shield
    parry against Passable with a Great Dexterity roll deflects it."""
    damage = defense_damage(IN, GD)
    assert damage == PS
    assert can_parry("shield", "one_handed") is True
    assert parry(GT, damage) == Parry(parried=True, lost=None)


@pytest.mark.parametrize(
    ("result", "damage", "expected"),
    [
        (PS, PS, Parry(parried=True, lost=None)),
        (PR, PS, Parry(parried=False, lost=None)),
        (PT, PS, Parry(parried=False, lost="knocked_away")),
        (CT, IN, Parry(parried=False, lost="shattered")),
        (AW, EX, Parry(parried=False, lost=None)),  # ruling 25: Extreme damage cannot be parried
    ],
)
def test_parry(result: Level, damage: Level, expected: Parry) -> None:
    assert parry(result, damage) == expected


# --- Area of Effect (rulings 26-28) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("max_range", "distance", "expected"),
    [(2, 2, GD), (2, 1, PS), (2, 0, PR), (6, 0, CT), (9, 0, CT), (0, 0, GD)],
)
def test_aoe_difficulty(max_range: int, distance: int, expected: Level) -> None:
    """ch. 5, "Area of Effect": Good at maximum range, one column lower per band under; ruling 26."""
    assert aoe_difficulty(max_range, distance) == expected


@pytest.mark.parametrize(("max_range", "distance"), [(2, 3), (2, -1), (-1, -1)])
def test_aoe_difficulty_refuses_out_of_range(max_range: int, distance: int) -> None:
    with pytest.raises(ArtRuleError):
        aoe_difficulty(max_range, distance)


def test_grenade_example_on_target() -> None:
    """ch. 5, "Area of Effect", first example: Strength 7 throws grenades 2 bands; a target 1 band
    away is Passable; a Good roll hits the soldiers' band."""
    grenade_range = thrown_range(7)[1]
    assert grenade_range == 2
    hit = aoe_attack(GD, max_range=grenade_range, distance=1)
    assert hit == AoeHit(difficulty=PS, band=1, extra_damage=0, extra_targets=0, out_of_ammo=False)


def test_grenade_example_lands_in_your_own_band() -> None:
    """ch. 5, "Area of Effect", second example: Catastrophic against Good at 2 bands is 6 failures,
    3 bands short; it lands in the thrower's band, never behind it (ruling 26)."""
    hit = aoe_attack(CT, max_range=2, distance=2)
    assert hit == AoeHit(difficulty=GD, band=0, extra_damage=0, extra_targets=0, out_of_ammo=False)


def test_grenade_example_who_is_hit_and_how_hard() -> None:
    """Second example, continued: four in the band, three are hit; you (Good) and a standing friend
    (Good) tie, and you pick your friend; ruling 28: the prone friends take Passable - 1 = Poor."""
    fates = [("prone1", FB), ("prone2", PR), ("friend", GD), ("you", GD)]
    assert lowest_fate(fates, 3) == ("prone1", "prone2", "friend")
    assert aoe_damage(PS, prone=True) == PR
    assert aoe_damage(PS) == PS


@pytest.mark.parametrize(
    ("result", "band", "extra_damage", "extra_targets"),
    [
        (AW, 3, 1, 1),
        (SP, 3, 1, 0),
        (GT, 3, 0, 0),
        (GD, 3, 0, 0),  # Good against Good: 1 success
        (PS, 4, 0, 0),  # 1f: 1 band over
        (PR, 2, 0, 0),  # 2f: 1 band under
        (IN, 5, 0, 0),  # 3f: 2 bands over
        (FB, 1, 0, 0),  # 4f: 2 bands under
        (PT, 6, 0, 0),  # 5f: 3 bands over
        (CT, 0, 0, 0),  # 6f: 3 bands under
    ],
)
def test_aoe_attack_column_at_maximum_range(result: Level, band: int, extra_damage: int, extra_targets: int) -> None:
    """ch. 5, "AOE Attack" table, Attack column: a target 3 bands away at the weapon's maximum range."""
    assert aoe_attack(result, max_range=3, distance=3) == AoeHit(
        difficulty=GD, band=band, extra_damage=extra_damage, extra_targets=extra_targets, out_of_ammo=False
    )


def test_aoe_autofire_catastrophic_runs_out_of_ammo() -> None:
    """AOE Attack table, CT row; ruling 26."""
    hit = aoe_attack(CT, max_range=4, distance=3, autofire=True)
    assert hit == AoeHit(difficulty=PS, band=None, extra_damage=0, extra_targets=0, out_of_ammo=True)


def test_aoe_awesome_and_super_apply_whatever_the_difficulty() -> None:
    """Ruling 26: the AW/SP rows apply whatever the difficulty (a near target is easy)."""
    assert aoe_attack(SP, max_range=8, distance=1).extra_damage == 1
    assert aoe_attack(AW, max_range=8, distance=1).extra_targets == 1


@pytest.mark.parametrize(
    ("result", "band", "extra_damage", "extra_targets", "out_of_ammo"),
    [
        (CT, 2, 1, 1, False),
        (PT, 2, 1, 0, False),
        (FB, 2, 0, 0, False),
        (IN, 2, 0, 0, False),  # Inferior against Poor: a failure, the target band is hit
        (PR, 3, 0, 0, False),  # 1s: 1 band over
        (PS, 1, 0, 0, False),  # 2s: 1 band under
        (GD, 4, 0, 0, False),  # 3s
        (GT, 0, 0, 0, False),  # 4s: 2 bands under
        (SP, 5, 0, 0, False),  # 5s
        (AW, 0, 0, 0, False),  # 6s: 3 bands under, never behind the foe
    ],
)
def test_foe_aoe_fate_column_at_maximum_range(
    result: Level, band: int, extra_damage: int, extra_targets: int, out_of_ammo: bool
) -> None:
    """ch. 5, "Foe AOE Attacks"; ruling 27: the Fate column, Poor at the foe weapon's maximum range."""
    assert aoe_attack(result, max_range=2, distance=2, foe=True) == AoeHit(
        difficulty=PR, band=band, extra_damage=extra_damage, extra_targets=extra_targets, out_of_ammo=out_of_ammo
    )


def test_foe_aoe_difficulty_rises_as_the_foe_comes_closer() -> None:
    """Ruling 27: Poor at maximum range, one column higher per band under, Extreme from 6 under."""
    difficulties = [aoe_attack(PS, max_range=7, distance=distance, foe=True).difficulty for distance in range(8)]
    assert difficulties == [EX, EX, AW, SP, GT, GD, PS, PR]


def test_foe_aoe_extreme_difficulty_always_hits() -> None:
    """Ruling 27 with ruling 4: from 6 bands under, even an Awesome Fate roll fails: the band is hit."""
    assert aoe_attack(AW, max_range=6, distance=0, foe=True).band == 0
    assert aoe_attack(AW, max_range=9, distance=1, foe=True).band == 1


def test_foe_autofire_and_awesome_fate_runs_out_of_ammo() -> None:
    """Ruling 26: against a foe's autofire spray, an Awesome Fate roll: out of ammunition."""
    hit = aoe_attack(AW, max_range=3, distance=3, foe=True, autofire=True)
    assert hit == AoeHit(difficulty=PR, band=None, extra_damage=0, extra_targets=0, out_of_ammo=True)


@given(
    results,
    st.integers(min_value=0, max_value=9),
    st.data(),
    st.booleans(),
)
@settings(max_examples=400)
def test_aoe_fate_column_mirrors_the_attack_column(
    result: Level, max_range: int, data: st.DataObject, autofire: bool
) -> None:
    """Ruling 27: an Attack result A against D reads exactly as the Fate result 9 - A against 10 - D."""
    distance = data.draw(st.integers(min_value=0, max_value=max_range))
    attack = aoe_attack(result, max_range=max_range, distance=distance, autofire=autofire)
    fate = aoe_attack(Level(9 - result), max_range=max_range, distance=distance, foe=True, autofire=autofire)
    assert fate.difficulty == Level(10 - attack.difficulty)
    assert (fate.band, fate.extra_damage, fate.extra_targets, fate.out_of_ammo) == (
        attack.band, attack.extra_damage, attack.extra_targets, attack.out_of_ammo,
    )  # fmt: skip


@given(results, st.integers(min_value=0, max_value=9), st.data(), st.booleans(), st.booleans())
@settings(max_examples=400)
def test_aoe_bands_stay_within_the_track(
    result: Level, max_range: int, data: st.DataObject, foe: bool, autofire: bool
) -> None:
    """The band hit is never behind the attacker, and at most 3 bands beyond the target."""
    distance = data.draw(st.integers(min_value=0, max_value=max_range))
    hit = aoe_attack(result, max_range=max_range, distance=distance, foe=foe, autofire=autofire)
    if hit.out_of_ammo:
        assert hit.band is None
    else:
        assert hit.band is not None
        assert 0 <= hit.band <= distance + 3
        assert max(0, distance - 3) <= hit.band
    assert hit.extra_damage in (0, 1) and hit.extra_targets in (0, 1)


def test_aoe_attack_refuses_out_of_range() -> None:
    with pytest.raises(ArtRuleError):
        aoe_attack(GD, max_range=2, distance=3)
    with pytest.raises(ArtRuleError):
        aoe_attack(GD, max_range=2, distance=-1, foe=True)


def test_aoe_attack_extreme_reads_the_awesome_row() -> None:
    """Extreme is never rolled; like the movement table (ruling 18) it reads the Awesome row."""
    assert aoe_attack(EX, max_range=2, distance=1) == aoe_attack(AW, max_range=2, distance=1)
    assert aoe_attack(EX, max_range=2, distance=1, foe=True) == aoe_attack(AW, max_range=2, distance=1, foe=True)


# --- lowest_fate, aoe_damage --------------------------------------------------------------------


def test_lowest_fate_keeps_given_order_on_ties() -> None:
    """ch. 5 "Area of Effect", "Fighting in a Grapple": ties are the attacker's choice."""
    fates = [("a", GD), ("b", PR), ("c", PR), ("d", CT)]
    assert lowest_fate(fates) == ("d",)
    assert lowest_fate(fates, 2) == ("d", "b")
    assert lowest_fate(fates, 3) == ("d", "b", "c")
    assert lowest_fate(fates, 9) == ("d", "b", "c", "a")


def test_lowest_fate_refuses_duplicates_and_negative_counts() -> None:
    with pytest.raises(ArtRuleError):
        lowest_fate([("a", GD), ("a", PR)])
    with pytest.raises(ArtRuleError):
        lowest_fate([("a", GD)], -1)
    assert lowest_fate([("a", GD)], 0) == ()
    assert lowest_fate([], 2) == ()


@pytest.mark.parametrize(
    ("damage", "extra", "prone", "expected"),
    [
        (PS, 0, False, PS),
        (PS, 1, False, GD),  # AW/SP rows: +1 damage
        (PS, 0, True, PR),  # ruling 28
        (PS, 1, True, PS),  # net shift
        (CT, 0, True, CT),  # kept within CT..EX
        (EX, 1, False, EX),
        (AW, 1, True, AW),
    ],
)
def test_aoe_damage(damage: Level, extra: int, prone: bool, expected: Level) -> None:
    assert aoe_damage(damage, extra=extra, prone=prone) == expected


def test_aoe_damage_applies_any_net_shift() -> None:
    assert aoe_damage(PS, extra=-1) == PR
    assert aoe_damage(PR, extra=-9, prone=True) == CT
