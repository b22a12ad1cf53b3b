"""Errors and limits of the dice notation (the limits are described in the package docstring)."""

from __future__ import annotations

MAX_LENGTH = 200
MAX_TERMS = 20
MAX_DICE = 1000
MAX_SIDES = 1000
EXPLOSION_CAP = 100


class NotationError(ValueError):
    """The text is not a dice expression this engine accepts.

    `column` is 1-based and points at the offending character (one past the end when the text stopped
    too early); `expected` says, in words, what would have been accepted there, or is None.
    """

    def __init__(self, detail: str, *, column: int, expected: str | None = None) -> None:
        self.detail = detail
        self.column = column
        self.expected = expected
        super().__init__(f"at column {column}: {detail}")

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only fields would otherwise be lost when the error crosses a process boundary.
        return (_rebuild, (type(self), self.detail, self.column, self.expected))


class LimitError(NotationError):
    """The expression is well formed but asks for more than the engine allows (`limit` is the bound)."""

    def __init__(self, detail: str, *, column: int, limit: int, expected: str | None = None) -> None:
        self.limit = limit
        super().__init__(detail, column=column, expected=expected)

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_limit, (self.detail, self.column, self.limit, self.expected))


def _rebuild(cls: type[NotationError], detail: str, column: int, expected: str | None) -> NotationError:
    return cls(detail, column=column, expected=expected)


def _rebuild_limit(detail: str, column: int, limit: int, expected: str | None) -> LimitError:
    return LimitError(detail, column=column, limit=limit, expected=expected)
