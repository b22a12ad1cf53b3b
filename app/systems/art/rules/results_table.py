"""The Action Results Table as data: loading and validating a CSV, reading a roll, exact odds.

art-engine.md, ch. 3 "Using the ART"; RULINGS.md, ART Engine preamble and ruling 1 (the table is
data; a campaign may upload its own in the same CSV shape).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any

from app.rules.text import N_, RuleText

from .levels import RESULT_LEVELS, ArtRuleError, Level

ROWS = range(0, 31)  # the table's rows, traits 0..30
ROLLS = range(1, 101)  # a d100; 00 is 100 (ruling 2)
HEADER: tuple[str, ...] = ("row", *(level.name for level in RESULT_LEVELS))


class TableError(RuleText, ValueError):
    """An uploaded table is malformed. `row` is the table row (0..30; None for the header or the
    whole file) and `column` the column name ("row", "CT".."AW"; None when the whole line is wrong)."""

    def __init__(self, row: int | None, column: str | None, message: str, **values: Any) -> None:
        where = ", ".join(
            part for part in (f"row {row}" if row is not None else "", f"column {column}" if column else "") if part
        )
        self._set_text(message, values)
        super().__init__(f"{where}: {self.message}" if where else self.message)
        self.row = row
        self.column = column


@dataclass(frozen=True)
class ArtTable:
    """31 rows of 10 bounds; each bound is the highest roll that gives that column (CT..AW)."""

    bounds: tuple[tuple[int, ...], ...]

    def read(self, row: int, roll: int) -> Level:
        """The column `roll` lands in on `row`."""
        if row not in ROWS:
            raise ArtRuleError("row", N_("the ART has rows 0 to 30, not {row}"), row=row)
        if roll not in ROLLS:
            raise ArtRuleError("roll", N_("a percentile roll is 1 to 100 (00 is 100), not {roll}"), roll=roll)
        for level, bound in zip(RESULT_LEVELS, self.bounds[row]):
            if roll <= bound:
                return level
        raise AssertionError("a validated table always ends with 100")  # pragma: no cover

    def to_csv(self) -> str:
        """The table in the CSV shape load_table reads."""
        lines = [",".join(HEADER)]
        lines += [",".join(str(cell) for cell in (row, *bounds)) for row, bounds in zip(ROWS, self.bounds)]
        return "\n".join(lines) + "\n"


def load_table(text: str) -> ArtTable:
    """Parse and validate an ART CSV: the header row, then rows 0..30 in order, each with ten bounds
    in 0..100 that never decrease along the row and end with 100 (ruling 1).

    Raises TableError naming the row and column of the first problem found.
    """
    lines = [line for line in csv.reader(io.StringIO(text.lstrip("\ufeff"))) if any(cell.strip() for cell in line)]
    if not lines:
        raise TableError(None, None, N_("the table is empty; it needs a header row and rows 0 to 30"))
    _check_header([cell.strip() for cell in lines[0]])
    body = lines[1:]
    rows = tuple(_parse_row(expected, cells) for expected, cells in zip(ROWS, body))
    if len(body) < len(ROWS):
        raise TableError(len(body), None, N_("this row is missing; the table has 31 rows, 0 to 30"))
    if len(body) > len(ROWS):
        raise TableError(len(ROWS), None, N_("the table ends at row 30; remove the lines after it"))
    return ArtTable(rows)


def _check_header(cells: list[str]) -> None:
    for index, expected in enumerate(HEADER):
        found = cells[index] if index < len(cells) else ""
        if found.upper() != expected.upper():
            raise TableError(
                None,
                expected,
                N_("the header should read {header}, found {found!r}"),
                header=",".join(HEADER),
                found=found,
            )
    if len(cells) > len(HEADER):
        raise TableError(
            None,
            None,
            N_("the header has {cells} columns; it should have {header}"),
            cells=len(cells),
            header=len(HEADER),
        )


def _parse_row(expected: int, cells: list[str]) -> tuple[int, ...]:
    label = cells[0].strip()
    if label != str(expected):
        raise TableError(
            expected, "row", N_("expected row number {expected} here, found {label!r}"), expected=expected, label=label
        )
    if len(cells) != len(HEADER):
        raise TableError(
            expected,
            None,
            N_("the row has {cells} cells; it should have {header}"),
            cells=len(cells),
            header=len(HEADER),
        )
    bounds: list[int] = []
    for name, cell in zip(HEADER[1:], cells[1:]):
        bound = _parse_bound(expected, name, cell.strip())
        if bounds and bound < bounds[-1]:
            raise TableError(
                expected,
                name,
                N_("{bound} is below the previous column's {previous}; bounds never decrease"),
                bound=bound,
                previous=bounds[-1],
            )
        bounds.append(bound)
    if bounds[-1] != 100:
        raise TableError(
            expected,
            HEADER[-1],
            N_("the last column must be 100 (so 00 always reads), found {bounds}"),
            bounds=bounds[-1],
        )
    return tuple(bounds)


def _parse_bound(row: int, column: str, cell: str) -> int:
    if not cell.isdigit():
        raise TableError(row, column, N_("{cell!r} is not a whole number from 0 to 100"), cell=cell)
    bound = int(cell)
    if bound > 100:
        raise TableError(row, column, N_("{bound} is above 100, the highest roll"), bound=bound)
    return bound


# Packaged with the app (pyproject's package-data); a campaign's own table goes through load_table.
DEFAULT_TABLE: ArtTable = load_table(
    resources.files("app.systems.art.rules").joinpath("art-table.csv").read_text("utf-8")
)


def read_table(row: int, roll: int, table: ArtTable = DEFAULT_TABLE) -> Level:
    """The column a percentile roll lands in on a row of the ART (ch. 3, "Using the ART")."""
    return table.read(row, roll)


def result_odds(row: int, table: ArtTable = DEFAULT_TABLE) -> dict[Level, Fraction]:
    """The exact chance of each column on a row (columns that cannot occur have chance 0)."""
    if row not in ROWS:
        raise ArtRuleError("row", N_("the ART has rows 0 to 30, not {row}"), row=row)
    previous = 0
    odds: dict[Level, Fraction] = {}
    for level, bound in zip(RESULT_LEVELS, table.bounds[row]):
        odds[level] = Fraction(bound - previous, 100)
        previous = bound
    return odds
