"""Errors and limits of the dice notation (the limits are described in the package docstring).

An error's text is a rule text (app/rules/text.py): an English template marked `N_` and its values, so the
page or the API shows it in the reader's language (`app.i18n.rule_message`); `str(error)` is the English.
"""

from __future__ import annotations

from typing import Any

from app.rules.text import RuleText

MAX_LENGTH = 300  # the formula, as typed and as canonical() spells it (Avrae's 51-term example has 254)
MAX_NOTE = 500  # the note after it (the same as a roll's note field)
MAX_LABEL = 50  # one label, [fire]
MAX_TERMS = 64  # numbers and dice (the odds' work is bounded per expression, not per term: odds/limits.py)
MAX_DICE = 1100  # the dice written (N of each NdS), before explosions and rerolls
MAX_SIDES = 1000
MAX_NUMBER = 1_000_000  # a number written in the formula, and a compare point's target
MAX_DEPTH = 8  # parentheses, groups and functions inside each other
EXPLOSION_CAP = 100  # extra dice (or, compounding, extra rolls) one dice term may add by exploding
REROLL_CAP = 10  # times one die may be rerolled by r (the last roll stands)


class NotationError(RuleText, ValueError):
    """The text is not a dice expression this engine accepts.

    `template` starts "at column {column}: "; `column` is 1-based and points at the offending character (one
    past the end when the text stopped too early); `detail` is the English message after that prefix;
    `expected` says, in (English) words, what would have been accepted there, or is None.
    """

    def __init__(self, template: str, *, column: int, expected: str | None = None, **values: Any) -> None:
        self.column = column
        self.expected = expected
        message = self._set_text(template, {"column": column, **values})
        self.detail = message.removeprefix(f"at column {column}: ")
        super().__init__(message)

    def _extra(self) -> dict[str, Any]:
        return {k: v for k, v in self.values.items() if k != "column"}

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only fields would otherwise be lost when the error crosses a process boundary.
        return (_rebuild, (type(self), self.template, self.column, self.expected, self._extra()))


class LimitError(NotationError):
    """The expression is well formed but asks for more than the engine allows (`limit` is the bound, and the
    template's `{limit}`)."""

    def __init__(self, template: str, *, column: int, limit: int, expected: str | None = None, **values: Any) -> None:
        self.limit = limit
        super().__init__(template, column=column, expected=expected, limit=limit, **values)

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.template, self.column, self.expected, self._extra()))


def _rebuild(
    cls: type[NotationError], template: str, column: int, expected: str | None, values: dict[str, Any]
) -> NotationError:
    return cls(template, column=column, expected=expected, **values)


class RollError(NotationError):
    """An expression that parsed but could not be rolled as it came up (a divisor of 0)."""
