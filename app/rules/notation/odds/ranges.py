"""Bounds: the lowest and highest value each node of an expression can roll.

`practical=True` leaves out the faces that `r` rerolls: a die keeps such a face only when all REROLL_CAP rerolls
show one again (for `8d6r`, (1/6)^10 per die), so `8d6r` is 16–48 in practice and 8–48 only in theory. The page
shows the practical range and says when the theoretical one differs."""

from __future__ import annotations

import math
from fractions import Fraction

from app.rules.notation.evaluate import apply_function
from app.rules.notation.odds.die import counting, die_pmf, score_of
from app.rules.notation.odds.distributions import OPS
from app.rules.notation.odds.limits import Score, Unsupported
from app.rules.notation.tree import (
    Binary,
    Call,
    Dice,
    Group,
    Keep,
    Negate,
    Node,
    Number,
    Paren,
    pool_terms,
    walk,
)

# --- bounds ---------------------------------------------------------------------------------------------------


def bounds_of(node: Node, cap: int, practical: bool = False) -> tuple[Fraction, Fraction]:
    """The lowest and highest value a node can roll (raises Unsupported for a divisor that may be 0); `practical`:
    never counting a face that `r` rerolls (see above)."""
    if isinstance(node, Number):
        return Fraction(node.value), Fraction(node.value)
    if isinstance(node, Dice):
        return _dice_bounds(node, cap, score_of(node), practical)
    if isinstance(node, Paren):
        return bounds_of(node.inner, cap, practical)
    if isinstance(node, Negate):
        low, high = bounds_of(node.operand, cap, practical)
        return -high, -low
    if isinstance(node, Call):
        low, high = bounds_of(node.arg, cap, practical)
        if node.name == "abs":
            if low >= 0:
                return low, high
            if high <= 0:
                return -high, -low
            return Fraction(0), max(-low, high)
        return apply_function(node.name, low), apply_function(node.name, high)
    if isinstance(node, Binary):
        (a, b), (c, d) = bounds_of(node.left, cap, practical), bounds_of(node.right, cap, practical)
        if a == b and c == d and (c != 0 or node.op in ("+", "-", "*")):
            value = OPS[node.op](a, c)
            return value, value
        if node.op == "+":
            return a + c, b + d
        if node.op == "-":
            return a - d, b - c
        if node.op == "*":
            products = [a * c, a * d, b * c, b * d]
            return min(products), max(products)
        if c <= 0 <= d:
            raise Unsupported
        if node.op in ("/", "//"):
            quotients = [a / c, a / d, b / c, b / d]
            low, high = min(quotients), max(quotients)
            if node.op == "//":
                return Fraction(math.floor(low)), Fraction(math.floor(high))
            return low, high
        biggest = max(abs(c), abs(d))
        if c == d and c.denominator == 1 and _whole(node.left):
            biggest -= 1  # a whole number's remainder by a whole number is at most one less
        return max(-biggest, min(Fraction(0), a)), min(biggest, max(Fraction(0), b))
    return _group_bounds(node, cap, practical)


def die_values(node: Dice, practical: bool = False) -> list[int]:
    """The values one die can show after its rerolls and mi/ma (no explosion); `practical`: not the faces `r`
    rerolls (one face at least is never rerolled: the parser refuses a reroll on every face)."""
    values = list(die_pmf(node))
    if not practical or not any(r.kind == "r" for r in node.rerolls):
        return values
    kept = sorted(
        {node.clamp(f) for f in node.faces if not any(r.kind == "r" and r.on.met_by(f) for r in node.rerolls)}
    )
    return kept or values


def _whole(node: Node) -> bool:
    """Whether a node's value is always a whole number (only / makes fractions)."""
    return not any(isinstance(item, Binary) and item.op == "/" for item in walk(node))


def _dice_bounds(node: Dice, cap: int, score: Score, practical: bool = False) -> tuple[Fraction, Fraction]:
    values = die_values(node, practical)
    scores = [score(v) for v in values]
    low, high = min(scores), max(scores)
    n = node.count
    extra = 1 if node.reroll_add is not None else 0
    always = node.reroll_add is not None and all(node.reroll_add.met_by(v) for v in values)
    explode = node.explode
    if explode is None:
        return _span(_kept_range(node.keep, n + (1 if always else 0), n + extra), low, high)
    if explode.kind == "!!" and (node.keep is not None or node.success is not None):
        chain_low = min(values) if min(values) >= 0 else min(values) * (cap + 1)
        chain_high = max(values) * (cap + 1) if max(values) > 0 else max(values)
        chain = counting_range(node) if node.success is not None else (chain_low, chain_high)
        return _span(_kept_range(node.keep, n, n + extra), min(chain), max(chain))
    if explode.kind == "!p":
        scores += [score(v - 1) for v in values]
        low, high = min(scores), max(scores)
    if node.keep is not None or explode.kind == "!p" and node.success is not None:
        return _span(_kept_range(node.keep, n, n + cap + extra), low, high)
    # Shapes: m exploding dice and o others (o <= n); penetrating added dice count 1 less each.
    hit = [score(v) for v in values if node.explodes_on(v)]
    miss = [score(v) for v in values if not node.explodes_on(v)]
    lows, highs = [], []
    for m, o in _shape_sizes(n, cap, bool(hit), bool(miss)):
        shift = m + o - n if explode.kind == "!p" else 0
        lows.append(m * min(hit or [0]) + o * min(miss or [0]) - shift)
        highs.append(m * max(hit or [0]) + o * max(miss or [0]) - shift)
    return Fraction(min(lows) + extra * min(low, 0)), Fraction(max(highs) + extra * max(high, 0))


def counting_range(node: Dice) -> tuple[int, int]:
    return (-1 if node.failure is not None else 0), 1


def _shape_sizes(n: int, cap: int, can_hit: bool, can_miss: bool) -> list[tuple[int, int]]:
    if not can_hit:
        return [(0, n)]
    if not can_miss:
        return [(n + cap, 0)]
    sizes = [(m, n) for m in range(cap)]
    for j in range(n):
        sizes += [(n + cap - j, j), (n + cap - 1 - j, j + 1)]
    return sizes


def _kept_range(keep: Keep | None, pool_low: int, pool_high: int) -> tuple[int, int]:
    if keep is None:
        return pool_low, pool_high
    a, b = keep.kept_of(pool_low), keep.kept_of(pool_high)
    return min(a, b), max(a, b)


def _span(kept: tuple[int, int], low: int, high: int) -> tuple[Fraction, Fraction]:
    """The range of a sum of between kept[0] and kept[1] scores, each between low and high."""
    return Fraction(min(kept[0] * low, kept[1] * low)), Fraction(max(kept[0] * high, kept[1] * high))


def _group_bounds(node: Group, cap: int, practical: bool = False) -> tuple[Fraction, Fraction]:
    if len(node.items) == 1 and (node.keep is not None or node.success is not None):
        terms = pool_terms(node.items[0])
        offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
        pool_high = 0
        term_lows: list[int] = []
        term_highs: list[int] = []
        die_lows: list[int] = []  # one per die written, when no die can be added (no explosion, no ra)
        die_highs: list[int] = []
        for sign, term in terms:
            if isinstance(term, Dice):
                extra = (cap if term.explode is not None and term.explode.kind != "!!" else 0) + (
                    1 if term.reroll_add is not None else 0
                )
                pool_high += term.count + extra
                plain = Dice(term.count, term.sides, term.fate, term.rerolls, term.minimum, term.maximum)
                values = die_values(plain, practical)
                if term.explode is not None and term.explode.kind == "!!":
                    values.append(max(values) * (cap + 1))
                    if min(values) < 0:
                        values.append(min(values) * (cap + 1))
                if term.explode is not None and term.explode.kind == "!p":
                    values.append(min(values) - 1)
                term_lows.append(min(sign * v for v in values))
                term_highs.append(max(sign * v for v in values))
                if sign > 0:  # dice are kept by their own value (evaluate.py), so a subtracted term breaks the order
                    die_lows += [term_lows[-1]] * term.count
                    die_highs += [term_highs[-1]] * term.count
        if node.success is not None:
            score = counting(node.success, node.failure, offset)
            low_total = high_total = 0
            for sign, term in terms:
                if isinstance(term, Dice):
                    signed: Score = score if sign > 0 else (lambda v: score(-v))
                    if term.explode is not None and term.explode.kind == "!!":
                        values = die_values(term, practical)
                        values = values + [max(values) * (cap + 1)]
                        scores = [signed(v) for v in values]
                        extra = 1 if term.reroll_add is not None else 0
                        span = _span((term.count, term.count + extra), min(scores), max(scores))
                    else:
                        span = _dice_bounds(
                            Dice(
                                term.count,
                                term.sides,
                                term.fate,
                                term.rerolls,
                                term.minimum,
                                term.maximum,
                                term.explode,
                                term.reroll_add,
                            ),
                            cap,
                            signed,
                            practical,
                        )
                    low_total += int(span[0])
                    high_total += int(span[1])
            return Fraction(low_total), Fraction(high_total)
        # pool_high counts every die that may be in the pool; die_lows only the added terms' written dice.
        if node.keep is not None and pool_high == len(die_lows):
            # A fixed pool of unlike dice ({4d6+3d8}k4): the sum of the kept (highest or lowest) dice grows with each
            # die, so it is least with every die at its lowest and most with every die at its highest.
            wanted = node.keep.kept_of(pool_high)
            kept_lows = sorted(die_lows, reverse=node.keep.from_top)[:wanted]
            kept_highs = sorted(die_highs, reverse=node.keep.from_top)[:wanted]
            return Fraction(sum(kept_lows) + offset), Fraction(sum(kept_highs) + offset)
        low, high = min(term_lows), max(term_highs)
        kept = _kept_range(node.keep, sum(t.count for _, t in terms if isinstance(t, Dice)), pool_high)
        span = _span(kept, low, high)
        return span[0] + offset, span[1] + offset
    ranges = [bounds_of(item, cap, practical) for item in node.items]
    if node.success is not None:
        return Fraction(-len(ranges) if node.failure is not None else 0), Fraction(len(ranges))
    zero = Fraction(0)
    if node.keep is None:
        return sum((r[0] for r in ranges), zero), sum((r[1] for r in ranges), zero)
    # The kept totals are the highest (or lowest) `wanted`: at least the `wanted` highest (lowest) lows, at most
    # the `wanted` highest (lowest) highs.
    wanted = node.keep.kept_of(len(ranges))
    lows: list[Fraction] = sorted((r[0] for r in ranges), reverse=node.keep.from_top)
    highs: list[Fraction] = sorted((r[1] for r in ranges), reverse=node.keep.from_top)
    return sum(lows[:wanted], zero), sum(highs[:wanted], zero)
