"""Text to tree: a hand-written, non-recursive parser for the syntax in the package docstring.

Grammar (case-insensitive; spaces and tabs only at the ends and around `+`/`-`):

    expression := [sign] term (sign term)*          at most 20 terms, 200 characters as typed
                                                    and 200 as canonical() spells it
    term       := number | dice
    dice       := [number] "d" (number | "%") ["!"] [keep] [condition]
    keep       := ("kh" | "kl" | "k" | "dh" | "dl") number       "k" means "kh"
    condition  := (">=" | ">" | "<=" | "<" | "=") number
    number     := ASCII digits

The parser never recurses and only indexes through `_peek`, so any string either parses or raises
NotationError.
"""

from __future__ import annotations

from app.rules.notation.errors import (
    MAX_DICE,
    MAX_LENGTH,
    MAX_SIDES,
    MAX_TERMS,
    LimitError,
    NotationError,
)
from app.rules.notation.tree import (
    CompareOp,
    Condition,
    ConstantTerm,
    DiceTerm,
    Expression,
    Keep,
    KeepKind,
    Sign,
    Term,
    spell,
)
from app.rules.text import N_

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
_BLANKS = frozenset(" \t")
_TERM_ENDS = frozenset(" \t+-")
_SIDES = f"a number of sides from 1 to {MAX_SIDES}"
_START = "a number or dice (like 2d6)"
_KINDS: dict[str, KeepKind] = {"kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl"}
_OPS: dict[str, CompareOp] = {">=": ">=", ">": ">", "<=": "<=", "<": "<", "=": "="}


def parse(text: str) -> Expression:
    """Parse dice notation such as "4d6kh3 + 2" into an Expression, or raise NotationError."""
    if not isinstance(text, str):
        raise TypeError(f"dice notation must be text, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise LimitError(
            N_("at column {column}: an expression may be at most {limit} characters long, this one has {length}"),
            column=MAX_LENGTH + 1,
            limit=MAX_LENGTH,
            expected="the end of the expression",
            length=len(text),
        )
    return _Parser(text).expression()


def as_expression(expr_or_text: Expression | str) -> Expression:
    """Accept either a parsed Expression or notation text."""
    if isinstance(expr_or_text, Expression):
        return expr_or_text
    return parse(expr_or_text)


def canonical(expr: Expression | str) -> str:
    """The normalised notation: "D20 - 2 + d4" becomes "1d20-2+1d4"; parse(canonical(e)) == e."""
    return spell(as_expression(expr))


class _Parser:
    def __init__(self, text: str) -> None:
        self._typed = text
        self._text = text.translate(_ASCII_LOWER)  # ASCII only, so columns stay put
        self._pos = 0
        self._dice = 0

    def expression(self) -> Expression:
        terms: list[Term] = []
        spelled = 0
        self._skip_blanks()
        sign = self._sign() or 1
        while True:
            self._skip_blanks()
            start = self._column()
            if len(terms) == MAX_TERMS:
                raise LimitError(
                    N_("at column {column}: an expression may have at most {limit} terms"),
                    column=start,
                    limit=MAX_TERMS,
                    expected="the end of the expression",
                )
            terms.append(self._term(sign))
            spelled += len(terms[-1].notation) + (1 if len(terms) > 1 or sign < 0 else 0)
            _check_spelled_length(spelled, start)
            self._skip_blanks()
            if self._peek() == "":
                return Expression(tuple(terms))
            next_sign = self._sign()
            if next_sign is None:
                raise self._error(N_("at column {column}: expected +, - or the end of the expression, found {found}"),
                                  None, "+, - or the end")
            sign = next_sign

    def _term(self, sign: Sign) -> Term:
        start = self._column()
        digits = self._number()
        if self._peek() == "d":
            return self._dice_term(sign, digits, start)
        if digits is None:
            raise self._error(N_("at column {column}: expected a number or dice (like 2d6), found {found}"),
                              N_("at column {column}: expected a number or dice (like 2d6), found the end"), _START)
        return ConstantTerm(sign, digits)

    def _dice_term(self, sign: Sign, count: int | None, start: int) -> DiceTerm:
        count = 1 if count is None else count
        if count < 1:
            raise NotationError(N_("at column {column}: a roll needs at least 1 die, not 0"), column=start,
                                expected="a number of dice from 1")
        self._dice += count
        if self._dice > MAX_DICE:
            raise LimitError(
                N_("at column {column}: an expression may roll at most {limit} dice, this one asks for {count}"),
                column=start,
                limit=MAX_DICE,
                expected=f"at most {MAX_DICE} dice in all",
                count=self._dice,
            )
        self._pos += 1  # the "d"
        sides = self._sides()
        explode = self._explode(sides)
        keep = self._keep(count)
        condition = self._condition()
        self._check_term_end(explode, keep, condition)
        return DiceTerm(sign, count, sides, explode, keep, condition)

    def _sides(self) -> int:
        if self._peek() == "%":
            self._pos += 1
            return 100
        column = self._column()
        sides = self._number()
        if sides is None:
            raise self._error(N_("at column {column}: expected a number of sides (or %), found {found}"),
                              N_("at column {column}: expected a number of sides (or %), found the end"),
                              "a number of sides (or %)")
        if sides < 1:
            raise NotationError(N_("at column {column}: a die needs at least 1 side, not 0"), column=column,
                                expected=_SIDES)
        if sides > MAX_SIDES:
            raise LimitError(
                N_("at column {column}: a die may have at most {limit} sides, not {sides}"),
                column=column,
                limit=MAX_SIDES,
                expected=_SIDES,
                sides=sides,
            )
        return sides

    def _explode(self, sides: int) -> bool:
        if self._peek() != "!":
            return False
        if sides == 1:
            raise NotationError(N_("at column {column}: a d1 would explode forever"), column=self._column(),
                                expected=None)
        self._pos += 1
        return True

    def _keep(self, count: int) -> Keep | None:
        letter = self._peek()
        if letter not in ("k", "d"):
            return None
        self._pos += 1
        which = self._peek()
        if which in ("h", "l"):
            self._pos += 1
        elif letter == "k":
            which = "h"
        else:
            raise self._error(
                N_("at column {column}: expected h or l after d (dh drops highest, dl drops lowest), found {found}"),
                N_("at column {column}: expected h or l after d (dh drops highest, dl drops lowest), found the end"),
                "h or l")
        kind = _KINDS[letter + which]
        verb = "keep" if letter == "k" else "drop"
        number_column = self._column()
        number = self._number()
        if number is None:
            if verb == "keep":
                raise self._error(N_("at column {column}: expected how many dice to keep, found {found}"),
                                  N_("at column {column}: expected how many dice to keep, found the end"),
                                  "a number of dice to keep")
            raise self._error(N_("at column {column}: expected how many dice to drop, found {found}"),
                              N_("at column {column}: expected how many dice to drop, found the end"),
                              "a number of dice to drop")
        if not 1 <= number <= count:
            if verb == "keep":
                template = (N_("at column {column}: cannot keep {number} of {count} die") if count == 1
                            else N_("at column {column}: cannot keep {number} of {count} dice"))
            else:
                template = (N_("at column {column}: cannot drop {number} of {count} die") if count == 1
                            else N_("at column {column}: cannot drop {number} of {count} dice"))
            raise NotationError(template, column=number_column, expected=f"a number from 1 to {count}",
                                number=number, count=count)
        return Keep(kind, number)

    def _condition(self) -> Condition | None:
        op = self._text[self._pos : self._pos + 2]
        if op not in (">=", "<="):
            op = self._peek()
            if op not in (">", "<", "="):
                return None
        self._pos += len(op)
        target = self._number()
        if target is None:
            raise self._error(N_("at column {column}: expected a target number after the comparison, found {found}"),
                              N_("at column {column}: expected a target number after the comparison, found the end"),
                              "a target number")
        return Condition(_OPS[op], target)

    def _check_term_end(self, explode: bool, keep: Keep | None, condition: Condition | None) -> None:
        next_char = self._peek()
        if next_char == "" or next_char in _TERM_ENDS:
            return
        if next_char in "!kd<>=":
            raise self._error(N_("at column {column}: modifiers go in this order: ! (explode), then kh/kl/dh/dl, then a "
                                 "condition like >=4 (each at most once), found {found}"), None, None)
        # What may still follow, as the message says it ("!, kh/kl/dh/dl, a condition (>=, >, <=, <, =), + or -").
        if condition is not None:
            template = N_("at column {column}: expected + or -, found {found}")
        elif keep is not None:
            template = N_("at column {column}: expected a condition (>=, >, <=, <, =), + or -, found {found}")
        elif explode:
            template = N_("at column {column}: expected kh/kl/dh/dl, a condition (>=, >, <=, <, =), + or -, found {found}")
        else:
            template = N_("at column {column}: expected !, kh/kl/dh/dl, a condition (>=, >, <=, <, =), + or -, "
                          "found {found}")
        expected = template.removeprefix("at column {column}: expected ").removesuffix(", found {found}")
        raise self._error(template, None, expected)

    def _sign(self) -> Sign | None:
        char = self._peek()
        if char not in ("+", "-"):
            return None
        self._pos += 1
        return 1 if char == "+" else -1

    def _number(self) -> int | None:
        start = self._pos
        while self._peek() in _DIGITS:
            self._pos += 1
        return int(self._text[start : self._pos]) if self._pos > start else None

    def _skip_blanks(self) -> None:
        while self._peek() in _BLANKS:
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


def _check_spelled_length(spelled: int, column: int) -> None:
    """The canonical spelling ("1d100" for "d%", "kh" for "k") must also fit, so that it parses again."""
    if spelled > MAX_LENGTH:
        raise LimitError(
            N_("at column {column}: written out in full (as 1d100 for d%, kh for k) an expression may be at most "
               "{limit} characters long; this one passes that here"),
            column=column,
            limit=MAX_LENGTH,
            expected="the end of the expression",
        )
