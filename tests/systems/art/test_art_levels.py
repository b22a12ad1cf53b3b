"""Levels, successes and failures, adding difficulties, time in phases, henchmen (art-engine.md ch. 1, 3, 4)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.systems.art.rules import (
    HENCHMAN_TRAITS,
    ArtRuleError,
    Level,
    add_difficulties,
    adjust_difficulty,
    combine,
    compound_results,
    count,
    foe_level,
    henchman_trait,
    phases,
)

levels = st.sampled_from(list(Level))
results = st.sampled_from([level for level in Level if level <= Level.AW])

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level


# --- levels -------------------------------------------------------------------------------------


def test_levels_are_ordered_and_named_as_in_the_text() -> None:
    """ch. 1, "Abbreviations"."""
    assert [level.name for level in Level] == ["CT", "PT", "FB", "IN", "PR", "PS", "GD", "GT", "SP", "AW", "EX"]
    assert [int(level) for level in Level] == list(range(11))
    assert Level["GD"] is Level.GD
    assert [level.display_name for level in Level] == [
        "Catastrophic", "Pathetic", "Feeble", "Inferior", "Poor", "Passable",
        "Good", "Great", "Super", "Awesome", "Extreme",
    ]  # fmt: skip


@pytest.mark.parametrize(("text", "level"), [("GD", GD), ("gd", GD), (" Good ", GD), ("super", SP), ("EX", EX)])
def test_parse_accepts_codes_and_names(text: str, level: Level) -> None:
    assert Level.parse(text) is level


def test_parse_refuses_unknown_levels() -> None:
    with pytest.raises(ArtRuleError) as raised:
        Level.parse("Superb")
    assert raised.value.field == "level"


# --- successes & failures: ch. 3 examples -------------------------------------------------------


@pytest.mark.parametrize(
    ("difficulty", "result", "outcome", "where"),
    [
        (GT, PR, -3, "Successes & Failures: Great difficulty, rolled Poor, 3 failures"),
        (PR, GT, 4, "Successes & Failures: Poor difficulty, rolled Great, 4 successes"),
        (PR, PR, 1, "Successes & Failures: Poor difficulty, rolled Poor, 1 success"),
        (IN, FB, -1, "Opposed Rolls: Feeble against the chieftain's Inferior Alertness, caught"),
        (PS, PR, -1, "Non-Compounding Tasks: the raft's best result Poor is 1 failure"),
        (PS, GD, 2, "Complex Actions: Good Cunning against Passable, 2 successes"),
        (PR, FB, -2, "Complex Actions: Feeble against Poor Intelligence, 2 failures"),
        (PR, SP, 5, "Complex Actions: Super against Poor Charm, 5 successes"),
        (GT, SP, 2, "Assist Rolls: Jane's Super against Great, 2 successes"),
        (PS, PR, -1, "Assist Rolls: your Poor landing against Passable, 1 failure"),
        (GT, GT, 1, "Reaction Rolls: a Great result barely resists Great Charm"),
        (PR, FB, -2, "Taking Damage: Feeble Defense against Poor Attack, 2 failures"),
        (PS, GD, 2, "Taking Damage: Good Defense against Passable Attack avoids damage"),
        (PS, FB, -3, "Falling Damage: Feeble on Passable Strength, 3 failures"),
        (PS, CT, -5, "Falling Damage: Catastrophic on Passable Agility, 5 failures"),
        (GD, PS, -1, "Falling Damage: Passable on Good Agility, 1 failure"),
        (GD, PR, -2, "Sustained Damage: Poor Defense against Good, 2 failures"),
        (PS, IN, -2, "Fatigue: Inferior on a Passable Stamina roll, -1 for 2 rounds"),
        (GD, FB, -4, "Alertness Rolls: Feeble searching at Good, a terrible mistake (4f)"),
        (PS, IN, -2, "ch. 5, Foe Attacking Player: Inferior versus Passable, 2 failures"),
        (GD, IN, -3, "ch. 5, Parrying: Inferior against a Good attack, Passable damage (3f)"),
    ],
)
def test_worked_examples_count(difficulty: Level, result: Level, outcome: int, where: str) -> None:
    assert count(difficulty, result) == outcome, where


def test_foe_test_uses_the_foes_attribute_as_the_result() -> None:
    """ch. 3, "Foe Tests": a Feeble Attack against Good Defense misses."""
    assert count(GD, FB) < 0


def test_sustained_example_pathetic_against_passable() -> None:
    """ch. 3, "Sustained Actions" calls Pathetic against Passable "5 failures"; the counting rule
    (and ruling 5) gives 4 -- the example's slip. We follow the rule."""
    assert count(PS, PT) == -4


def test_catastrophic_difficulty_always_succeeds_extreme_always_fails() -> None:
    """Ruling 4; ruling 5: Extreme counts one column above Awesome."""
    assert all(count(CT, result) >= 1 for result in Level)
    assert [count(EX, result) for result in (CT, PS, AW)] == [-10, -5, -1]
    assert count(EX, EX) == -1  # a foe's Extreme attribute still fails against Extreme


@given(difficulty=levels, result=levels)
def test_count_is_never_zero_and_its_sign_is_success(difficulty: Level, result: Level) -> None:
    outcome = count(difficulty, result)
    assert outcome != 0
    assert (outcome > 0) == (result >= difficulty and difficulty is not EX)


@given(a=levels, b=levels)
def test_count_swapping_sides_sums_to_one(a: Level, b: Level) -> None:
    """Opposed rolls: a player's failures are the foe's successes and vice versa (ch. 3), so with the
    sides swapped the two counts tell one story -- n successes one way is n-1 failures the other,
    because reaching the difficulty already counts one success."""
    if a != b:
        assert count(a, b) + count(b, a) == 1


@given(difficulty=st.sampled_from([level for level in Level if level < EX]), result=results)
def test_one_column_better_is_one_more_success(difficulty: Level, result: Level) -> None:
    if result < AW:
        step = count(difficulty, Level(result + 1)) - count(difficulty, result)
        assert step == (2 if result + 1 == difficulty else 1)  # from 1f straight to 1s


@given(difficulty=levels, result=levels)
def test_harder_difficulty_never_gives_more_successes(difficulty: Level, result: Level) -> None:
    if difficulty < EX:
        assert count(Level(difficulty + 1), result) < count(difficulty, result)


# --- adding difficulties ------------------------------------------------------------------------


def test_adding_difficulties_poor_passable_great() -> None:
    """ch. 3, "Adding Difficulties": Poor + Passable -> Good; Good + Great -> Super."""
    assert add_difficulties([PR, PS, GT]) is SP


def test_adding_difficulties_feeble_inferior_great() -> None:
    """Feeble + Inferior -> Poor, which is too far below Great: Great."""
    assert add_difficulties([FB, IN, GT]) is GT


def test_adding_difficulties_four_passables() -> None:
    """Two Passables -> Good, twice; two Goods -> Great."""
    assert add_difficulties([PS, PS, PS, PS]) is GT


def test_compounding_task_example() -> None:
    """ch. 3, "Compounding Tasks": Good, Poor, Inferior -> Passable, then Great."""
    assert compound_results([GD, PR, IN]) is GT


def test_combine_caps() -> None:
    assert combine([AW, AW]) is EX
    assert combine([AW, AW], cap=AW) is AW
    assert compound_results([AW, AW, SP]) is AW
    assert add_difficulties([EX, EX, EX]) is EX


def test_combine_needs_something() -> None:
    with pytest.raises(ArtRuleError):
        combine([])


@settings(max_examples=200)
@given(group=st.lists(levels, min_size=1, max_size=8), data=st.data())
def test_combine_properties(group: list[Level], data: st.DataObject) -> None:
    combined = combine(group)
    assert combined >= max(group)
    assert combined <= min(EX, max(group) + len(group) - 1)
    assert combine(data.draw(st.permutations(group))) is combined
    assert compound_results(group) is min(combined, AW)


@given(level=levels)
def test_a_pair_of_equals_is_one_rank_up(level: Level) -> None:
    assert combine([level]) is level
    assert combine([level, level]) is Level(min(level + 1, EX))


# --- adjusting difficulty -----------------------------------------------------------------------


def test_adjusting_difficulty_examples() -> None:
    """ch. 3, "Adjusting Difficulty": Good Defense at -1 difficulty is a Passable attack roll.

    "Alertness Rolls" drops a Super roll "three ranks" and asks for Good, which is two ranks down;
    the example slips, and three ranks below Super is Passable.
    """
    assert adjust_difficulty(GD, -1) is PS
    assert adjust_difficulty(SP, -2) is GD
    assert adjust_difficulty(SP, -3) is PS
    assert adjust_difficulty(PT, -3) is CT
    assert adjust_difficulty(AW, 3) is EX


def test_adjusting_by_more_than_three_columns_is_refused() -> None:
    with pytest.raises(ArtRuleError) as raised:
        adjust_difficulty(PS, 4)
    assert raised.value.field == "columns"


# --- time in phases (ruling 12) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "difficulty", "expected"),
    [
        (PT, CT, 8),  # ch. 4: Catastrophic trip, rolled Pathetic, 8 hours
        (IN, PS, 2),  # ch. 4: Passable engine repair, Inferior, 2 failures, 2 hours
        (GT, PR, 2),  # ch. 4: Poor research, Great, 2 columns under Awesome
        (SP, IN, 1),  # ch. 4: Inferior pliers, Super, 1 phase
        (PT, PR, 3),  # ch. 4: Poor safe, Pathetic, 3 hours
        (AW, GD, 0),  # Awesome: less than one phase
    ],
)
def test_phases_examples(result: Level, difficulty: Level, expected: int) -> None:
    assert phases(result, difficulty) == expected


# --- henchmen -----------------------------------------------------------------------------------


def test_henchman_bands_cover_0_to_30_in_order() -> None:
    """ch. 3, "Henchman Traits": every trait 0..30 belongs to exactly one foe attribute."""
    covered = [trait for low, high in HENCHMAN_TRAITS.values() for trait in range(low, high + 1)]
    assert covered == list(range(31))
    assert HENCHMAN_TRAITS[PS] == (13, 16)


@pytest.mark.parametrize("level", list(Level))
def test_henchman_trait_is_inside_its_band_and_converts_back(level: Level) -> None:
    low, high = HENCHMAN_TRAITS[level]
    assert low <= henchman_trait(level) <= high
    assert foe_level(henchman_trait(level)) is level


def test_foe_level_examples() -> None:
    assert [foe_level(trait) for trait in (-3, 0, 1, 5, 6, 14, 27, 29, 30, 45)] == [
        CT, CT, PT, FB, IN, PS, SP, AW, EX, EX,
    ]  # fmt: skip
