"""Text to tree: a hand-written recursive-descent parser for the syntax in docs/NOTATION.md.

Grammar (case-insensitive; spaces and tabs around operators, inside parentheses and groups):

    roll       := formula [note]                 formula at most 200 characters, as typed and as spelled
    note       := "#" text | "\\" text | blank letter text      the roll's note (Roll20's trailing text)
    formula    := sum
    sum        := product (("+" | "-") product)*
    product    := unary (("*" | "/" | "//" | "%") unary)*
    unary      := sign* atom                     sign := "-" | "+"; an odd number of minus signs negates
    atom       := (number | dice | "(" sum ")" | function "(" sum ")" | group) [label]
    function   := "floor" | "ceil" | "round" | "abs"
    group      := "{" sum ("," sum)* "}" group-modifier*
    dice       := [number] "d" (number | "%" | "f") dice-modifier*
    label      := "[" text "]"

Dice modifiers, in any order (each kind once, rerolls up to 10 times), applied in Roll20's order:

    r[cp] ro[cp] rr[cp]      reroll while showing cp (rr is Avrae's r); ro once; cp defaults to the lowest face
    ra[cp]                   Avrae: one die showing cp rolls one more die, kept
    mi N / min N, ma N / max N   each die counts at least / at most N
    ![cp] !![cp] !p[cp] e cp     explode (cp defaults to the highest face), compound, penetrate; e is Avrae's !
    k N kh N kl N d N dh N dl N ph N pl N      keep / drop (k = kh, d = dl; p is Avrae's drop)
    cp                       count successes;  f cp   minus failures (after a success count)

    cp := (">" | "<" | ">=" | "<=" | "=") number | number      Roll20's > and < mean "or more" and "or less"

Group modifiers: keep/drop, a success compare point and f cp.

The parser recurses at most MAX_DEPTH levels (parentheses, groups, functions), so any string either parses or
raises NotationError; errors name the column and, in words, what was expected there.

Three layers, one class each: scanner.py (characters, numbers, compare points, errors) ← terms.py (a dice term and
its modifiers, a group's modifiers, their checks) ← here (the roll and its note, arithmetic, atoms, groups).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.rules.notation.errors import (
    MAX_DEPTH,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_NOTE,
    LimitError,
    NotationError,
)
from app.rules.notation.scanner import BLANKS, DIGITS
from app.rules.notation.terms import TermReader
from app.rules.notation.tree import (
    Binary,
    BinaryOp,
    Call,
    Expression,
    FunctionName,
    Group,
    Negate,
    Node,
    Paren,
    spell,
)
from app.rules.text import N_

_FUNCTIONS: tuple[FunctionName, ...] = ("floor", "ceil", "round", "abs")
_START = "a number or dice (like 2d6)"
_MAX_INPUT = MAX_LENGTH + MAX_NOTE + 20


def parse(text: str) -> Expression:
    """Parse dice notation such as "4d6kh3 + 2 # sneak" into an Expression, or raise NotationError."""
    if not isinstance(text, str):
        raise TypeError(f"dice notation must be text, not {type(text).__name__}")
    if len(text) > _MAX_INPUT:
        raise LimitError(
            N_("at column {column}: an expression may be at most {limit} characters long, this one has {length}"),
            column=MAX_LENGTH + 1,
            limit=MAX_LENGTH,
            expected="the end of the expression",
            length=len(text),
        )
    try:
        return _Parser(text).roll()
    except LimitError:
        raise
    except NotationError as exc:
        hint = _advantage(text, exc.column)
        if hint is None:
            raise
        raise hint from exc


# Words people type for advantage and disadvantage ("d20adv"): no notation has them, the error says what to write.
ADVANTAGE_WORDS = frozenset({"adv", "advantage", "dis", "disadv", "disadvantage"})


def _advantage(text: str, column: int) -> NotationError | None:
    start = end = column - 1
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    while end < len(text) and text[end].isalpha():
        end += 1
    if text[start:end].lower() not in ADVANTAGE_WORDS:
        return None
    return NotationError(
        N_("at column {column}: for advantage write 2d20kh1 (the higher of two d20), for disadvantage 2d20kl1"),
        column=start + 1,
        expected="2d20kh1 or 2d20kl1",
    )


def as_expression(expr_or_text: Expression | str) -> Expression:
    """Accept either a parsed Expression or notation text."""
    if isinstance(expr_or_text, Expression):
        return expr_or_text
    return parse(expr_or_text)


def canonical(expr: Expression | str) -> str:
    """The normalised formula: "D20 - 2 + d4 # hi" becomes "1d20-2+1d4"; parse(canonical(e)).root == e.root."""
    return spell(as_expression(expr))


class _Parser(TermReader):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0

    # --- the whole roll ------------------------------------------------------------------------------------

    def roll(self) -> Expression:
        self._skip_blanks()
        root = self._sum()
        end = self._pos
        while end > 0 and self._text[end - 1] in BLANKS:
            end -= 1
        if end > MAX_LENGTH:
            raise LimitError(
                N_("at column {column}: an expression may be at most {limit} characters long, this one has {length}"),
                column=MAX_LENGTH + 1,
                limit=MAX_LENGTH,
                expected="the end of the expression",
                length=end,
            )
        note = self._note()
        expr = Expression(root, note)
        if len(spell(expr)) > MAX_LENGTH:
            raise LimitError(
                N_(
                    "at column {column}: written out in full (as 1d100 for d%, kh for k) an expression may be at most "
                    "{limit} characters long; this one passes that here"
                ),
                column=end + 1,
                limit=MAX_LENGTH,
                expected="the end of the expression",
            )
        return expr

    def _note(self) -> str:
        blank_before = self._pos > 0 and self._text[self._pos - 1] in BLANKS
        self._skip_blanks()
        char = self._peek()
        if char == "":
            return ""
        if char in ("#", "\\"):
            return self._note_text(self._pos + 1)
        if blank_before and self._typed[self._pos].isalpha() and not self._looks_like_formula():
            return self._note_text(self._pos)
        raise self._error(
            N_("at column {column}: expected an operator (+, -, *, /, //, %), # and a note, or the end, found {found}"),
            None,
            "an operator (+, -, *, /, //, %), # and a note, or the end",
        )

    def _looks_like_formula(self) -> bool:
        """Text after the formula that reads as more formula (dice, a function) is an error, not a note."""
        rest = self._text[self._pos :]
        if rest.startswith("d") and rest[1:2] in ("%", "f", *DIGITS):
            return rest[1:2] != "f" or not rest[2:3].isalpha()
        return any(rest.startswith(name + "(") for name in _FUNCTIONS)

    def _note_text(self, start: int) -> str:
        note = self._typed[start:].strip()
        if len(note) > MAX_NOTE:
            raise LimitError(
                N_("at column {column}: a roll's note may be at most {limit} characters long"),
                column=start + MAX_NOTE + 1,
                limit=MAX_NOTE,
                expected="a shorter note",
            )
        return note

    # --- arithmetic ----------------------------------------------------------------------------------------

    def _sum(self) -> Node:
        node = self._unary()
        while True:
            self._skip_blanks()
            char = self._peek()
            if char not in ("+", "-"):
                return node
            column = self._column()
            self._pos += 1
            self._skip_blanks()
            right = self._unary()
            node = Binary("+" if char == "+" else "-", node, right, column=column)

    def _unary(self) -> Node:
        """A product: signed atoms joined by * / // %."""
        node = self._signed_atom()
        while True:
            save = self._pos
            self._skip_blanks()
            op = self._product_op()
            if op is None:
                self._pos = save
                return node
            column = self._column()
            self._pos += len(op)
            self._skip_blanks()
            node = Binary(op, node, self._signed_atom(), column=column)

    def _signed_atom(self) -> Node:
        """An atom after any run of signs (Avrae: `1d20+-5`, `1d20--6`, `--1`, `2*-3`): an even number of minus
        signs is none, an odd number one Negate (so a run of signs never nests the tree)."""
        negative = False
        while self._peek() in ("+", "-"):
            negative ^= self._peek() == "-"
            self._pos += 1
            self._skip_blanks()
        node = self._atom()
        return Negate(node) if negative else node

    def _product_op(self) -> BinaryOp | None:
        two = self._text[self._pos : self._pos + 2]
        if two == "**":
            raise NotationError(
                N_("at column {column}: ** (a power) is not part of this notation"),
                column=self._column(),
                expected="*, /, //, % or +, -",
            )
        if two == "//":
            return "//"
        char = self._peek()
        if char == "*":
            return "*"
        if char == "/":
            return "/"
        if char == "%":
            return "%"
        return None

    def _atom(self) -> Node:
        char = self._peek()
        node: Node
        if char == "(":
            node = self._group("(", ")")
        elif char == "{":
            node = self._group("{", "}")
        elif char in DIGITS or char == "d":
            node = self._number_or_dice()
        elif char.isalpha() and self._function_name() is not None:
            name = self._function_name()
            assert name is not None
            self._pos += len(name)
            node = Call(name, self._nested(self._sum_in, ")"))
        else:
            raise self._error(
                N_("at column {column}: expected a number or dice (like 2d6), found {found}"),
                N_("at column {column}: expected a number or dice (like 2d6), found the end"),
                _START,
            )
        label = self._label()
        return node if label is None else replace(node, label=label)

    def _function_name(self) -> FunctionName | None:
        rest = self._text[self._pos :]
        for name in _FUNCTIONS:
            if rest.startswith(name + "("):
                return name
        return None

    def _sum_in(self) -> Node:
        self._skip_blanks()
        node = self._sum()
        self._skip_blanks()
        return node

    def _nested(self, inner: Callable[[], Node], closing: str) -> Node:
        """`(`, then what `inner` parses, then `closing`; at most MAX_DEPTH levels deep."""
        if self._depth >= MAX_DEPTH:
            raise LimitError(
                N_("at column {column}: parentheses, groups and functions may be nested at most {limit} deep"),
                column=self._column(),
                limit=MAX_DEPTH,
                expected=None,
            )
        self._depth += 1
        self._pos += 1  # the opening bracket
        node = inner()
        self._expect(closing)
        self._depth -= 1
        return node

    def _expect(self, closing: str) -> None:
        if self._peek() == closing:
            self._pos += 1
            return
        if closing == ")":
            raise self._error(
                N_("at column {column}: expected ), a comma or an operator, found {found}"),
                N_("at column {column}: expected ), a comma or an operator, found the end"),
                "), a comma or an operator",
            )
        raise self._error(
            N_("at column {column}: expected a comma, }} or an operator, found {found}"),
            N_("at column {column}: expected a comma, }} or an operator, found the end"),
            "a comma, } or an operator",
        )

    def _label(self) -> str | None:
        save = self._pos
        self._skip_blanks()
        if self._peek() != "[":
            self._pos = save
            return None
        start = self._pos
        end = self._text.find("]", start + 1)
        if end < 0:
            raise NotationError(
                N_("at column {column}: a label opened with [ needs a closing ]"), column=start + 1, expected="]"
            )
        text = self._typed[start + 1 : end].strip()
        if not text or "[" in text:
            raise NotationError(
                N_("at column {column}: a label is words inside [ ], like [fire]"),
                column=start + 1,
                expected="a label like [fire]",
            )
        if len(text) > MAX_LABEL:
            raise LimitError(
                N_("at column {column}: a label may be at most {limit} characters long"),
                column=start + 1,
                limit=MAX_LABEL,
                expected="a shorter label",
            )
        self._pos = end + 1
        return text

    # --- groups --------------------------------------------------------------------------------------------

    def _group(self, opening: str, closing: str) -> Group | Paren:
        """`{a, b}` (Roll20's group), `(a)` (parentheses) or `(a, b)` / `(a,)` (Avrae's set: a group)."""
        start = self._column()
        if self._depth >= MAX_DEPTH:
            raise LimitError(
                N_("at column {column}: parentheses, groups and functions may be nested at most {limit} deep"),
                column=start,
                limit=MAX_DEPTH,
                expected=None,
            )
        self._depth += 1
        self._pos += 1
        items = [self._sum_in()]
        is_set = opening == "{"
        while self._peek() == ",":
            is_set = True
            self._pos += 1
            self._skip_blanks()
            if opening == "(" and self._peek() == ")":
                break  # Avrae's one-item set, (2d6,)
            items.append(self._sum_in())
        self._expect(closing)
        self._depth -= 1
        if not is_set:
            return Paren(items[0])
        return self._group_modifiers(items, start)
