"""The parser's lowest layer: the text and a position in it, numbers, compare points (`>4`, `<=2`, `6`) and the
errors that name a column and what was expected there."""

from __future__ import annotations

from app.rules.notation.errors import (
    MAX_DICE,
    MAX_NUMBER,
    LimitError,
    NotationError,
)
from app.rules.notation.tree import (
    Compare,
    CompareOp,
)
from app.rules.text import N_, Word

ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
DIGITS = frozenset("0123456789")
BLANKS = frozenset(" \t")


class Scanner:
    def __init__(self, text: str) -> None:
        self._typed = text
        self._text = text.translate(ASCII_LOWER)  # ASCII only, so columns stay put
        self._pos = 0

    def _compare(self) -> Compare:
        found = self._compare_or(None)
        assert found is not None  # callers look at the operator first
        return found

    def _compare_required(self) -> Compare:
        found = self._compare_or(None)
        if found is None:
            raise self._error(
                N_("at column {column}: expected a target like 6, >4 or <2, found {found}"),
                N_("at column {column}: expected a target like 6, >4 or <2, found the end"),
                "a target like 6, >4 or <2",
            )
        return found

    def _compare_or(self, default: Compare | None) -> Compare | None:
        """A compare point if one follows: `>T` and `>=T` mean T or more, `<T` and `<=T` T or less, `=T` and a
        bare `T` exactly T."""
        char = self._peek()
        op: CompareOp
        if char in DIGITS:
            op = "="
        elif char in (">", "<", "="):
            self._pos += 1
            op = ">=" if char == ">" else "<=" if char == "<" else "="
            if char != "=" and self._peek() == "=":
                self._pos += 1
        else:
            return default
        target = self._required_number(
            N_("at column {column}: expected a target number after the comparison, found {found}"),
            N_("at column {column}: expected a target number after the comparison, found the end"),
            "a target number",
        )
        return Compare(op, target)

    def _required_number(self, template: str, end_template: str, expected: str = "a number") -> int:
        column = self._column()
        number = self._number()
        if number is None:
            raise self._error(template, end_template, expected)
        if number > MAX_NUMBER:
            raise LimitError(
                N_("at column {column}: a number may be at most {limit}"),
                column=column,
                limit=MAX_NUMBER,
                expected=f"a number up to {MAX_NUMBER}",
            )
        return number

    def _failure_error(self, column: int) -> NotationError:
        return NotationError(
            N_("at column {column}: f counts failures after a success count, like 3d6>3f1"),
            column=column,
            expected="a success count before f, like >3f1",
        )

    def _twice(self, column: int, what: str) -> NotationError:
        return NotationError(
            N_("at column {column}: {what} may appear only once here"), column=column, expected=None, what=Word(what)
        )

    # --- characters ----------------------------------------------------------------------------------------

    def _number(self) -> int | None:
        start = self._pos
        while self._peek() in DIGITS:
            self._pos += 1
        if self._pos == start:
            return None
        if self._pos - start > 7 or int(self._text[start : self._pos]) > MAX_NUMBER:
            if self._peek() == "d":
                raise LimitError(
                    N_("at column {column}: an expression may roll at most {limit} dice, this one asks for {count}"),
                    column=start + 1,
                    limit=MAX_DICE,
                    expected=f"at most {MAX_DICE} dice in all",
                    count=self._text[start : self._pos].lstrip("0") or "0",
                )
            raise LimitError(
                N_("at column {column}: a number may be at most {limit}"),
                column=start + 1,
                limit=MAX_NUMBER,
                expected=f"a number up to {MAX_NUMBER}",
            )
        return int(self._text[start : self._pos])

    def _skip_blanks(self) -> None:
        while self._peek() in BLANKS and self._peek() != "":
            self._pos += 1

    def _peek(self) -> str:
        return self._text[self._pos] if self._pos < len(self._text) else ""

    def _column(self) -> int:
        return self._pos + 1

    def _error(self, found: str, at_end: str | None, expected: str | None) -> NotationError:
        """`found`: the template naming the character found ({found}); `at_end`: the one for the end of the text
        (None where the text cannot have ended)."""
        if self._peek() == "" and at_end is not None:
            return NotationError(at_end, column=self._column(), expected=expected)
        where = "the end" if self._peek() == "" else repr(self._typed[self._pos])
        return NotationError(found, column=self._column(), expected=expected, found=where)
