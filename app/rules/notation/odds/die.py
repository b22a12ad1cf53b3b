"""One die of a dice term: its distribution after rerolls and mi/ma, its score, and what explosions add (the shapes
of an exploding pool, the chain of one die)."""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from functools import lru_cache

from app.rules.notation.errors import REROLL_CAP
from app.rules.notation.odds.limits import Budget, Pmf, Score
from app.rules.notation.tree import (
    Compare,
    Dice,
)

# --- one die ------------------------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def die_pmf(node: Dice) -> dict[int, Fraction]:
    """One die's value after its rerolls (r at most REROLL_CAP times, ro once) and mi/ma; no explosion."""
    faces = list(node.faces)
    kinds: dict[int, str] = {}
    for face in faces:
        if any(r.kind == "r" and r.on.met_by(face) for r in node.rerolls):
            kinds[face] = "R"
        elif any(r.kind == "ro" and r.on.met_by(face) for r in node.rerolls):
            kinds[face] = "O"
        else:
            kinds[face] = "F"
    size = {kind: sum(1 for k in kinds.values() if k == kind) for kind in "ROF"}
    whole = len(faces)
    landed = {kind: Fraction(0) for kind in "ROF"}
    states: dict[tuple[int, bool], Fraction] = {(0, False): Fraction(1)}
    while states:
        following: dict[tuple[int, bool], Fraction] = defaultdict(Fraction)
        for (done, used), p in states.items():
            landed["F"] += p * Fraction(size["F"], whole)
            if size["O"]:
                if used:
                    landed["O"] += p * Fraction(size["O"], whole)
                else:
                    following[done, True] += p * Fraction(size["O"], whole)
            if size["R"]:
                if done >= REROLL_CAP:
                    landed["R"] += p * Fraction(size["R"], whole)
                else:
                    following[done + 1, used] += p * Fraction(size["R"], whole)
        states = dict(following)
    pmf: dict[int, Fraction] = defaultdict(Fraction)
    for face in faces:
        kind = kinds[face]
        pmf[node.clamp(face)] += landed[kind] / size[kind]
    return {value: p for value, p in sorted(pmf.items()) if p}


def score_of(node: Dice, offset: int = 0) -> Score:
    """What one kept die adds: its value, or +1/-1/0 for a success/failure when the term counts them (against the
    value plus `offset`: a group's `{3d20+5}>21`)."""
    if node.success is None:
        return lambda value: value
    return counting(node.success, node.failure, offset)


def counting(success: Compare, failure: Compare | None, offset: int = 0) -> Score:
    def score(value: int) -> int:
        if success.met_by(value + offset):
            return 1
        if failure is not None and failure.met_by(value + offset):
            return -1
        return 0

    return score


def mean_of(pmf: dict[int, Fraction], score: Score) -> Fraction:
    return sum((p * score(v) for v, p in pmf.items()), Fraction(0))


def split_hit(pmf: dict[int, Fraction], node: Dice) -> tuple[Fraction, dict[int, Fraction], dict[int, Fraction]]:
    """P(a die explodes), and the die's distribution given that it does / does not."""
    hit = {v: p for v, p in pmf.items() if node.explodes_on(v)}
    miss = {v: p for v, p in pmf.items() if not node.explodes_on(v)}
    p = sum(hit.values(), Fraction(0))
    return (
        p,
        ({v: q / p for v, q in hit.items()} if p else {}),
        ({v: q / (1 - p) for v, q in miss.items()} if p < 1 else {}),
    )


# --- shapes of an exploding pool ----------------------------------------------------------------------------


def explosion_shapes(count: int, p: Fraction, cap: int, budget: Budget) -> list[tuple[int, int, Fraction]]:
    """(m dice that explode, o that do not, probability). Each die in the set E adds a die while fewer than `cap`
    have been added. Below the cap: m = 0..cap-1, o = count, C(count+m-1, m) p^m q^count. At the cap: the first
    count+cap-1 dice hold j < count misses and the last die is free: (count+cap-j, j) with C(count+cap-1, j) q^j
    p^(count+cap-j), or (count+cap-1-j, j+1) with C(count+cap-1, j) q^(j+1) p^(count+cap-1-j)."""
    q = 1 - p
    budget.charge((cap + 2 * count) * (1 + (count + cap) * p.denominator.bit_length() // 200))
    if p == 0:
        return [(0, count, Fraction(1))]
    shapes = [(m, count, math.comb(count + m - 1, m) * p**m * q**count) for m in range(cap)]
    for j in range(count):
        base = math.comb(count + cap - 1, j) * q**j * p ** (count + cap - 1 - j)
        shapes += [(count + cap - j, j, base * p), (count + cap - 1 - j, j + 1, base * q)]
    return [shape for shape in shapes if shape[2]]


def cap_chance(node: Dice, cap: int, budget: Budget) -> Fraction:
    """The chance that the term's explosions reach the cap."""
    p = split_hit(die_pmf(node), node)[0]
    if node.count == 1 or p == 0:
        return Fraction(0) if p < 1 else Fraction(1)
    return sum(
        (w for m, o, w in explosion_shapes(node.count, p, cap, budget) if m + o == node.count + cap), Fraction(0)
    )


# --- chains (a die and the dice it adds) ------------------------------------------------------------------------


def chain_pmf(node: Dice, cap: int, budget: Budget, score: Score | None = None) -> Pmf:
    """The distribution of one die's chain: for `!!` its compounded value, for `!` and `!p` the sum of its dice's
    values (less 1 for each added penetrating die), scored by `score` die by die (`!`, `!p`) or as one value
    (`!!`). At most `cap` dice are added."""
    pmf = die_pmf(node)
    explode = node.explode
    compound = explode is not None and explode.kind == "!!"
    penetrate = explode is not None and explode.kind == "!p"
    each = (lambda v: v) if compound or score is None else score
    result: Pmf = defaultdict(Fraction)
    going: Pmf = defaultdict(Fraction)
    for v, p in pmf.items():
        if node.explodes_on(v) and cap > 0:
            going[Fraction(each(v))] += p
        else:
            result[Fraction(each(v))] += p
    for added in range(1, cap + 1):
        if not going:
            break
        budget.charge(len(going) * len(pmf))
        following: Pmf = defaultdict(Fraction)
        for total, q in going.items():
            for v, p in pmf.items():
                worth = total + each(v - 1 if penetrate else v)
                if node.explodes_on(v) and added < cap:
                    following[worth] += q * p
                else:
                    result[worth] += q * p
        going = following
    if compound and score is not None:
        scored: Pmf = defaultdict(Fraction)
        for value, p in result.items():
            scored[Fraction(score(int(value)))] += p
        return dict(scored)
    return dict(result)
