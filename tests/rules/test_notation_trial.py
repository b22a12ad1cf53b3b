"""The notation items of issue 35 (a new group's trial): signs after an operator, the 51-term Avrae example with
the odds' work still bounded, the practical range of rerolls, the kept maximum of a pool of unlike dice, constants
and labels in the reading, and a hint for `d20adv`."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from app.rules.dice import ScriptedDice
from app.rules.notation import (
    NotationError,
    bounds,
    canonical,
    describe_odds,
    mean,
    parse,
    reading,
    roll,
)
from app.rules.notation.odds import ODDS_BUDGET, limits
from app.rules.notation.odds.limits import EXACT_TOTAL

AVRAE_LONGEST = "1d20+" * 50 + "1d20"  # avrae/d20's README, "Performance": 51 terms, 254 characters


@pytest.mark.parametrize(
    ("text", "faces", "total", "spelled"),
    [
        ("1d20+-5", [12], 7, "1d20+-5"),
        ("1d20--6", [12], 18, "1d20--6"),
        ("--1", [], 1, "1"),
        ("2*-3", [], -6, "2*-3"),
        ("-+-1d4", [3], 3, "1d4"),
        ("1d20 - - 6", [2], 8, "1d20--6"),
        ("-1d4+--2", [4], -2, "-1d4+2"),
    ],
)
def test_signs_after_an_operator_are_accepted(text: str, faces: list[int], total: int, spelled: str) -> None:
    expr = parse(text)
    assert roll(expr, ScriptedDice(list(faces))).total == total
    assert canonical(expr) == spelled
    assert parse(canonical(expr)).root == expr.root


def test_a_run_of_signs_never_nests_the_tree() -> None:
    """An odd run of minus signs is one negation: 199 signs cost no recursion."""
    assert roll(parse("-" * 199 + "1"), ScriptedDice([])).total == -1
    assert roll(parse("-" * 198 + "1"), ScriptedDice([])).total == 1


def test_avraes_longest_documented_example_is_accepted() -> None:
    expr = parse(AVRAE_LONGEST)
    assert roll(expr, ScriptedDice([1] * 51)).total == 51
    assert bounds(expr) == (51, 1020)
    assert mean(expr) == Fraction(1071, 2)
    odds = describe_odds(AVRAE_LONGEST)
    assert (odds["min"], odds["max"], odds["mean"], odds["exact"]) == (51, 1020, 535.5, True)


def test_more_than_64_terms_are_still_refused() -> None:
    with pytest.raises(NotationError) as caught:
        parse("+".join(["1"] * 65))
    assert "64" in str(caught.value)


class _Meter:
    """Counts the work the odds were allowed to do: every charge a budget accepted, over all budgets."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.admitted = 0.0
        original = limits.Budget.charge
        meter = self

        def charge(budget: limits.Budget, units: float) -> None:
            left = budget.left
            original(budget, units)
            if left >= units:
                meter.admitted += units

        monkeypatch.setattr(limits.Budget, "charge", charge)


@pytest.mark.parametrize(
    "text",
    [
        "+".join(["d%!!k1"] * 18),  # 18 terms: allowed before, and then 18 full exact budgets (about 4 s)
        "+".join(["d%!!k1"] * 27),
        "+".join(f"d{90 + i}!!k1" for i in range(27)),  # unlike terms: no cache helps
        "+".join(["10d10!!kh5"] * 18),
    ],
)
def test_the_odds_work_is_bounded_per_expression_not_per_term(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    from app.rules.notation.odds import _describe

    _describe.cache_clear()
    meter = _Meter(monkeypatch)
    describe_odds(text)
    assert meter.admitted <= EXACT_TOTAL + ODDS_BUDGET, meter.admitted


@pytest.mark.parametrize(
    ("text", "practical", "theory"),
    [
        ("8d6r", (16, 48), (8, 48)),
        ("2d8r<2", (6, 16), (2, 16)),
        ("2d10r<2", (6, 20), (2, 20)),
        ("8d6r2r4r6", (8, 40), (8, 48)),
        ("1d20r1+5", (7, 25), (6, 25)),
        ("{2d8r<2+1d4}k2", (6, 16), (2, 16)),
        ("4d6ro1", (4, 24), None),  # rerolled once: a 1 stays with a fair chance
        ("1d20", (1, 20), None),
    ],
)
def test_the_range_shown_for_rerolls_is_the_practical_one(
    text: str, practical: tuple[int, int], theory: tuple[int, int] | None
) -> None:
    odds = describe_odds(text)
    assert (odds["min"], odds["max"]) == practical
    assert odds["theory"] == theory
    if theory is not None:
        assert bounds(text) == theory  # bounds() stays the theoretical range


def _brute_force(text: str) -> tuple[int, int]:
    """Every way the dice can fall (ScriptedDice in roll order): the lowest and highest total."""
    expr = parse(text)
    first = ScriptedDice([1] * 50)
    roll(expr, first)
    sides = [s for s, _ in first.faces]
    every = itertools.product(*(range(1, s + 1) for s in sides))
    totals = [roll(expr, ScriptedDice(list(faces))).total for faces in every]
    return int(min(totals)), int(max(totals))


@pytest.mark.parametrize(
    "text",
    ["{2d4+1d6}k2", "{2d4+1d6}kl2", "{2d4+1d6}d1", "{1d4+2d3}kh2+1", "{1d6+1d4+2}kl1", "{3d3+1d5}dh2"],
)
def test_a_pool_of_unlike_dice_keeps_within_its_bounds_exactly(text: str) -> None:
    assert bounds(text) == _brute_force(text)


def test_a_pool_with_a_subtracted_term_stays_within_its_bounds() -> None:
    """Dice are kept by their own value and then subtracted: the bounds are not tight there, but they hold."""
    low, high = bounds("{2d4-1d6}k2")
    seen = _brute_force("{2d4-1d6}k2")
    assert low <= seen[0] and seen[1] <= high


def test_four_d6_and_three_d8_keep_four_is_at_most_30() -> None:
    assert bounds("{4d6+3d8}k4") == (4, 30)
    assert describe_odds("{4d6+3d8}k4")["max"] == 30


def _read(text: str) -> list[tuple[str, list[str]]]:
    return [(part.notation, [clause.english() for clause in part.clauses]) for part in reading(text)]


def test_the_reading_says_the_constants_and_whose_label_it_is() -> None:
    assert _read("2d6+1") == [("2d6", ["2 dice with 6 sides", "add them up"]), ("+1", ["add 1"])]
    assert _read("1d20+5 [str]") == [("1d20", ["1 die with 20 sides"]), ("+5[str]", ["add 5", "label: str"])]
    assert _read("4d6kh3-3")[-1] == ("-3", ["subtract 3"])
    assert _read("1d20+-5")[-1] == ("-5", ["subtract 5"])
    assert _read("1d20--6")[-1] == ("+6", ["add 6"])
    # A group that keeps over its dice says its number itself, once.
    assert [notation for notation, _ in _read("{4d6+3d8+2}k4")] == ["{4d6+3d8+2}kh4", "4d6", "3d8"]


@pytest.mark.parametrize("text", ["d20adv", "2d20dis", "1d20+5adv", "d20advantage"])
def test_advantage_written_as_a_word_gets_the_notation_for_it(text: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse(text)
    assert "2d20kh1" in str(caught.value) and "2d20kl1" in str(caught.value)


def test_advantage_as_a_note_is_read_with_the_hint() -> None:
    parts: list[Any] = _read("1d20 adv")
    assert parts[-1] == (
        "#",
        ["note: adv", "for advantage roll 2d20kh1 (the higher of two d20), for disadvantage 2d20kl1"],
    )
