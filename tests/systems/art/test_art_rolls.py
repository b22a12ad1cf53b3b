"""Trait rolls, Fame, taking 25, combined and sustained actions (art-engine.md ch. 1 and 3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import DiceError, ScriptedDice
from app.systems.art.rules import (
    UNTRAINED_ROW,
    ArtRuleError,
    Level,
    combined_effort,
    count,
    effective_row,
    fame_after,
    improve_with_fame,
    is_doubles,
    kicker,
    load_table,
    percentile,
    read_table,
    sustained_action,
    trait_roll,
    trait_total,
)

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level

# A table where every roll on every row is Awesome: taking 25 on it reads Awesome.
ALL_AWESOME = load_table(
    "row,CT,PT,FB,IN,PR,PS,GD,GT,SP,AW\n" + "".join(f"{row},0,0,0,0,0,0,0,0,0,100\n" for row in range(31))
)


# --- the dice -----------------------------------------------------------------------------------


def test_reading_percentile_dice() -> None:
    """ch. 1, "Using the Dice": 6 on the high die and 1 on the other is 61; two zeros are 100."""
    assert percentile(6, 1) == 61
    assert percentile(0, 0) == 100
    assert percentile(0, 7) == 7
    assert percentile(1, 0) == 10


def test_percentile_refuses_non_digits() -> None:
    with pytest.raises(ArtRuleError) as raised:
        percentile(10, 1)
    assert raised.value.field == "tens"


def test_kicker_is_the_ones_digit() -> None:
    """ch. 1, "Kicker Die": a perk on kicker 3 fires on any roll ending in 3; ruling 2: 00 has kicker 0."""
    assert [kicker(roll) for roll in (3, 13, 73, 100, 40)] == [3, 3, 3, 0, 0]


def test_doubles_are_11_to_99_and_00() -> None:
    """ch. 6, "Inspiration Points"; ruling 2."""
    assert [roll for roll in range(1, 101) if is_doubles(roll)] == [11, 22, 33, 44, 55, 66, 77, 88, 99, 100]


# --- the trait ----------------------------------------------------------------------------------


def test_trait_totals_from_the_examples() -> None:
    assert trait_total(9, [4, 1]) == 14  # ch. 3, "Using the ART": climbing the cliff
    assert trait_total(9, [3, 2]) == 14  # ch. 3, "Assist Rolls": Jane
    assert trait_total(6, modifiers=2) == 8  # ch. 3, "Assist Rolls": you, with Jane's +2
    assert trait_total(3, modifiers=2) == 5  # ch. 3, "Complex Actions": Intelligence 3 with +2
    assert trait_total(5, [1, 1]) == 7  # ch. 6, "Creating Skills": Strength + Climb + Climb Rope
    assert trait_total(5, [1]) == 6  # ch. 6: Strength + Climb


def test_at_most_two_skills_rated_1_to_8() -> None:
    with pytest.raises(ArtRuleError) as raised:
        trait_total(5, [1, 2, 3])
    assert raised.value.field == "skills"
    with pytest.raises(ArtRuleError):
        trait_total(5, [9])


@pytest.mark.parametrize(
    ("trait", "fame", "row"), [(14, 0, 14), (14, 2, 18), (24, 1, 25), (30, 0, 25), (0, 0, 1), (-4, 1, 1), (-4, 3, 2)]
)
def test_adventurer_rows_add_fame_and_clamp_to_1_25(trait: int, fame: int, row: int) -> None:
    """Ruling 3; ch. 3, "Trait Modifiers" and "Using Fame Before Rolling"."""
    assert effective_row(trait, fame_before=fame) == row


def test_henchmen_roll_their_converted_trait_unclamped() -> None:
    assert effective_row(0, henchman=True) == 0
    assert effective_row(30, henchman=True) == 30
    for field, call in (
        ("trait", lambda: effective_row(31, henchman=True)),
        ("fame_before", lambda: effective_row(10, fame_before=1, henchman=True)),
        ("fame_before", lambda: effective_row(10, fame_before=-1)),
    ):
        with pytest.raises(ArtRuleError) as raised:
            call()
        assert raised.value.field == field


# --- trait rolls --------------------------------------------------------------------------------


def test_climbing_the_cliff() -> None:
    """ch. 3, "Using the ART": row 14, roll 73 -> Good, against Poor difficulty."""
    roll = trait_roll(ScriptedDice([73]), trait_total(9, [4, 1]), PR)
    assert (roll.row, roll.roll, roll.kicker, roll.doubles) == (14, 73, 3, False)
    assert roll.result is GD and roll.rolled is GD
    assert roll.successes == 3 and roll.succeeded and roll.failures == 0
    assert not roll.regains_fame


def test_one_d100_per_roll() -> None:
    dice = ScriptedDice([44, 5])
    trait_roll(dice, 10, PS)
    assert dice.faces == [(100, 44)]
    assert dice.remaining == 1


def test_doubles_and_the_00_roll() -> None:
    roll = trait_roll(ScriptedDice([100]), 5, GD)
    assert (roll.roll, roll.kicker, roll.doubles, roll.result) == (100, 0, True, AW)
    assert roll.regains_fame  # ch. 2, "Fame": an Awesome roll erases the tally marks


def test_fame_before_rolling_raises_the_row_and_forfeits_regain() -> None:
    roll = trait_roll(ScriptedDice([100]), 10, PS, fame_before=2)
    assert roll.row == 14
    assert roll.fame_spent == 2
    assert not roll.regains_fame  # ruling 6


def test_taking_25_reads_the_row_at_25_without_dice() -> None:
    """ch. 3, "Taking 25"; ruling 7: no kicker, no doubles, no Fame regained."""
    roll = trait_roll(ScriptedDice([]), 14, PR, take25=True)
    assert (roll.roll, roll.kicker, roll.doubles, roll.took25) == (None, None, False, True)
    assert roll.result is read_table(14, 25) is IN
    awesome = trait_roll(ScriptedDice([]), 14, PR, take25=True, table=ALL_AWESOME)
    assert awesome.result is AW and not awesome.regains_fame


def test_scripted_dice_that_run_out_are_not_swallowed() -> None:
    with pytest.raises(DiceError):
        trait_roll(ScriptedDice([]), 14, PR)


def test_untrained_specialized_actions_roll_on_row_2() -> None:
    """ch. 3, "Specialized Actions"."""
    assert trait_roll(ScriptedDice([50]), UNTRAINED_ROW, PS).row == 2


def test_catastrophic_and_extreme_difficulties_are_still_rolled_for_degree() -> None:
    """Ruling 4."""
    easy = trait_roll(ScriptedDice([1]), 10, CT)
    assert easy.result is CT and easy.successes == 1
    hard = trait_roll(ScriptedDice([100]), 25, EX)
    assert hard.result is AW and hard.successes == -1


@settings(max_examples=150, deadline=None)
@given(
    trait=st.integers(-10, 40),
    fame=st.integers(0, 4),
    face=st.integers(1, 100),
    difficulty=st.sampled_from(list(Level)),
)
def test_any_roll_reads_the_clamped_row(trait: int, fame: int, face: int, difficulty: Level) -> None:
    roll = trait_roll(ScriptedDice([face]), trait, difficulty, fame_before=fame)
    assert 1 <= roll.row <= 25
    assert roll.row == min(max(trait + 2 * fame, 1), 25)
    assert roll.result is read_table(roll.row, face)
    assert roll.successes == count(difficulty, roll.result)
    assert roll.kicker == face % 10


# --- Fame after rolling (ruling 6) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "difficulty", "fame", "expected"),
    [
        (PR, GT, 10, (GT, 6)),  # up to the difficulty, not beyond
        (PR, GT, 5, (GD, 4)),  # 2 Fame per column
        (PR, GT, 1, (PR, 0)),  # one Fame buys nothing
        (GT, PR, 10, (GT, 0)),  # already at or above the difficulty
        (SP, EX, 10, (AW, 2)),  # Extreme is not a column: Awesome at most
        (CT, CT, 10, (CT, 0)),
    ],
)
def test_fame_after(result: Level, difficulty: Level, fame: int, expected: tuple[Level, int]) -> None:
    assert fame_after(result, difficulty, fame) == expected


def test_fame_after_for_chosen_columns() -> None:
    assert fame_after(IN, GD, 10, columns=1) == (PR, 2)
    for columns, fame in ((4, 10), (3, 5), (-1, 10)):
        with pytest.raises(ArtRuleError) as raised:
            fame_after(IN, GD, fame, columns=columns)
        assert raised.value.field == "columns"
    with pytest.raises(ArtRuleError):
        fame_after(IN, GD, -1)


def test_improving_a_roll_with_fame() -> None:
    roll = trait_roll(ScriptedDice([40]), 14, GD)  # row 14, 40 -> Poor, 2 failures
    better = improve_with_fame(roll, 7)
    assert (better.rolled, better.result, better.successes, better.fame_after) == (PR, GD, 1, 4)
    assert better.fame_spent == 4
    assert improve_with_fame(better, 10) == better  # nothing more to buy


@given(result=st.sampled_from(list(Level)[:10]), difficulty=st.sampled_from(list(Level)), fame=st.integers(0, 30))
def test_fame_after_never_passes_the_difficulty_or_overspends(result: Level, difficulty: Level, fame: int) -> None:
    new, cost = fame_after(result, difficulty, fame)
    assert cost <= fame and cost % 2 == 0
    assert new == result + cost // 2
    assert new <= max(result, min(difficulty, AW))


# --- combined efforts ---------------------------------------------------------------------------


def test_raft_non_compounding_task() -> None:
    """ch. 3, "Non-Compounding Tasks": players roll Inferior and Poor, the helper has Inferior Strength;
    the best is Poor, 1 failure against Passable."""
    effort = combined_effort([IN, PR], compounding=False, helpers=[IN])
    assert effort.result is PR and not effort.disaster
    assert count(PS, effort.result) == -1


def test_carrying_a_friend_compounding_task() -> None:
    """ch. 3, "Compounding Tasks": Good, Poor and Inferior compound to Great."""
    effort = combined_effort([GD, PR, IN], compounding=True)
    assert effort.result is GT
    assert count(GT, effort.result) == 1


def test_any_players_catastrophic_is_a_disaster() -> None:
    assert combined_effort([AW, CT], compounding=False).disaster
    assert combined_effort([GD, CT], compounding=True).disaster
    assert not combined_effort([GD], compounding=True, helpers=[CT]).disaster
    with pytest.raises(ArtRuleError):
        combined_effort([], compounding=False, helpers=[GD])


# --- sustained actions --------------------------------------------------------------------------


def test_sustained_passable_strength_goal_10() -> None:
    """ch. 3, "Sustained Actions": Good, Great, Pathetic, Passable, Feeble, Passable, Great against
    Passable. The text tallies Pathetic as 5 failures (8 in all); the counting rule gives 4 (7 in
    all). Either way the successes reach 10 on round 7 and the action ends Great, 3 successes."""
    outcomes = [count(PS, result) for result in (GD, GT, PT, PS, FB, PS, GT)]
    assert outcomes == [2, 3, -4, 1, -3, 1, 3]
    after_six = sustained_action(outcomes[:6])
    assert (after_six.successes, after_six.failures, after_six.finished) == (7, 7, False)
    assert after_six.succeeded is None
    done = sustained_action(outcomes)
    assert (done.successes, done.failures, done.rolls, done.last) == (10, 7, 7, 3)
    assert done.finished and done.succeeded


def test_sustained_action_failure_goal_and_errors() -> None:
    failed = sustained_action([-3, -3], goal=10, failure_goal=5)
    assert failed.finished and failed.succeeded is False and failed.last == -3
    with pytest.raises(ArtRuleError) as raised:
        sustained_action([5, 1], goal=5)
    assert raised.value.field == "outcomes"
    with pytest.raises(ArtRuleError):
        sustained_action([1], goal=4)
    with pytest.raises(ArtRuleError):
        sustained_action([0])
