"""Distributions (probability mass functions) of sums, products and kept dice, for what a mean alone does not cover."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction

from app.rules.notation.odds.limits import Budget, Pmf, Score
from app.rules.notation.tree import (
    Keep,
)

# --- distributions --------------------------------------------------------------------------------------------


def convolve(a: Pmf, b: Pmf, budget: Budget, op: Callable[[Fraction, Fraction], Fraction] = lambda x, y: x + y) -> Pmf:
    budget.charge(len(a) * len(b))
    out: Pmf = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[op(x, y)] += p * q
    return dict(out)


def power(pmf: Pmf, n: int, budget: Budget) -> Pmf:
    result: Pmf = {Fraction(0): Fraction(1)}
    base = pmf
    while n:
        if n & 1:
            result = convolve(result, base, budget)
        n >>= 1
        if n:
            base = convolve(base, base, budget)
    return result


def scored(pmf: dict[int, Fraction], score: Score) -> Pmf:
    out: Pmf = defaultdict(Fraction)
    for v, p in pmf.items():
        out[Fraction(score(v))] += p
    return dict(out)


def keep_pmf(pmf: dict[int, Fraction], n: int, keep: Keep, score: Score, budget: Budget) -> Pmf:
    """The distribution of the kept score of n identical dice: values from the kept end inwards, choosing how many
    dice show each (multinomial weights)."""
    wanted = keep.kept_of(n)
    order = sorted(pmf, reverse=keep.from_top)
    states: dict[tuple[int, Fraction], Fraction] = {(0, Fraction(0)): Fraction(1)}
    for v in order:
        p = pmf[v]
        budget.charge(len(states) * (n + 1))
        following: dict[tuple[int, Fraction], Fraction] = defaultdict(Fraction)
        for (used, total), q in states.items():
            for c in range(n - used + 1):
                kept = max(0, min(c, wanted - used))
                following[used + c, total + kept * score(v)] += q * math.comb(n - used, c) * p**c
        states = dict(following)
    out: Pmf = defaultdict(Fraction)
    for (used, total), q in states.items():
        if used == n:
            out[total] += q
    return dict(out)


def extreme(pmfs: list[Pmf], highest: bool, budget: Budget) -> Pmf:
    """The distribution of the highest (or lowest) of independent values: P(max <= x) is the product."""
    values = sorted({v for pmf in pmfs for v in pmf})
    budget.charge(len(values) * len(pmfs))
    out: Pmf = {}
    previous = Fraction(0)
    for x in values if highest else reversed(values):
        chance = Fraction(1)
        for pmf in pmfs:
            chance *= sum((p for v, p in pmf.items() if (v <= x if highest else v >= x)), Fraction(0))
        if chance != previous:
            out[x] = chance - previous
        previous = chance
    return out


OPS: dict[str, Callable[[Fraction, Fraction], Fraction]] = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: x / y,
    "//": lambda x, y: Fraction(math.floor(x / y)),
    "%": lambda x, y: x - y * math.trunc(x / y),
}
