"""Generic dice notation: worked examples per operator first, then errors, odds (against full enumeration), the
reading in words, and properties (hypothesis) over a grammar that generates every operator."""

from __future__ import annotations

import itertools
import math
import pickle
import random
import statistics
import zlib
from collections.abc import Iterator
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.dice import DiceError, ScriptedDice
from app.rules.notation import (
    EXPLOSION_CAP,
    Compare,
    Dice,
    Expression,
    Keep,
    LimitError,
    NotationError,
    Number,
    RollError,
    bounds,
    canonical,
    describe_odds,
    evaluate,
    mean,
    odds,
    parse,
    pools,
    reading,
    roll,
)
from app.rules.notation.odds import Unsupported, analysis, die, limits
from app.rules.notation.tree import Binary, Explode, Group, Reroll


class SimulatedDice:
    """Seeded pseudo-random dice for simulations and property tests (never the global `random`)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class BrokenDice:
    def roll(self, sides: int) -> int:
        return sides + 1


# --- Worked examples ---------------------------------------------------------------------------


def test_keep_highest_drops_the_lowest_die() -> None:
    result = roll("4d6kh3", ScriptedDice([6, 5, 1, 3]))
    assert result.total == 14
    (term,) = result.terms
    assert term.faces == (6, 5, 1, 3)
    assert term.kept == (True, True, False, True)
    assert term.dropped == (2,)
    assert result.render() == "4d6kh3 [6, 5, 1̶, 3] = 14"


@pytest.mark.parametrize(
    ("text", "faces", "total", "kept"),
    [
        ("2d20kl1", [17, 4], 4, (False, True)),
        ("4d6dl1", [6, 5, 1, 3], 14, (True, True, False, True)),
        ("4d6d1", [6, 5, 1, 3], 14, (True, True, False, True)),  # Roll20: a bare d drops the lowest
        ("4d6dh1", [6, 5, 1, 3], 9, (False, True, True, True)),
        ("4d6k3", [6, 5, 1, 3], 14, (True, True, False, True)),
        ("4d6ph1", [6, 5, 1, 3], 9, (False, True, True, True)),  # Avrae's p drops
        ("3d6kh2", [5, 5, 5], 10, (True, True, False)),  # ties: the die rolled first stays
        ("3d6kl2", [5, 5, 5], 10, (True, True, False)),
        ("2d6dh2", [3, 4], 0, (False, False)),
    ],
)
def test_keep_and_drop(text: str, faces: list[int], total: int, kept: tuple[bool, ...]) -> None:
    result = roll(text, ScriptedDice(faces))
    assert result.total == total
    assert result.terms[0].kept == kept


def test_8d100d3_drops_the_three_lowest() -> None:
    result = roll("8d100d3", ScriptedDice([50, 3, 99, 1, 70, 2, 60, 40]))
    assert result.total == 50 + 99 + 70 + 60 + 40
    assert canonical("8d100d3") == "8d100dl3"


def test_exploding_dice_roll_again_and_the_new_die_can_explode() -> None:
    dice = ScriptedDice([6, 6, 2, 4, 1])
    result = roll("3d6!", dice)
    (term,) = result.terms
    assert term.faces == (6, 6, 2, 4, 1)
    assert term.exploded == 2
    assert not term.capped
    assert result.total == 19
    assert dice.remaining == 0
    assert result.render() == "3d6! [6!, 6!, 2, 4, 1] = 19"
    assert [roll.marks for roll in result.rolls] == [["exploded"], ["exploded"], [], [], []]


def test_explode_with_a_threshold_is_roll20s_or_more() -> None:
    # 3d6!>4: a 4 explodes; the old reading (explode on 6, then count dice above 4) is gone.
    result = roll("3d6!>4", ScriptedDice([4, 2, 5, 6, 1, 3]))
    assert result.total == 4 + 2 + 5 + 6 + 1 + 3
    assert result.render() == "3d6!>=4 [4!, 2, 5!, 6!, 1, 3] = 21"
    assert parse("3d6!>4").root == Dice(3, 6, explode=Explode("!", Compare(">=", 4)))
    assert parse("3d6!3").root == Dice(3, 6, explode=Explode("!", Compare("=", 3)))
    assert parse("4d6e6").root == parse("4d6!6").root  # Avrae's e


def test_compounding_adds_the_rolls_into_one_die() -> None:
    result = roll("2d6!!", ScriptedDice([6, 6, 2, 3]))
    assert result.total == 17
    assert result.render() == "2d6!! [14!!, 3] = 17"
    assert [roll.marks for roll in result.rolls] == [["exploded"], ["exploded"], [], []]
    # Kept and counted as one die: {5d6!!}>8 counts compounded dice of 8 or more.
    assert roll("{2d6!!}>8", ScriptedDice([6, 3, 5])).total == 1


def test_penetrating_dice_count_one_less() -> None:
    result = roll("1d6!p", ScriptedDice([6, 6, 4]))
    assert result.total == 6 + 5 + 3
    assert result.render() == "1d6!p [6!, 5!, 3] = 14"
    assert [roll.value for roll in result.rolls] == [6, 5, 3]


def test_rerolls_replace_the_die_and_say_so() -> None:
    result = roll("2d8r<2", ScriptedDice([1, 2, 5, 7]))
    assert result.total == 12
    assert result.render() == "2d8r<=2 [1̶↻, 2̶↻, 5, 7] = 12"
    assert [roll.marks for roll in result.rolls] == [["rerolled", "dropped"], ["rerolled", "dropped"], [], []]
    assert roll("1d20ro1", ScriptedDice([1, 1])).total == 1  # once only
    assert roll("1d20rr1", ScriptedDice([1, 1, 9])).total == 9  # Avrae's rr: again while it matches
    assert roll("2d8r1r3r5r7", ScriptedDice([1, 3, 4, 8])).total == 12


def test_rerolls_stop_at_the_cap() -> None:
    result = roll("1d6r<5", ScriptedDice([1] * 11))
    assert result.total == 1
    assert result.terms[0].reroll_capped
    assert result.render().endswith("(reroll cap reached) = 1")


def test_reroll_and_add_rolls_one_more_die() -> None:
    assert roll("2d6ra1", ScriptedDice([1, 1, 4])).total == 6  # one extra die, not two
    assert roll("2d6ra1", ScriptedDice([2, 3])).total == 5


def test_min_and_max_per_die() -> None:
    result = roll("3d6mi2ma5", ScriptedDice([1, 6, 3]))
    assert result.total == 2 + 5 + 3
    assert result.render() == "3d6mi2ma5 [1→2, 6→5, 3] = 10"
    assert parse("3d6min2max5").root == parse("3d6mi2ma5").root  # rpg-dice-roller's spelling


def test_success_and_failure_counts_read_greater_than_as_or_more() -> None:
    result = roll("3d6>3f1", ScriptedDice([3, 1, 2]))
    assert result.total == 0  # the 3 succeeds (Roll20: ties count), the 1 fails
    assert result.render() == "3d6>=3f1 [3*, 1✗, 2] (1 success) (1 failure) = 0"
    assert roll("10d6<4", ScriptedDice([4, 5, 1, 6, 2, 3, 4, 6, 6, 5])).total == 5
    assert roll("6d6=4", ScriptedDice([5, 2, 4, 1, 6, 3])).total == 1


def test_success_counting_ignores_dropped_dice() -> None:
    assert roll("3d6kl2>=5", ScriptedDice([6, 5, 1])).total == 1


def test_fate_dice_show_minus_zero_plus() -> None:
    result = roll("4dF+1", ScriptedDice([1, 2, 3, 3]))
    assert result.total == -1 + 0 + 1 + 1 + 1
    assert result.render() == "4dF [-1, 0, +1, +1] + 1 = 2"
    assert [roll.value for roll in result.rolls] == [-1, 0, 1, 1]


def test_groups_keep_over_dice_or_over_totals() -> None:
    # One sub-roll: the highest 2 of all the dice.
    assert roll("{2d6+1d8}k2", ScriptedDice([3, 5, 8])).total == 13
    # Several: the higher total (Savage Worlds' wild die).
    result = roll("{1d8!,1d6!}kh1", ScriptedDice([8, 2, 6, 6, 1]))
    assert result.total == 13
    assert "kh1 = 13" in result.render()
    # One sub-roll with numbers: each die has them added, then is counted.
    assert roll("{3d20+5}>21f<10", ScriptedDice([16, 5, 12])).total == 0
    # Avrae's sets are groups.
    assert parse("(1d4 + 1, 3, 2d6kl1)kh1").root == parse("{1d4+1,3,2d6kl1}kh1").root


def test_arithmetic_and_functions() -> None:
    assert roll("(1d6+2)*3", ScriptedDice([4])).total == 18
    assert roll("1d6+2*3", ScriptedDice([4])).total == 10
    assert roll("7/2", ScriptedDice([])).total == Fraction(7, 2)  # Roll20 keeps fractions (Avrae: 3)
    assert roll("7//2", ScriptedDice([])).total == 3
    assert roll("-7%3", ScriptedDice([])).total == -1  # Roll20 (JavaScript): the dividend's sign
    assert roll("floor(7/2)+ceil(7/2)+round(5/2)+abs(-4)", ScriptedDice([])).total == 3 + 4 + 3 + 4
    assert roll("round(-5/2)", ScriptedDice([])).total == -2  # Roll20: halves up
    assert evaluate.number_text(Fraction(7, 2)) == "3.5"


def test_a_division_by_zero_is_refused_at_the_roll_and_flagged_before() -> None:
    with pytest.raises(RollError) as caught:
        roll("10/(1d2-1)", ScriptedDice([1]))
    assert caught.value.column == 3
    assert describe_odds("10/(1d2-1)")["divides_by_zero"] is True
    assert describe_odds("10/(1d2-1)")["min"] is None


def test_labels_attach_to_the_term_before_them_and_show_in_the_line() -> None:
    expr = parse("2d6+1 [fire] + 1d4[cold]")
    assert isinstance(expr.root, Binary)
    result = roll(expr, ScriptedDice([3, 4, 2]))
    assert result.render() == "2d6 [3, 4] + 1 [fire] + 1d4 [2] [cold] = 10"
    assert canonical(expr) == "2d6+1[fire]+1d4[cold]"


@pytest.mark.parametrize(
    ("text", "note", "formula"),
    [
        ("2d6+1 # sneak attack", "sneak attack", "2d6+1"),
        ("1d20+5 Roll for Initiative", "Roll for Initiative", "1d20+5"),
        ("1d20+5 \\ +5 Roll for Initiative", "+5 Roll for Initiative", "1d20+5"),
        ("3d6#", "", "3d6"),
        ("1d20 Angriff auf den Ork", "Angriff auf den Ork", "1d20"),
    ],
)
def test_trailing_text_is_the_rolls_note(text: str, note: str, formula: str) -> None:
    expr = parse(text)
    assert expr.note == note
    assert canonical(expr) == formula
    assert roll(expr, SimulatedDice(1)).note == note


def test_percentile_die_is_one_d100_and_00_counts_as_100() -> None:
    dice = ScriptedDice([100])
    result = roll("d%", dice)
    assert result.total == 100
    assert dice.faces == [(100, 100)]
    assert result.text == "1d100"


def test_sums_differences_and_a_leading_sign() -> None:
    result = roll("1d20 - 2 + d4", ScriptedDice([15, 3]))
    assert result.total == 16
    assert result.render() == "1d20 [15] - 2 + 1d4 [3] = 16"
    assert roll("-d4+3", ScriptedDice([4])).render() == "-1d4 [4] + 3 = -1"
    assert parse("+7") == Expression(Number(7))


def test_case_and_spaces_do_not_matter() -> None:
    assert canonical("  2D6 +\t1 ") == "2d6+1"
    assert canonical("4D6KH3") == "4d6kh3"
    assert canonical("3d6 - 007") == "3d6-7"
    assert canonical("4df") == "4dF"


def test_modifiers_may_come_in_any_order_and_apply_in_roll20s() -> None:
    assert parse("4d6d1!").root == parse("4d6!d1").root
    assert parse("4d6>4kh3").root == parse("4d6kh3>4").root
    result = roll("5d10kh3!>=8", ScriptedDice([10, 3, 8, 2, 9, 1, 4, 5]))
    # 10 explodes into 3; 8 into 2; 9 into 1: pool [10, 3, 8, 2, 9, 1, 4, 5]; kh3 keeps 10, 9, 8.
    assert result.total == 27


def test_parse_builds_the_tree() -> None:
    assert parse("5d10!kh3>=8 - 2").root == Binary(
        "-", Dice(5, 10, explode=Explode("!"), keep=Keep("kh", 3), success=Compare(">=", 8)), Number(2)
    )
    assert parse("2d8ro1r3").root == Dice(2, 8, rerolls=(Reroll("ro", Compare("=", 1)), Reroll("r", Compare("=", 3))))
    assert isinstance(parse("{1d6,2}").root, Group)


def test_a_broken_roller_is_caught() -> None:
    with pytest.raises(DiceError):
        roll("1d6", BrokenDice())


# --- Errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "column", "expected"),
    [
        ("3d", 3, "a number of sides (or %)"),
        ("2d6+", 5, "a number or dice (like 2d6)"),
        ("d0", 2, "a number of sides from 1 to 1000"),
        ("4d6kh5", 6, "a number from 1 to 4"),
        ("abc", 1, "a number or dice (like 2d6)"),
        ("", 1, "a number or dice (like 2d6)"),
        ("   ", 4, "a number or dice (like 2d6)"),
        ("0d6", 1, "a number of dice from 1"),
        ("2d6 @", 5, "an operator (+, -, *, /, //, %), # and a note, or the end"),
        ("2d6 5", 5, "an operator (+, -, *, /, //, %), # and a note, or the end"),
        ("2d6 d4", 5, "an operator (+, -, *, /, //, %), # and a note, or the end"),
        ("2d6x", 4, "a modifier (like kh3, !, r1, >4), an operator or the end"),
        ("3d6kh", 6, "a number of dice to keep"),
        ("3d6d", 5, "a number of dice to drop"),
        ("1d6>=", 6, "a target number"),
        ("2d6+*1", 5, "a number or dice (like 2d6)"),
        ("1d1!", 1, None),
        ("1d6r<6", 1, None),
        ("1d6!>1", 1, None),
        ("4d6kh3kh2", 7, None),
        ("2d6f1", 4, "a success count before f, like >3f1"),
        ("(1d6", 5, "), a comma or an operator"),
        ("{1d6,2", 7, "a comma, } or an operator"),
        ("1d20+5[", 7, "]"),
        ("2d6**2", 4, "*, /, //, % or +, -"),
        ("{1d6*2}k1", 1, None),
        ("1d6mi4ma2", 1, None),
        ("2d6!!p", 6, None),
        ("4d6 // fire", 8, "a number or dice (like 2d6)"),
    ],
)
def test_bad_notation_says_where_and_what(text: str, column: int, expected: str | None) -> None:
    with pytest.raises(NotationError) as caught:
        parse(text)
    assert type(caught.value) is NotationError
    assert caught.value.column == column, str(caught.value)
    assert caught.value.expected == expected
    assert str(caught.value).startswith(f"at column {column}: ")


def test_error_messages_read_well() -> None:
    assert str(_error("3d")) == "at column 3: expected a number of sides (or %), found the end"
    assert str(_error("4d6kh5")) == "at column 6: cannot keep 5 of 4 dice"
    assert str(_error("1d1!")) == "at column 1: a d1 would explode forever"
    assert str(_error("2d6f1")) == "at column 4: f counts failures after a success count, like 3d6>3f1"
    assert str(_error("4d6kh3kh2")) == "at column 7: keep/drop may appear only once here"


@pytest.mark.parametrize(
    ("text", "column", "limit"),
    [
        ("1101d6", 1, 1100),
        ("600d6 + 501d6", 9, 1100),
        ("2d1001", 3, 1000),
        ("+".join(["1"] * 65), 129, 64),
        ("1" * 8, 1, 1_000_000),
        ("+".join(["1d6[" + "x" * 50 + "]"] * 6), 301, 300),
        ("+".join(["d%!k1"] * 31), 186, 300),  # 185 typed, but 309 written out in full
        ("(" * 9 + "1" + ")" * 9, 9, 8),
        ("1d6 # " + "x" * 501, 506, 500),
        ("1d6[" + "x" * 51 + "]", 4, 50),
    ],
)
def test_limits(text: str, column: int, limit: int) -> None:
    with pytest.raises(LimitError) as caught:
        parse(text)
    assert caught.value.column == column
    assert caught.value.limit == limit


def test_limits_themselves_are_allowed() -> None:
    parse("1100d1000")
    parse("20d4 + 999d10")  # rpg-dice-roller's documented example
    parse("+".join(["1"] * 64))
    parse("9" * 6)
    parse("(" * 8 + "1" + ")" * 8)
    parse("1d6 # " + "x" * 500)
    longest = "+".join(["d%!k1"] * 30)
    assert len(canonical(longest)) == 299
    assert parse(canonical(longest)) == parse(longest)


def test_errors_survive_pickling() -> None:
    for text in ("3d", "1101d6"):
        error = _error(text)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert (str(copy), copy.column, copy.expected) == (str(error), error.column, error.expected)


def _error(text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        parse(text)
    return caught.value


# --- Odds --------------------------------------------------------------------------------------


def test_mean_of_small_cases() -> None:
    assert mean("2d6") == 7
    assert mean("4d6kh3") == Fraction(15869, 1296)
    assert mean("2d20kl1") == Fraction(287, 40)
    assert mean("6d6>=4") == 3
    assert mean("d%") == Fraction(101, 2)
    assert mean("1d20-2+d4") == 11
    assert mean("4dF") == 0
    assert mean("2d6*3") == 21
    assert mean("2d6/2") == Fraction(7, 2)


def test_describe_odds() -> None:
    shown = describe_odds("4d6kh3")
    assert (shown["min"], shown["max"], shown["mean"], shown["exact"], shown["text"]) == (3, 18, 12.24, True, "4d6kh3")
    assert describe_odds("-d4 + 2")["min"] == -2


def test_bounds_of_exploding_dice_use_the_cap() -> None:
    assert bounds("1d6!") == (1, 606)
    assert bounds("3d6!kh1") == (1, 6)
    assert bounds("2d6!=6") == (2, 612)
    assert bounds("{2d6!}<=5") == (0, 2)  # only the last die of each chain can show less than 6


def test_mean_of_one_exploding_die_is_exact_with_the_cap() -> None:
    # Each further die needs the one before to show 6, so E[dice rolled] = 1 + sum of 6^-k up to the cap.
    expected_dice = 1 + sum(Fraction(1, 6**k) for k in range(1, EXPLOSION_CAP + 1))
    assert mean("d6!") == Fraction(7, 2) * expected_dice


@pytest.mark.parametrize(
    "text",
    [
        "3d4kl2",
        "4d3dh1",
        "3d6>=5",
        "4d4kh2<3",
        "2d6-1d4+3",
        "-3d3dl1=2",
        "3d5kh1",
        "2d4r1",
        "2d4ro<2",
        "2d4r1ro2",
        "3d4mi2",
        "3d4ma2kh2",
        "3dF",
        "4dFkh2",
        "3d4>3f1",
        "{2d4+1d3}k2",
        "{1d4,1d3}kh1",
        "{1d4+1,2d3}>4f<3",
        "{2d3+1}>3",
        "2d4ra4",
        "floor(2d4/3)",
        "ceil(1d4/2)*2",
        "round(2d3/4)",
        "abs(1d4-3)",
        "2d4//3",
        "2d4%3",
        "1d4*1d3",
        "12/1d4",
        "{1d4,1d4,1d4}dl2",
        "(1d4+1, 3)kl1",
        "3d4kh2+1d3kl1",
    ],
)
def test_mean_and_bounds_match_full_enumeration(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _small_reroll_cap(monkeypatch)
    expected_mean, expected_low, expected_high = _enumerate(text, explosion_cap=0)
    assert mean(text, explosion_cap=0) == expected_mean
    low, high = bounds(text, explosion_cap=0)
    assert low <= expected_low and expected_high <= high


@pytest.mark.parametrize(
    "text",
    [
        "2d3!",
        "3d3!kh2",
        "3d3!kl2",
        "3d2!dh2",
        "3d3!dl2",
        "2d3!dl1>=2",
        "3d3!kl2<3",
        "2d3!>2kh1",
        "2d3!<1kh1",
        "2d3!!",
        "2d3!!kh1",
        "2d3!p",
        "{2d3!}>2",
        "1d3!p>2",
        "1d3!!>=2",
        "{1d3!,1d2!}kh1",
        "2d3!r1",
    ],
)
@pytest.mark.parametrize("cap", [0, 1, 2])
def test_exploding_odds_match_full_enumeration(text: str, cap: int, monkeypatch: pytest.MonkeyPatch) -> None:
    _small_reroll_cap(monkeypatch)
    expected_mean, expected_low, expected_high = _enumerate(text, explosion_cap=cap)
    found = analysis.Odds(limits.Budget(float("inf")), cap).mean(parse(text).root)
    # Exact, except that dice sharing a term's cap are treated as independent: what that leaves out is at most
    # the chance of reaching the cap (times the biggest change it could make), and stated as the remainder.
    spread = max(abs(expected_high), abs(expected_low)) * 2 + 2
    assert abs(found.value - expected_mean) <= found.remainder * spread
    if found.remainder == 0:
        assert found.value == expected_mean
    low, high = bounds(text, explosion_cap=cap)
    assert low <= expected_low and expected_high <= high


def test_exploding_mean_is_exact_where_no_cap_is_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    assert mean("1d6!!") == mean("1d6!")
    assert describe_odds("5d6!!")["remainder"] == 0.0  # a sum: the shapes count the shared cap exactly
    assert 0 < describe_odds("{5d6!!}>8")["remainder"] < 1e-60  # counted per die: the cap's chance is stated


@pytest.mark.parametrize(
    "text",
    [
        "3d6!kh2",
        "6d6!>=5",
        "4d4!dl1",
        "3d6!>4",
        "4d6r1kh3",
        "{3d6!!}>7",
        "2d6!p",
        "{4d6+3d8}k4",
        "{1d8!,1d6!}kh1",
        "4dF+1",
        "10d6<4f>5",
    ],
)
def test_means_match_simulation(text: str) -> None:
    dice = SimulatedDice(1234)
    trials = 6000
    average = sum(roll(text, dice).total for _ in range(trials)) / trials
    assert float(average) == pytest.approx(float(mean(text) or 0), rel=0.03, abs=0.03)


def test_big_terms_fall_back_to_floats_close_to_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "60d20!kh30+40d100kl7"
    exact = mean(text)
    assert exact is not None
    odds._describe.cache_clear()
    monkeypatch.setattr(analysis, "EXACT_BUDGET", -1)
    try:
        approximate = describe_odds(text)
        assert approximate["exact"] is False
        found = mean(text)
        assert found is not None and abs(found - exact) < Fraction(1, 10**6)
    finally:
        odds._describe.cache_clear()


def test_the_largest_terms_still_answer() -> None:
    odds_shown = describe_odds("800d20kh400")  # in floats, within ODDS_BUDGET
    assert odds_shown["exact"] is False
    assert odds_shown["min"] < odds_shown["mean"] < odds_shown["max"]  # type: ignore[operator]


def test_odds_past_the_budget_give_bounds_and_no_mean() -> None:
    text = "+".join(f"166d{999 - i}kh83" for i in range(6))
    shown = describe_odds(text)
    assert shown["mean"] is None and shown["exact"] is False
    assert (shown["min"], shown["max"]) == bounds(text)


def test_combinations_without_a_method_give_bounds_and_say_roll_it() -> None:
    shown = describe_odds("4d6!pkh3")
    assert shown["mean"] is None and shown["min"] is not None
    assert describe_odds("{4d6+2d8-3d30}d3")["mean"] is None


def test_the_worst_odds_request_stays_cheap() -> None:
    import time

    worst = 0.0
    for text in (
        "+".join(f"166d{999 - i}kh83" for i in range(6)),
        "1000d999!",
        "500d6!dl250+500d5!dl250",
        "+".join(f"10d{100 - i}!kl5" for i in range(20)),
        "floor(20d20kh10/3)",
        "{5d100!!}>50",
        "{10d20,10d20,10d20}kh2",
        "1000d1000r<999",
    ):
        odds._describe.cache_clear()
        odds.die_pmf.cache_clear()
        start = time.process_time()
        describe_odds(text)
        worst = max(worst, time.process_time() - start)
    assert worst < 2.0  # about 0.4 s here; the budget's point is that it is not minutes


def _small_reroll_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full enumeration walks every face sequence: keep rerolls to 2 per die there."""
    monkeypatch.setattr(pools, "REROLL_CAP", 2)
    monkeypatch.setattr(die, "REROLL_CAP", 2)
    odds.die_pmf.cache_clear()
    odds._describe.cache_clear()


def _enumerate(text: str, explosion_cap: int) -> tuple[Fraction, Fraction, Fraction]:
    """Exact mean and bounds by rolling every possible face sequence once."""
    expr = parse(text)
    sides = max(node.sides for node in expr.dice)
    total, seen, probability = Fraction(0), [], Fraction(0)
    for faces in _sequences(sides, 1, 14):
        dice = ScriptedDice(faces)
        try:
            result = roll(expr, dice, explosion_cap=explosion_cap)
        except DiceError:
            continue  # too short for this outcome, or a face another die cannot show
        except RollError:
            continue
        if dice.remaining:
            continue  # a shorter sequence already is this outcome
        weight = Fraction(1, math.prod(die_sides for die_sides, _ in dice.faces))
        probability += weight
        total += weight * result.total
        seen.append(result.total)
        if probability == 1:
            break
    assert probability == 1
    return total, min(seen), max(seen)


def _sequences(sides: int, shortest: int, longest: int) -> Iterator[tuple[int, ...]]:
    for length in range(shortest, longest + 1):
        yield from itertools.product(range(1, sides + 1), repeat=length)


# --- The reading ---------------------------------------------------------------------------------


def test_the_reading_says_how_the_expression_was_read() -> None:
    words = " | ".join(part.english() for part in reading("3d6!>4 + 3d6>3f1 # sneak"))
    assert words == (
        "3d6!>=4: 3 dice with 6 sides; each die showing 4 or more adds another die (at most 100 more); "
        "add them up | 3d6>=3f1: 3 dice with 6 sides; count the dice showing 3 or more; minus one for "
        "each showing exactly 1 | #: note: sneak"
    )
    words = " | ".join(part.english() for part in reading("{4d6,3d8}kh1 + floor(2d20kl1/2)[half]"))
    assert "keep the highest total" in words and "round down" in words and "keep the lowest die" in words
    assert "label: half" in words


# --- Properties --------------------------------------------------------------------------------

_BLANKS = st.sampled_from(["", " ", "\t"])
_CP = st.sampled_from(["", ">", "<", "=", ">=", "<="])


@st.composite
def compare_points(draw: st.DrawFn, low: int, high: int, bare: bool = True) -> str:
    op = draw(_CP if bare else st.sampled_from([">", "<", "=", ">=", "<="]))
    return op + str(draw(st.integers(max(0, low - 1), high + 1)))


@st.composite
def dice_terms(draw: st.DrawFn, max_count: int = 4) -> str:
    count = draw(st.integers(1, max_count))
    fate = draw(st.booleans()) and draw(st.booleans())
    sides = 3 if fate else draw(st.sampled_from([1, 2, 3, 4, 6, 8, 10, 20, 100]))
    low, high = (-1, 1) if fate else (1, sides)
    text = draw(st.sampled_from(["", str(count)])) if count == 1 else str(count)
    text += "d" + ("F" if fate else "%" if sides == 100 and draw(st.booleans()) else str(sides))
    modifiers = []
    if draw(st.booleans()):
        modifiers.append(draw(st.sampled_from(["r", "ro", "rr"])) + draw(compare_points(low, high)))
    if draw(st.booleans()):
        modifiers.append(draw(st.sampled_from(["mi", "ma", "min", "max"])) + str(draw(st.integers(0, high + 1))))
    if draw(st.booleans()):
        modifiers.append(draw(st.sampled_from(["!", "!!", "!p"])) + draw(compare_points(low, high)))
    if draw(st.booleans()) and draw(st.booleans()):
        modifiers.append("ra" + draw(compare_points(low, high)))
    if draw(st.booleans()):
        modifiers.append(draw(st.sampled_from(["k", "kh", "kl", "d", "dh", "dl"])) + str(draw(st.integers(1, count))))
    if draw(st.booleans()):
        success = draw(compare_points(low, high, bare=False))
        if draw(st.booleans()):
            success += "f" + draw(compare_points(low, high))
        modifiers.append(success)
    text += "".join(draw(st.permutations(modifiers)))
    return "".join(char.upper() if draw(st.booleans()) else char for char in text)


def _atoms(depth: int) -> st.SearchStrategy[str]:
    base = dice_terms() | st.integers(0, 30).map(str)
    if depth <= 0:
        return base
    inner = st.deferred(lambda: formulas(depth - 1))
    return st.one_of(
        base,
        base,
        inner.map(lambda text: f"({text})"),
        st.tuples(st.sampled_from(["floor", "ceil", "round", "abs"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(
            st.lists(inner, min_size=1, max_size=3), st.sampled_from(["", "kh1", "kl1", "d1", ">5", "<3f>9"])
        ).map(lambda t: "{" + ", ".join(t[0]) + "}" + t[1]),
    )


@st.composite
def formulas(draw: st.DrawFn, depth: int = 2) -> str:
    terms = draw(st.lists(_atoms(depth), min_size=1, max_size=3))
    text = draw(st.sampled_from(["", "-", "+"])) + terms[0]
    for term in terms[1:]:
        text += draw(_BLANKS) + draw(st.sampled_from(["+", "-", "*", "/", "//", "%"])) + draw(_BLANKS) + term
        if draw(st.booleans()) and draw(st.booleans()):
            text += f"[{draw(st.sampled_from(['fire', 'cold dmg']))}]"
    return text


@st.composite
def expressions(draw: st.DrawFn) -> str:
    text = draw(formulas())
    return draw(_BLANKS) + text + draw(st.sampled_from(["", " # a note", " Roll for it"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=expressions())
def test_every_generated_expression_parses_or_raises_a_notation_error(text: str) -> None:
    _parse_or_notation_error(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=expressions(), seed=st.integers(0, 2**32))
def test_any_valid_expression_rolls_within_its_bounds(text: str, seed: int) -> None:
    try:
        expr = parse(text)
    except NotationError:
        return
    assert parse(canonical(expr)).root == expr.root
    try:
        low, high = bounds(expr)
    except Unsupported:  # a divisor that can be 0: the odds say so, the roll may refuse
        low, high = None, None
    for attempt in range(3):
        try:
            result = roll(expr, SimulatedDice(seed + attempt))
        except RollError:
            assert low is None
            continue
        assert result.text == canonical(expr)
        assert result.render()
        if low is not None and high is not None:
            assert low <= result.total <= high, (text, result.render())
    shown = describe_odds(expr)  # once per expression (it does not depend on the roll)
    if shown["mean"] is not None and low is not None:
        assert low - Fraction(1, 100) <= shown["mean"] <= high + Fraction(1, 100)  # type: ignore[operator]


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(text=expressions())
def test_the_sampled_mean_converges_on_the_exact_mean(text: str) -> None:
    try:
        expr = parse(text)
        exact = mean(expr, budget=odds.ODDS_BUDGET)
    except NotationError:
        return
    if exact is None:
        return
    dice = SimulatedDice(zlib.crc32(text.encode()))
    samples = []
    for _ in range(400):
        try:
            samples.append(float(roll(expr, dice).total))
        except RollError:
            return
    spread = statistics.pstdev(samples)
    average = statistics.fmean(samples)
    # Five standard errors; exploding dice's rare long chains make the spread a little too small, hence the floor.
    tolerance = 5 * max(spread, 0.05 * (max(samples) - min(samples)) + 1e-9) / math.sqrt(len(samples)) + 1e-9
    assert abs(average - float(exact)) <= tolerance, (text, average, float(exact))


@settings(max_examples=500, deadline=None)
@given(text=st.text())
def test_any_text_parses_or_raises_notation_error(text: str) -> None:
    _parse_or_notation_error(text)


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet="0123456789dDfFkKhHlLrRoOaAmMiIxXnNeEpP!%+-*/<>=(){},[]# \t", max_size=40))
def test_notation_like_text_parses_or_raises_notation_error(text: str) -> None:
    _parse_or_notation_error(text)


def _parse_or_notation_error(text: str) -> None:
    try:
        expr = parse(text)
    except NotationError as error:
        assert 1 <= error.column <= len(text) + 1
        return
    assert parse(canonical(expr)).root == expr.root
