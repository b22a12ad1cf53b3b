"""The parser's middle layer: a dice term (NdS and its modifiers, checked) and a group's modifiers."""

from __future__ import annotations

from dataclasses import replace

from app.rules.notation.errors import (
    MAX_DICE,
    MAX_SIDES,
    MAX_TERMS,
    LimitError,
    NotationError,
)
from app.rules.notation.scanner import Scanner
from app.rules.notation.tree import (
    Compare,
    Dice,
    Explode,
    ExplodeKind,
    Group,
    Keep,
    KeepKind,
    Node,
    Number,
    Reroll,
    signed_terms,
    walk,
)
from app.rules.text import N_

_SIDES = f"a number of sides from 1 to {MAX_SIDES}"
_AFTER_DICE = frozenset(" \t+-*/%)},[#\\")
_MODIFIER_START = frozenset("!rmekdp<>=fcsu")
_MAX_REROLLS = 10


class TermReader(Scanner):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._dice = 0
        self._atoms = 0

    def _group_modifiers(self, items: list[Node], start: int) -> Group:
        """A group's keep/drop, success and failure counts (`{a, b}kh1`, `{3d20+5}>21`)."""
        group = Group(tuple(items))
        while True:
            column = self._column()
            char = self._peek()
            if char in ("k", "d"):
                if group.keep is not None:
                    raise self._twice(column, N_("keep/drop"))
                limit = len(items) if len(items) > 1 else dice_written(items[0])
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
            check_pool(items[0], start)
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
        check_dice(dice, start)
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


def dice_written(node: Node) -> int:
    return sum(item.count for item in walk(node) if isinstance(item, Dice))


def check_pool(node: Node, column: int) -> None:
    terms = signed_terms(node)
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


def check_dice(dice: Dice, column: int) -> None:
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
