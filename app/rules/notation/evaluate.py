"""Tree to result: rolling an expression with the dice passed in, and rendering the result as one line.

Inside a dice term (Roll20's order, whatever order the modifiers were typed in): each die is rolled, rerolled
while a reroll applies (r at most REROLL_CAP times, ro once), clamped by mi/ma, and — exploding — followed by the
dice it adds (each chain to its end before the next die, so scripted faces read left to right; at most
EXPLOSION_CAP extra dice or rolls per term); then ra adds one die; then keep/drop over the pool (explosions
included; a compounded chain is one die); then success and failure counts over the dice kept.

Every call to the dice is one entry in `RollResult.rolls`, in order, with what happened to it (its marks): so a
caller that records the dice can show each face with its meaning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from app.rules.dice import Dice as DiceRoller
from app.rules.dice import DiceError
from app.rules.notation.errors import EXPLOSION_CAP, REROLL_CAP, RollError
from app.rules.notation.parser import as_expression, pool_terms
from app.rules.notation.tree import (
    Binary,
    Call,
    Compare,
    Dice,
    Expression,
    Group,
    Keep,
    Negate,
    Node,
    Number,
    Paren,
    spell,
    spell_node,
)
from app.rules.text import N_

# A word of the rendered line, for the caller to translate: ("successes", n), ("failures", n), ("capped",),
# ("reroll_capped",). The rest of the line is plain text (numbers and notation).
Word = tuple[str, ...]
Part = str | Word


@dataclass
class DieRoll:
    """One roll of one die: the raw face (1..sides), what it counts as (`value`: a Fate die's -1/0/+1, a
    penetrating die's face less 1, a face raised or lowered by mi/ma), and its marks: "rerolled" (this roll was
    rerolled away), "dropped", "exploded" (it added another die or roll), "success", "failure"."""

    raw: int
    sides: int
    value: int
    marks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TermResult:
    """One dice term after rolling. `faces` are the values of its rolls in roll order, `marks` alongside;
    `kept` is per roll (False for a roll rerolled away or dropped). `successes`/`failures` are None unless the
    term counts them. `value` is the term's worth."""

    notation: str
    label: str | None
    faces: tuple[int, ...]
    marks: tuple[tuple[str, ...], ...]
    tokens: tuple[str, ...]
    exploded: int = 0
    capped: bool = False
    reroll_capped: bool = False
    successes: int | None = None
    failures: int | None = None
    value: Fraction = Fraction(0)
    sides: int = 0

    @property
    def kept(self) -> tuple[bool, ...]:
        return tuple("dropped" not in marks for marks in self.marks)

    @property
    def dropped(self) -> tuple[int, ...]:
        """Positions (0-based, roll order) of the rolls that do not count."""
        return tuple(index for index, marks in enumerate(self.marks) if "dropped" in marks)

    @property
    def success(self) -> tuple[bool, ...]:
        return tuple("success" in marks for marks in self.marks)


@dataclass(frozen=True)
class RollResult:
    """A rolled expression: the total (exact; whole unless / made it a fraction), the dice terms in roll order,
    every roll in order (`rolls`), the canonical formula rolled, the note, and the line's parts."""

    total: Fraction
    terms: tuple[TermResult, ...]
    rolls: tuple[DieRoll, ...]
    text: str
    note: str
    parts: tuple[Part, ...]

    def render(self) -> str:
        """One plain-text line in English, e.g. "4d6kh3 [6, 5, 1̶, 3] = 14": dropped dice struck through (U+0336
        after each character, so it shows in any plain-text log), a die rerolled away struck and followed by ↻,
        exploded dice with !, a compounded die as its sum with !!, successes with *, failures with ✗, labels in
        [ ]."""
        return "".join(part if isinstance(part, str) else english(part) for part in self.parts)


def english(word: Word) -> str:
    kind = word[0]
    if kind == "successes":
        return f"({word[1]} {'success' if word[1] == '1' else 'successes'})"
    if kind == "failures":
        return f"({word[1]} {'failure' if word[1] == '1' else 'failures'})"
    if kind == "capped":
        return "(explosion cap reached)"
    return "(reroll cap reached)"


def number_text(value: Fraction) -> str:
    """A total as written: whole numbers plain, others as decimals (at most 4 places, Roll20 shows decimals)."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.4f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def roll(expr_or_text: Expression | str, dice: DiceRoller, *, explosion_cap: int = EXPLOSION_CAP) -> RollResult:
    """Roll an expression (or notation text) with `dice`; at most `explosion_cap` explosions per term."""
    expr = as_expression(expr_or_text)
    state = _State(dice, explosion_cap)
    value, parts = state.node(expr.root)
    parts.append(" = " + number_text(value))
    return RollResult(value, tuple(state.terms), tuple(state.rolls), spell(expr), expr.note, tuple(_merge(parts)))


def _merge(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for part in parts:
        if isinstance(part, str) and out and isinstance(out[-1], str):
            out[-1] += part
        else:
            out.append(part)
    return out


class _Member:
    """One die of a pool: a die and the dice it added (not compounding), or a compounded chain."""

    __slots__ = ("value", "rolls", "kept", "success", "failure", "compound")

    def __init__(self, value: int, rolls: list[int], compound: bool = False) -> None:
        self.value = value
        self.rolls = rolls
        self.kept = True
        self.success = False
        self.failure = False
        self.compound = compound


@dataclass
class _Pool:
    node: Dice
    start: int  # index of its first roll in _State.rolls
    members: list[_Member] = field(default_factory=list)
    exploded: int = 0
    capped: bool = False
    reroll_capped: bool = False


class _State:
    def __init__(self, dice: DiceRoller, cap: int) -> None:
        self.dice = dice
        self.cap = cap
        self.rolls: list[DieRoll] = []
        self.terms: list[TermResult] = []

    # --- the tree ----------------------------------------------------------------------------------------------

    def node(self, node: Node) -> tuple[Fraction, list[Part]]:
        value, parts = self._bare(node)
        if node.label is not None:
            parts.append(f" [{node.label}]")
        return value, parts

    def _bare(self, node: Node) -> tuple[Fraction, list[Part]]:
        if isinstance(node, Number):
            return Fraction(node.value), [str(node.value)]
        if isinstance(node, Dice):
            pool = self.pool(node)
            score(pool.members, node.keep, node.success, node.failure)
            return self.finish(pool)
        if isinstance(node, Group):
            return self.group(node)
        if isinstance(node, Paren):
            value, parts = self.node(node.inner)
            return value, ["(", *parts, ")"]
        if isinstance(node, Call):
            value, parts = self.node(node.arg)
            return apply_function(node.name, value), [f"{node.name}(", *parts, ")"]
        if isinstance(node, Negate):
            value, parts = self.node(node.operand)
            return -value, ["-", *parts]
        left, left_parts = self.node(node.left)
        right, right_parts = self.node(node.right)
        return apply_binary(node, left, right), [*left_parts, f" {node.op} ", *right_parts]

    # --- dice --------------------------------------------------------------------------------------------------

    def pool(self, node: Dice) -> _Pool:
        pool = _Pool(node, len(self.rolls))
        explode = node.explode
        for _ in range(node.count):
            value, index = self._settle(node, pool)
            if explode is not None and explode.kind == "!!":
                member = _Member(value, [index], compound=True)
                pool.members.append(member)
                while node.explodes_on(value):
                    if pool.exploded >= self.cap:
                        pool.capped = True
                        break
                    self.rolls[index].marks.append("exploded")
                    pool.exploded += 1
                    value, index = self._settle(node, pool)
                    member.value += value
                    member.rolls.append(index)
                continue
            pool.members.append(_Member(value, [index]))
            while explode is not None and node.explodes_on(value):
                if pool.exploded >= self.cap:
                    pool.capped = True
                    break
                self.rolls[index].marks.append("exploded")
                pool.exploded += 1
                value, index = self._settle(node, pool)
                counted = value - 1 if explode.kind == "!p" else value
                self.rolls[index].value = counted
                pool.members.append(_Member(counted, [index]))
        if node.reroll_add is not None:
            target = node.reroll_add
            if any(target.met_by(member.value) for member in pool.members):
                value, index = self._settle(node, pool)
                self.rolls[index].marks.append("rerolled")
                pool.members.append(_Member(value, [index]))
        return pool

    def _settle(self, node: Dice, pool: _Pool) -> tuple[int, int]:
        """Roll one die and its rerolls; the value it settles on (clamped) and the index of its last roll."""
        index = self._roll(node)
        value = node.value_of(self.rolls[index].raw)
        rerolled = 0
        once_used = False
        while True:
            again = any(r.kind == "r" and r.on.met_by(value) for r in node.rerolls)
            once = not once_used and any(r.kind == "ro" and r.on.met_by(value) for r in node.rerolls)
            if not (again or once):
                break
            if again and rerolled >= REROLL_CAP:
                pool.reroll_capped = True
                break
            if again:
                rerolled += 1
            else:
                once_used = True
            self.rolls[index].marks += ["rerolled", "dropped"]
            index = self._roll(node)
            value = node.value_of(self.rolls[index].raw)
        value = node.clamp(value)
        self.rolls[index].value = value
        return value, index

    def _roll(self, node: Dice) -> int:
        face = self.dice.roll(node.sides)
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= node.sides:
            # A broken roller must not slip an impossible face into a logged result.
            raise DiceError(f"the dice gave {face!r} for a d{node.sides}")
        self.rolls.append(DieRoll(face, node.sides, node.value_of(face)))
        return len(self.rolls) - 1

    def finish(self, pool: _Pool) -> tuple[Fraction, list[Part]]:
        """Mark the pool's rolls, record the term and give its worth (before any group around it) and parts."""
        node = pool.node
        for member in pool.members:
            last = self.rolls[member.rolls[-1]]
            if not member.kept:
                for index in member.rolls:
                    if "dropped" not in self.rolls[index].marks:
                        self.rolls[index].marks.append("dropped")
            if member.success:
                last.marks.append("success")
            if member.failure:
                last.marks.append("failure")
        rolls = self.rolls[pool.start :]
        tokens = self._tokens(pool)
        kept = [member for member in pool.members if member.kept]
        counting = node.success is not None
        successes = sum(member.success for member in kept) if counting else None
        failures = sum(member.failure for member in kept) if node.failure is not None else None
        if counting:
            value = Fraction((successes or 0) - (failures or 0))
        else:
            value = Fraction(sum(member.value for member in kept))
        self.terms.append(
            TermResult(
                node.notation,
                node.label,
                tuple(roll.value for roll in rolls),
                tuple(tuple(roll.marks) for roll in rolls),
                tuple(tokens),
                pool.exploded,
                pool.capped,
                pool.reroll_capped,
                successes,
                failures,
                value,
                node.sides,
            )
        )
        parts: list[Part] = [f"{node.notation} [{', '.join(tokens)}]"]
        if successes is not None:
            parts += [" ", ("successes", str(successes))]
        if failures is not None:
            parts += [" ", ("failures", str(failures))]
        if pool.capped:
            parts += [" ", ("capped",)]
        if pool.reroll_capped:
            parts += [" ", ("reroll_capped",)]
        return value, parts

    def _tokens(self, pool: _Pool) -> list[str]:
        node = pool.node
        owner: dict[int, _Member] = {}
        for member in pool.members:
            for index in member.rolls:
                owner[index] = member
        tokens = []
        for index in range(pool.start, len(self.rolls)):
            roll = self.rolls[index]
            if "rerolled" in roll.marks and "dropped" in roll.marks and index not in owner:
                tokens.append(strike(_face(node, node.value_of(roll.raw))) + "↻")
                continue
            found = owner.get(index)
            if found is None:
                continue
            member = found
            if member.compound:
                if index != member.rolls[-1]:
                    continue
                text = str(member.value) + ("!!" if len(member.rolls) > 1 else "")
            else:
                natural = node.value_of(roll.raw)
                shown = _face(node, roll.value)
                if roll.value != natural and not (
                    node.explode is not None and node.explode.kind == "!p" and roll.value == natural - 1
                ):
                    shown = f"{_face(node, natural)}→{shown}"
                text = shown + ("!" if "exploded" in roll.marks else "")
            if member.success:
                text += "*"
            if member.failure:
                text += "✗"
            tokens.append(text if member.kept else strike(text))
        return tokens

    # --- groups ------------------------------------------------------------------------------------------------

    def group(self, node: Group) -> tuple[Fraction, list[Part]]:
        modifiers = (
            (node.keep.notation if node.keep else "")
            + (node.success.notation if node.success else "")
            + (f"f{node.failure.short}" if node.failure else "")
        )
        if len(node.items) == 1 and (node.keep is not None or node.success is not None):
            return self._one_pool(node, modifiers)
        values: list[Fraction] = []
        rendered: list[list[Part]] = []
        spans: list[tuple[int, int]] = []
        for item in node.items:
            start = len(self.rolls)
            value, item_parts = self.node(item)
            values.append(value)
            rendered.append(item_parts)
            spans.append((start, len(self.rolls)))
        kept = keep_flags(values, node.keep)
        total = Fraction(0)
        successes = failures = 0
        for index, value in enumerate(values):
            if not kept[index]:
                for roll in self.rolls[spans[index][0] : spans[index][1]]:
                    if "dropped" not in roll.marks:
                        roll.marks.append("dropped")
                continue
            if node.success is not None:
                if node.success.met_by(value):
                    successes += 1
                    rendered[index].append("*")
                elif node.failure is not None and node.failure.met_by(value):
                    failures += 1
                    rendered[index].append("✗")
            else:
                total += value
        parts: list[Part] = ["{"]
        for index, item_parts in enumerate(rendered):
            if index:
                parts.append(", ")
            if kept[index]:
                parts += item_parts
            else:
                parts.append(strike("".join(p for p in item_parts if isinstance(p, str))))
        parts.append("}" + modifiers)
        if node.success is not None:
            total = Fraction(successes - failures)
            parts += [" ", ("successes", str(successes))]
            if node.failure is not None:
                parts += [" ", ("failures", str(failures))]
        return total, parts

    def _one_pool(self, node: Group, modifiers: str) -> tuple[Fraction, list[Part]]:
        """{4d6+3d8}k4, {3d20+5}>21: keep and count over every die of the sum, each with its numbers added."""
        terms = pool_terms(node.items[0])
        offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
        pools: list[tuple[int, _Pool]] = []
        for sign, term in terms:
            if isinstance(term, Dice):
                pools.append((sign, self.pool(term)))
        members = [(sign, member) for sign, pool in pools for member in pool.members]
        kept = keep_flags([member.value for _, member in members], node.keep)
        successes = failures = 0
        total = Fraction(offset)
        for (sign, member), keep in zip(members, kept, strict=True):
            member.kept = keep
            if not keep:
                continue
            worth = sign * member.value + offset
            if node.success is not None:
                if node.success.met_by(worth):
                    member.success = True
                    successes += 1
                elif node.failure is not None and node.failure.met_by(worth):
                    member.failure = True
                    failures += 1
            else:
                total += sign * member.value
        # The terms inside render as written (signs and numbers), their dice marked.
        parts: list[Part] = ["{"]
        pending = iter(pools)
        for position, (sign, term) in enumerate(terms):
            if position:
                parts.append(" - " if sign < 0 else " + ")
            elif sign < 0:
                parts.append("-")
            if isinstance(term, Dice):
                parts += self.finish(next(pending)[1])[1]
            else:
                parts.append(spell_node(term))
        parts.append("}" + modifiers)
        if node.success is not None:
            total = Fraction(successes - failures)
            parts += [" ", ("successes", str(successes))]
            if node.failure is not None:
                parts += [" ", ("failures", str(failures))]
        return total, parts


def _face(node: Dice, value: int) -> str:
    if node.fate:
        return "+1" if value > 0 else str(value)
    return str(value)


def score(members: list[_Member], keep: Keep | None, success: Compare | None, failure: Compare | None) -> None:
    """Keep/drop over the pool, then success and failure counts over the dice kept."""
    for member, kept in zip(members, keep_flags([m.value for m in members], keep), strict=True):
        member.kept = kept
        if kept and success is not None:
            if success.met_by(member.value):
                member.success = True
            elif failure is not None and failure.met_by(member.value):
                member.failure = True


def keep_flags(values: list[int] | list[Fraction], keep: Keep | None) -> tuple[bool, ...]:
    """Which values stay. Among equal values the one rolled first is kept first."""
    if keep is None:
        return (True,) * len(values)
    wanted = keep.kept_of(len(values))
    if keep.from_top:
        order = sorted(range(len(values)), key=lambda index: (-values[index], index))
    else:
        order = sorted(range(len(values)), key=lambda index: (values[index], index))
    chosen = set(order[:wanted])
    return tuple(index in chosen for index in range(len(values)))


def apply_function(name: str, value: Fraction) -> Fraction:
    if name == "floor":
        return Fraction(math.floor(value))
    if name == "ceil":
        return Fraction(math.ceil(value))
    if name == "round":  # Roll20: halves round up (towards positive infinity)
        return Fraction(math.floor(value + Fraction(1, 2)))
    return abs(value)


def apply_binary(node: Binary, left: Fraction, right: Fraction) -> Fraction:
    op = node.op
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if right == 0:
        raise RollError(
            N_("at column {column}: the roll divided by 0 here"),
            column=node.column or 1,
            expected="a divisor that cannot be 0",
        )
    if op == "/":
        return left / right
    if op == "//":
        return Fraction(math.floor(left / right))
    return left - right * math.trunc(left / right)  # Roll20 (JavaScript): the remainder has the dividend's sign


def strike(text: str) -> str:
    """Struck-through plain text: a combining long stroke overlay after every character."""
    return "".join(ch + "\u0336" for ch in text)


def faces_text(term: TermResult) -> str:
    """A term's notation and its faces, without words: "4d6kh3 [6, 5, 1̶, 3]"."""
    return f"{term.notation} [{', '.join(term.tokens)}]"
