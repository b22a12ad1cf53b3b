"""Tree to result: rolling an expression with the dice passed in, and rendering the result as one line.

The walk over the tree is here (arithmetic, functions, groups); each dice term is rolled by pools.py (Roll20's
order of modifiers, the caps), and results.py holds what a roll gives (RollResult, TermResult, DieRoll).

Every call to the dice is one entry in `RollResult.rolls`, in order, with what happened to it (its marks): so a
caller that records the dice can show each face with its meaning.
"""

from __future__ import annotations

import math
from fractions import Fraction

from app.rules.dice import Dice as DiceRoller
from app.rules.notation.errors import EXPLOSION_CAP, RollError
from app.rules.notation.parser import as_expression
from app.rules.notation.pools import Pool, PoolRoller, keep_flags, score
from app.rules.notation.results import Part, RollResult, number_text, strike
from app.rules.notation.tree import (
    Binary,
    Call,
    Dice,
    Expression,
    Group,
    Negate,
    Node,
    Number,
    Paren,
    pool_terms,
    spell,
    spell_node,
)
from app.rules.text import N_


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


class _State(PoolRoller):
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
        pools: list[tuple[int, Pool]] = []
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
