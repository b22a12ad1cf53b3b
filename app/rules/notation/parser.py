"""Text to tree: a hand-written recursive-descent parser for the syntax in docs/NOTATION.md.

Grammar (case-insensitive; spaces and tabs around operators, inside parentheses and groups):

    roll       := formula [note]                 formula at most 200 characters, as typed and as spelled
    note       := "#" text | "\\" text | blank letter text      the roll's note (Roll20's trailing text)
    formula    := sum
    sum        := product (("+" | "-") product)*
    product    := unary (("*" | "/" | "//" | "%") unary)*
    unary      := ["-" | "+"] atom               a sign only first in a formula, group item or parentheses
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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.rules.notation.errors import (
    MAX_DEPTH,
    MAX_DICE,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_NOTE,
    MAX_NUMBER,
    MAX_SIDES,
    MAX_TERMS,
    LimitError,
    NotationError,
)
from app.rules.notation.tree import (
    Binary,
    BinaryOp,
    Call,
    Compare,
    CompareOp,
    Dice,
    Explode,
    ExplodeKind,
    Expression,
    FunctionName,
    Group,
    Keep,
    KeepKind,
    Negate,
    Node,
    Number,
    Paren,
    Reroll,
    spell,
    walk,
)
from app.rules.text import N_, Word

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
_BLANKS = frozenset(" \t")
_FUNCTIONS: tuple[FunctionName, ...] = ("floor", "ceil", "round", "abs")
_START = "a number or dice (like 2d6)"
_SIDES = f"a number of sides from 1 to {MAX_SIDES}"
_AFTER_DICE = frozenset(" \t+-*/%)},[#\\")
_MODIFIER_START = frozenset("!rmekdp<>=fcsu")
_MAX_REROLLS = 10
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
    return _Parser(text).roll()


def as_expression(expr_or_text: Expression | str) -> Expression:
    """Accept either a parsed Expression or notation text."""
    if isinstance(expr_or_text, Expression):
        return expr_or_text
    return parse(expr_or_text)


def canonical(expr: Expression | str) -> str:
    """The normalised formula: "D20 - 2 + d4 # hi" becomes "1d20-2+1d4"; parse(canonical(e)).root == e.root."""
    return spell(as_expression(expr))


class _Parser:
    def __init__(self, text: str) -> None:
        self._typed = text
        self._text = text.translate(_ASCII_LOWER)  # ASCII only, so columns stay put
        self._pos = 0
        self._dice = 0
        self._atoms = 0
        self._depth = 0

    # --- the whole roll ------------------------------------------------------------------------------------

    def roll(self) -> Expression:
        self._skip_blanks()
        root = self._sum()
        end = self._pos
        while end > 0 and self._text[end - 1] in _BLANKS:
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
        blank_before = self._pos > 0 and self._text[self._pos - 1] in _BLANKS
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
        if rest.startswith("d") and rest[1:2] in ("%", "f", *_DIGITS):
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
        node = self._unary(first=True)
        while True:
            self._skip_blanks()
            char = self._peek()
            if char not in ("+", "-"):
                return node
            column = self._column()
            self._pos += 1
            self._skip_blanks()
            right = self._unary(first=False)
            node = Binary("+" if char == "+" else "-", node, right, column=column)

    def _unary(self, first: bool) -> Node:
        """A product: signed (first only) atoms joined by * / // %."""
        sign = ""
        if first and self._peek() in ("+", "-"):
            sign = self._peek()
            self._pos += 1
            self._skip_blanks()
        node = self._atom()
        if sign == "-":
            node = Negate(node)
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
            node = Binary(op, node, self._atom(), column=column)

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
        elif char in _DIGITS or char == "d":
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
        group = Group(tuple(items))
        while True:
            column = self._column()
            char = self._peek()
            if char in ("k", "d"):
                if group.keep is not None:
                    raise self._twice(column, N_("keep/drop"))
                limit = len(items) if len(items) > 1 else _dice_written(items[0])
                group = replace(group, keep=self._keep(limit))
            elif char in ("<", ">", "="):
                if group.success is not None:
                    raise self._twice(column, N_("a success count"))
                group = replace(group, success=self._compare())
            elif char == "f":
                if group.success is None or group.failure is not None:
                    raise self._failure_error(column)
                self._pos += 1
                group = replace(group, failure=self._compare())
            else:
                break
        if len(items) == 1 and (group.keep is not None or group.success is not None):
            _check_pool(items[0], start)
        self._check_term_end()
        return group

    # --- numbers and dice ----------------------------------------------------------------------------------

    def _number_or_dice(self) -> Node:
        start = self._column()
        value = self._number()
        self._count_atom(start)
        if self._peek() != "d":
            assert value is not None
            return Number(value)
        count = 1 if value is None else value
        if count < 1:
            raise NotationError(
                N_("at column {column}: a roll needs at least 1 die, not 0"),
                column=start,
                expected="a number of dice from 1",
            )
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
        sides, fate = self._sides()
        return self._modifiers(Dice(count, sides, fate), start)

    def _count_atom(self, column: int) -> None:
        self._atoms += 1
        if self._atoms > MAX_TERMS:
            raise LimitError(
                N_("at column {column}: an expression may have at most {limit} terms"),
                column=column,
                limit=MAX_TERMS,
                expected="the end of the expression",
            )

    def _sides(self) -> tuple[int, bool]:
        if self._peek() == "%":
            self._pos += 1
            return 100, False
        if self._peek() == "f":
            self._pos += 1
            return 3, True
        column = self._column()
        sides = self._number()
        if sides is None:
            raise self._error(
                N_("at column {column}: expected a number of sides (or %), found {found}"),
                N_("at column {column}: expected a number of sides (or %), found the end"),
                "a number of sides (or %)",
            )
        if sides < 1:
            raise NotationError(
                N_("at column {column}: a die needs at least 1 side, not 0"), column=column, expected=_SIDES
            )
        if sides > MAX_SIDES:
            raise LimitError(
                N_("at column {column}: a die may have at most {limit} sides, not {sides}"),
                column=column,
                limit=MAX_SIDES,
                expected=_SIDES,
                sides=sides,
            )
        return sides, False

    def _modifiers(self, dice: Dice, start: int) -> Dice:
        while True:
            column = self._column()
            char = self._peek()
            two = self._text[self._pos : self._pos + 2]
            if char == "!":
                if dice.explode is not None:
                    raise self._twice(column, N_("an explosion (!)"))
                dice = replace(dice, explode=self._explode())
            elif two == "ra":
                if dice.reroll_add is not None:
                    raise self._twice(column, N_("ra (reroll and add)"))
                self._pos += 2
                dice = replace(dice, reroll_add=self._compare_or(None) or Compare("=", dice.low_face))
            elif char == "r":
                if len(dice.rerolls) >= _MAX_REROLLS:
                    raise LimitError(
                        N_("at column {column}: a dice term may have at most {limit} rerolls"),
                        column=column,
                        limit=_MAX_REROLLS,
                        expected=None,
                    )
                self._pos += 1
                kind: str = "r"
                if self._peek() == "o":
                    kind = "ro"
                    self._pos += 1
                elif self._peek() == "r":  # Avrae's rr: reroll until it no longer matches (Roll20's r)
                    self._pos += 1
                on = self._compare_or(None) or Compare("=", dice.low_face)
                dice = replace(dice, rerolls=(*dice.rerolls, Reroll("ro" if kind == "ro" else "r", on)))
            elif two in ("mi", "ma"):
                self._pos += 2
                which = "minimum" if two == "mi" else "maximum"
                if self._peek() == ("n" if two == "mi" else "x"):
                    self._pos += 1  # rpg-dice-roller's min / max
                if getattr(dice, which) is not None:
                    raise self._twice(column, N_("a minimum (mi)") if two == "mi" else N_("a maximum (ma)"))
                bound = self._required_number(
                    N_("at column {column}: expected a number after mi/ma (like mi2), found {found}"),
                    N_("at column {column}: expected a number after mi/ma (like mi2), found the end"),
                )
                dice = replace(dice, minimum=bound) if two == "mi" else replace(dice, maximum=bound)
            elif char == "e":
                if dice.explode is not None:
                    raise self._twice(column, N_("an explosion (!)"))
                self._pos += 1
                dice = replace(dice, explode=Explode("!", self._compare_required()))
            elif char in ("k", "d") or two in ("ph", "pl"):
                if dice.keep is not None:
                    raise self._twice(column, N_("keep/drop"))
                dice = replace(dice, keep=self._keep(dice.count))
            elif char in ("<", ">", "="):
                if dice.success is not None:
                    raise self._twice(column, N_("a success count"))
                dice = replace(dice, success=self._compare())
            elif char == "f":
                if dice.success is None or dice.failure is not None:
                    raise self._failure_error(column)
                self._pos += 1
                dice = replace(dice, failure=self._compare())
            else:
                break
        _check_dice(dice, start)
        self._check_term_end()
        return dice

    def _check_term_end(self) -> None:
        char = self._peek()
        if char == "" or char in _AFTER_DICE:
            return
        raise self._error(
            N_("at column {column}: expected a modifier (like kh3, !, r1, >4), an operator or the end, found {found}"),
            None,
            "a modifier (like kh3, !, r1, >4), an operator or the end",
        )

    def _explode(self) -> Explode:
        self._pos += 1  # the "!"
        kind: ExplodeKind = "!"
        if self._peek() == "!":
            self._pos += 1
            kind = "!!"
            if self._peek() == "p":
                raise NotationError(
                    N_("at column {column}: a die either compounds (!!) or penetrates (!p), not both"),
                    column=self._column(),
                    expected=None,
                )
        elif self._peek() == "p":
            self._pos += 1
            kind = "!p"
        return Explode(kind, self._compare_or(None))

    def _keep(self, limit: int) -> Keep:
        letter = self._peek()
        self._pos += 1
        which = self._peek()
        if which in ("h", "l"):
            self._pos += 1
        else:
            which = "h" if letter == "k" else "l"  # Roll20: k keeps the highest, d drops the lowest
        kinds: dict[str, KeepKind] = {"kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl", "ph": "dh", "pl": "dl"}
        kind = kinds[letter + which]
        verb = "keep" if letter == "k" else "drop"
        number_column = self._column()
        number = self._number()
        if number is None:
            if verb == "keep":
                raise self._error(
                    N_("at column {column}: expected how many dice to keep, found {found}"),
                    N_("at column {column}: expected how many dice to keep, found the end"),
                    "a number of dice to keep",
                )
            raise self._error(
                N_("at column {column}: expected how many dice to drop, found {found}"),
                N_("at column {column}: expected how many dice to drop, found the end"),
                "a number of dice to drop",
            )
        if not 1 <= number <= limit:
            if verb == "keep":
                template = (
                    N_("at column {column}: cannot keep {number} of {count} die")
                    if limit == 1
                    else N_("at column {column}: cannot keep {number} of {count} dice")
                )
            else:
                template = (
                    N_("at column {column}: cannot drop {number} of {count} die")
                    if limit == 1
                    else N_("at column {column}: cannot drop {number} of {count} dice")
                )
            raise NotationError(
                template, column=number_column, expected=f"a number from 1 to {limit}", number=number, count=limit
            )
        return Keep(kind, number)

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
        if char in _DIGITS:
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
        while self._peek() in _DIGITS:
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
        while self._peek() in _BLANKS and self._peek() != "":
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


def _dice_written(node: Node) -> int:
    return sum(item.count for item in walk(node) if isinstance(item, Dice))


def _pool_terms(node: Node) -> list[tuple[int, Node]] | None:
    """A sum of dice and numbers as (sign, term) pairs, or None when it is anything else."""
    out: list[tuple[int, Node]] = []
    stack: list[tuple[int, Node]] = [(1, node)]
    while stack:
        sign, current = stack.pop()
        if isinstance(current, Binary) and current.op in ("+", "-"):
            stack.append((sign * (1 if current.op == "+" else -1), current.right))
            stack.append((sign, current.left))
        elif isinstance(current, Negate):
            stack.append((-sign, current.operand))
        elif isinstance(current, (Dice, Number)):
            out.append((sign, current))
        else:
            return None
    return out


def pool_terms(node: Node) -> list[tuple[int, Node]]:
    """The (sign, dice or number) terms of a one-sub-roll group's sum (checked by the parser)."""
    terms = _pool_terms(node)
    assert terms is not None
    return terms


def _check_pool(node: Node, column: int) -> None:
    terms = _pool_terms(node)
    if (
        terms is None
        or not any(isinstance(term, Dice) for _, term in terms)
        or any(isinstance(term, Dice) and (term.keep is not None or term.success is not None) for _, term in terms)
    ):
        raise NotationError(
            N_(
                "at column {column}: a group of one sub-roll keeps or counts its dice, so it must be dice and numbers "
                "added up, like {{4d6+3d8}}k4 or {{3d20+5}}>21"
            ),
            column=column,
            expected=None,
        )


def _check_dice(dice: Dice, column: int) -> None:
    faces = list(dice.faces)
    forever = [r for r in dice.rerolls if r.kind == "r"]
    if forever and all(any(r.on.met_by(face) for r in forever) for face in faces):
        raise NotationError(
            N_("at column {column}: rerolled on every face, the die would never stop"), column=column, expected=None
        )
    if dice.minimum is not None and dice.maximum is not None and dice.minimum > dice.maximum:
        raise NotationError(
            N_("at column {column}: the minimum (mi) is above the maximum (ma)"), column=column, expected=None
        )
    if dice.explode is not None and all(dice.explodes_on(dice.clamp(face)) for face in faces):
        if dice.sides == 1 and not dice.fate and dice.explode.on is None:
            raise NotationError(N_("at column {column}: a d1 would explode forever"), column=column, expected=None)
        raise NotationError(
            N_("at column {column}: exploding on every face, the die would never stop"), column=column, expected=None
        )
