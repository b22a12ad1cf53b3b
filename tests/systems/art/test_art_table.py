"""The Action Results Table: loading, validation, reading, exact odds (art-engine.md ch. 3, "Using the ART")."""

from __future__ import annotations

import random
from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.systems.art.rules import (
    DEFAULT_TABLE,
    RESULT_LEVELS,
    ArtRuleError,
    Level,
    TableError,
    exact_chance,
    foe_level,
    load_table,
    read_table,
    result_odds,
    trait_roll,
)

# The shared rules folder stands beside the checkout (../shared; CI clones into another folder with shared/ beside it).
SHARED_CSV = Path(__file__).resolve().parents[3].parent / "shared" / "rules" / "art-table.csv"
ROWS = range(31)
ROLLS = range(1, 101)


class SimulatedDice:
    """Seeded dice for checking exact odds against a simulation."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


def _csv_lines() -> list[str]:
    return DEFAULT_TABLE.to_csv().splitlines()


def _with_cell(row: int, column: int, value: str) -> str:
    """The default table's CSV with one cell (column 0 is the row label) replaced."""
    lines = _csv_lines()
    cells = lines[row + 1].split(",")
    cells[column] = value
    lines[row + 1] = ",".join(cells)
    return "\n".join(lines)


# --- the worked example -------------------------------------------------------------------------


def test_roll_73_on_row_14_is_good() -> None:
    """ch. 3, "Using the ART": Strength 9 + Climbing 4 + Rock climbing 1 = row 14; 73 is in 59-73, Good."""
    assert read_table(14, 73) is Level.GD
    assert read_table(14, 59) is Level.GD
    assert read_table(14, 58) is Level.PS
    assert read_table(14, 74) is Level.GT


# --- the shipped table --------------------------------------------------------------------------


def test_packaged_csv_is_the_shared_table() -> None:
    packaged = resources.files("app.systems.art.rules").joinpath("art-table.csv").read_text("utf-8")
    assert load_table(packaged) == DEFAULT_TABLE
    if not SHARED_CSV.is_file():
        pytest.skip(f"no shared rules folder beside the checkout to compare with ({SHARED_CSV} is missing)")
    assert packaged == SHARED_CSV.read_text("utf-8")


def test_default_table_round_trips_through_csv() -> None:
    assert load_table(DEFAULT_TABLE.to_csv()) == DEFAULT_TABLE
    assert len(DEFAULT_TABLE.bounds) == 31


@pytest.mark.parametrize("row", ROWS)
def test_every_roll_on_every_row_reads_a_column_monotonically(row: int) -> None:
    results = [read_table(row, roll) for roll in ROLLS]
    assert all(result in RESULT_LEVELS for result in results)
    assert results == sorted(results)


@pytest.mark.parametrize("row", ROWS)
def test_01_is_catastrophic_and_00_is_awesome_on_every_row(row: int) -> None:
    """RULINGS.md preamble: 01 is always Catastrophic and 00 (100) always Awesome."""
    assert read_table(row, 1) is Level.CT
    assert read_table(row, 100) is Level.AW


@pytest.mark.parametrize("roll", ROLLS)
def test_a_higher_trait_never_reads_a_worse_column(roll: int) -> None:
    results = [read_table(row, roll) for row in ROWS]
    assert results == sorted(results)


@pytest.mark.parametrize("row", range(30))
def test_median_roll_reads_the_rows_henchman_band(row: int) -> None:
    """RULINGS.md preamble: each row's median result is the band the henchman table gives that trait
    (row 30 is Extreme's band, which is not a column, so it reads Awesome)."""
    assert read_table(row, 50) is foe_level(row)
    assert read_table(row, 51) is foe_level(row)


def test_row_30_median_is_awesome() -> None:
    assert read_table(30, 50) is Level.AW


@pytest.mark.parametrize(("row", "roll"), [(-1, 50), (31, 50), (10, 0), (10, 101)])
def test_reading_outside_the_table_is_refused(row: int, roll: int) -> None:
    with pytest.raises(ArtRuleError) as raised:
        read_table(row, roll)
    assert raised.value.field == ("row" if roll == 50 else "roll")


# --- validation of uploaded tables --------------------------------------------------------------


def test_load_accepts_byte_order_mark_crlf_spaces_and_blank_lines() -> None:
    text = "\ufeff" + DEFAULT_TABLE.to_csv().replace(",", ", ").replace("\n", "\r\n") + "\r\n\r\n"
    assert load_table(text) == DEFAULT_TABLE


def test_load_accepts_lowercase_header() -> None:
    lines = _csv_lines()
    lines[0] = lines[0].lower()
    assert load_table("\n".join(lines)) == DEFAULT_TABLE


@pytest.mark.parametrize(
    ("text", "row", "column"),
    [
        ("", None, None),
        ("\n \n", None, None),
        ("row,CT,PT,FB,IN,PR,PS,GOOD,GT,SP,AW\n", None, "GD"),
        ("row,CT,PT\n", None, "FB"),
        ("row,CT,PT,FB,IN,PR,PS,GD,GT,SP,AW,EX\n", None, None),
    ],
)
def test_bad_whole_file_or_header_is_named(text: str, row: int | None, column: str | None) -> None:
    with pytest.raises(TableError) as raised:
        load_table(text)
    assert (raised.value.row, raised.value.column) == (row, column)


@pytest.mark.parametrize(
    ("row", "column", "value", "named", "words"),
    [
        (14, 7, "50", "GD", "below the previous"),
        (3, 10, "99", "AW", "must be 100"),
        (0, 1, "abc", "CT", "not a whole number"),
        (5, 2, "-3", "PT", "not a whole number"),
        (7, 4, "101", "IN", "above 100"),
        (9, 0, "10", "row", "expected row number 9"),
    ],
)
def test_bad_cell_error_names_its_row_and_column(row: int, column: int, value: str, named: str, words: str) -> None:
    with pytest.raises(TableError) as raised:
        load_table(_with_cell(row, column, value))
    error = raised.value
    assert (error.row, error.column) == (row, named)
    assert words in error.message
    assert str(error).startswith(f"row {row}, column {named}: ")


def test_short_row_is_named() -> None:
    lines = _csv_lines()
    lines[12] = lines[12].rsplit(",", 1)[0]  # row 11 loses its AW cell
    with pytest.raises(TableError) as raised:
        load_table("\n".join(lines))
    assert (raised.value.row, raised.value.column) == (11, None)


def test_missing_last_row_is_named() -> None:
    with pytest.raises(TableError) as raised:
        load_table("\n".join(_csv_lines()[:-1]))
    assert raised.value.row == 30
    assert "missing" in raised.value.message


def test_extra_row_is_named() -> None:
    with pytest.raises(TableError) as raised:
        load_table("\n".join([*_csv_lines(), "31,1,1,1,1,1,1,1,1,1,100"]))
    assert raised.value.row == 31


def test_equal_bounds_are_allowed_as_columns_that_cannot_occur() -> None:
    table = load_table(_with_cell(20, 1, "0"))  # row 20: Catastrophic can no longer come up
    assert read_table(20, 1, table) is Level.PT
    assert result_odds(20, table)[Level.CT] == 0


@st.composite
def tables_csv(draw: st.DrawFn) -> str:
    lines = ["row,CT,PT,FB,IN,PR,PS,GD,GT,SP,AW"]
    for row in ROWS:
        bounds = sorted(draw(st.lists(st.integers(0, 100), min_size=9, max_size=9)))
        lines.append(",".join(str(cell) for cell in (row, *bounds, 100)))
    return "\n".join(lines)


@settings(max_examples=60, deadline=None)
@given(text=tables_csv(), row=st.integers(0, 30), roll=st.integers(1, 100))
def test_any_valid_table_loads_and_reads_consistently(text: str, row: int, roll: int) -> None:
    table = load_table(text)
    assert load_table(table.to_csv()) == table
    result = read_table(row, roll, table)
    bounds = table.bounds[row]
    assert roll <= bounds[result]
    assert result == 0 or roll > bounds[result - 1]
    assert sum(result_odds(row, table).values()) == 1


# --- exact odds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("row", ROWS)
def test_result_odds_sum_to_one(row: int) -> None:
    odds = result_odds(row)
    assert sum(odds.values()) == 1
    assert all(chance >= 0 for chance in odds.values())


def test_exact_chance_of_the_worked_example() -> None:
    """Row 14 against Poor: everything above Inferior's bound of 28 succeeds."""
    assert exact_chance(14, Level.PR) == Fraction(72, 100)


@pytest.mark.parametrize("trait", [-5, 0, 1, 12, 25, 40])
def test_catastrophic_always_succeeds_and_extreme_always_fails(trait: int) -> None:
    """Ruling 4."""
    assert exact_chance(trait, Level.CT) == 1
    assert exact_chance(trait, Level.EX) == 0


@pytest.mark.parametrize("difficulty", list(Level))
def test_exact_chance_never_falls_as_the_trait_rises(difficulty: Level) -> None:
    chances = [exact_chance(trait, difficulty) for trait in range(1, 26)]
    assert chances == sorted(chances)


def test_exact_chance_uses_the_clamped_and_fame_raised_row() -> None:
    assert exact_chance(40, Level.GT) == exact_chance(25, Level.GT)
    assert exact_chance(10, Level.GD, fame_before=2) == exact_chance(14, Level.GD)
    assert exact_chance(30, Level.GT, henchman=True) != exact_chance(25, Level.GT)


@pytest.mark.parametrize(
    ("trait", "difficulty"), [(14, Level.PR), (7, Level.PS), (20, Level.GT), (3, Level.FB), (25, Level.AW)]
)
def test_exact_chance_matches_simulation(trait: int, difficulty: Level) -> None:
    dice = SimulatedDice(1234)
    trials = 20_000
    wins = sum(trait_roll(dice, trait, difficulty).successes > 0 for _ in range(trials))
    assert abs(wins / trials - float(exact_chance(trait, difficulty))) < 0.02
