"""Odds before rolling: bounds, the exact mean, and the summary the roll page shows.

One die's distribution comes first (dist: its rerolls, with the reroll cap, and min/max). Then per node:

* a dice term without explosions: n times one die's mean; keep/drop through order statistics (order_stats.py).
* exploding (`!`): the term's pool is a mixture of shapes (m dice that explode, o that do not) with the per-term
  cap exactly (see _shapes); dice that explode and dice that do not are two classes of identical dice, so keep/drop
  is order statistics over two classes (cheap when the exploding faces are the top ones, as `!` and `!>4` are).
* compounding (`!!`) and penetrating (`!p`) dice, and exploding dice where a distribution is needed: each die's
  chain (the die and what it adds) has a distribution of its own, computed up to the cap. The cap is per term, so
  dice that share it are not quite independent: what that leaves out is at most the chance of reaching the cap
  (`remainder`, stated with the odds; it is 0 for a single die).
* groups: sub-roll totals as classes of one (order statistics over unlike dice); a group of one sub-roll keeps
  or counts over all its dice.
* arithmetic: + - and * of independent parts and / by a constant are linear in the means; floor, ceil, round,
  abs, //, % and / by dice need the distributions (probability mass functions) of their operands.

Everything is exact (Fraction) within a work budget; a dice term too big for fractions falls back to floats
(exact=False, to about 1e-9); past ODDS_BUDGET for the whole expression, or for the few combinations without a
method here (keep/drop with penetrating dice or with `ra`, and distributions of kept dice), the mean is None and
the page says "roll it to see" — the bounds are always given.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from app.rules.notation.errors import EXPLOSION_CAP, REROLL_CAP
from app.rules.notation.evaluate import apply_function
from app.rules.notation.order_stats import binomial_counts, binomial_window, mixed_count_pmf
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
    walk,
)

# Work units (roughly one big-number operation each) a dice term's exact mean may cost before it is worked out in
# floats instead; every term of up to 10 dice fits.
EXACT_BUDGET = 100_000
# Work units one describe_odds call may spend, all nodes together: at most about half a second of CPU.
ODDS_BUDGET = 100_000

Pmf = dict[Fraction, Fraction]
Score = Callable[[Any], int]


class OverBudget(Exception):
    """The odds would cost more than the budget allows."""


class Unsupported(Exception):
    """No method here for this combination (the page says "roll it to see")."""


class Budget:
    def __init__(self, units: float) -> None:
        self.left = units

    def charge(self, units: float) -> None:
        self.left -= units
        if self.left < 0:
            raise OverBudget


@dataclass
class Mean:
    value: Fraction
    exact: bool = True
    remainder: Fraction = Fraction(0)  # probability the method leaves out (the per-term cap shared by dice)

    def __add__(self, other: Mean) -> Mean:
        return Mean(self.value + other.value, self.exact and other.exact, self.remainder + other.remainder)


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


def _mean_of(pmf: dict[int, Fraction], score: Score) -> Fraction:
    return sum((p * score(v) for v, p in pmf.items()), Fraction(0))


def _split(pmf: dict[int, Fraction], node: Dice) -> tuple[Fraction, dict[int, Fraction], dict[int, Fraction]]:
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


def _shapes(count: int, p: Fraction, cap: int, budget: Budget) -> list[tuple[int, int, Fraction]]:
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
    p = _split(die_pmf(node), node)[0]
    if node.count == 1 or p == 0:
        return Fraction(0) if p < 1 else Fraction(1)
    return sum((w for m, o, w in _shapes(node.count, p, cap, budget) if m + o == node.count + cap), Fraction(0))


# --- order statistics over classes of identical dice ------------------------------------------------------------


class _Class:
    """Identical independent dice: their distribution and score, with E[sum of the lowest j of n] cached."""

    def __init__(self, pmf: dict[int, Fraction] | Pmf, score: Score | None = None) -> None:
        self.values: list[Fraction] = sorted(Fraction(v) for v in pmf)
        self.pmf: Pmf = {Fraction(v): p for v, p in pmf.items()}
        self.score: Score = score or (lambda value: value)
        scores = [self.score(v.numerator if v.denominator == 1 else v) for v in self.values]
        self.steps = [scores[i] - (scores[i + 1] if i + 1 < len(scores) else 0) for i in range(len(scores))]
        cumulative = Fraction(0)
        self.below: list[Fraction] = []
        for v in self.values:
            cumulative += self.pmf[v]
            self.below.append(cumulative)
        self.mean = sum((self.pmf[v] * s for v, s in zip(self.values, scores, strict=True)), Fraction(0))
        self._cache: dict[tuple[int, bool], list[Fraction] | list[float]] = {}

    def lowest(self, n: int, budget: Budget, exact: bool = True) -> list[Fraction] | list[float]:
        """E[score of the lowest j of n dice] for j = 0..n."""
        key = (n, exact)
        if key not in self._cache:
            if exact:
                self._cache[key] = self._lowest_exact(n, budget)
            else:
                self._cache[key] = self._lowest_float(n, budget)
        return self._cache[key]

    def _lowest_exact(self, n: int, budget: Budget) -> list[Fraction]:
        denominator = math.lcm(*(p.denominator for p in self.below)) if self.below else 1
        budget.charge(len(self.values) * (n + 1) * (1 + n * denominator.bit_length() // 400))
        whole = denominator**n
        numerators = [0] * (n + 1)
        for step, below in zip(self.steps, self.below, strict=True):
            if not step:
                continue
            a = int(below * denominator)
            counts = binomial_counts(n, a, denominator)
            # S_j = sum over k of min(k, j) c_k, for every j at once.
            tail = whole  # sum of c_k for k >= j
            running = 0  # sum of k c_k for k < j
            for j in range(n + 1):
                if j:
                    running += (j - 1) * counts[j - 1]
                    tail -= counts[j - 1]
                numerators[j] += step * (running + j * tail)
        return [Fraction(numerator, whole) for numerator in numerators]

    def _lowest_float(self, n: int, budget: Budget) -> list[float]:
        out = [0.0] * (n + 1)
        for step, below in zip(self.steps, self.below, strict=True):
            if not step:
                continue
            p = float(below)
            if p >= 1.0:
                low, pmf = n, [1.0]
            elif p <= 0.0:
                low, pmf = 0, [1.0]
            else:
                low, pmf = binomial_window(n, p)
            budget.charge(n + len(pmf))
            # S_j = sum over k of min(k, j) P(N = k), for every j at once.
            tail = 1.0
            running = 0.0
            for j in range(n + 1):
                if j:
                    k = j - 1
                    chance = pmf[k - low] if 0 <= k - low < len(pmf) else 0.0
                    running += k * chance
                    tail -= chance
                out[j] += step * (running + j * tail)
        return out


def _kept_one(cls: _Class, n: int, keep: Keep, budget: Budget, exact: bool) -> Fraction | float:
    wanted = keep.kept_of(n)
    lowest = cls.lowest(n, budget, exact)
    if keep.from_top:
        return lowest[n] - lowest[n - wanted]
    return lowest[wanted]


def _kept_mixed(classes: list[tuple[int, _Class]], keep: Keep, budget: Budget) -> Fraction:
    """Keep/drop over unlike dice (exact): N_x is a sum of binomials, convolved."""
    total = sum(n for n, _ in classes)
    wanted = keep.kept_of(total)
    score = classes[0][1].score
    values = sorted({v for _, cls in classes for v in cls.values})
    budget.charge(len(values) * (total + 1) ** 2)
    everything = sum((n * cls.mean for n, cls in classes), Fraction(0))
    lowest_count = total - wanted if keep.from_top else wanted
    lowest = Fraction(0)
    scores = [score(v.numerator if v.denominator == 1 else v) for v in values]
    for index, x in enumerate(values):
        step = scores[index] - (scores[index + 1] if index + 1 < len(values) else 0)
        if not step:
            continue
        pmf = mixed_count_pmf([(n, _below(cls, x)) for n, cls in classes])
        lowest += step * sum((min(k, lowest_count) * p for k, p in enumerate(pmf)), Fraction(0))
    return everything - lowest if keep.from_top else lowest


def _below(cls: _Class, x: Fraction) -> Fraction:
    total = Fraction(0)
    for v, below in zip(cls.values, cls.below, strict=True):
        if v <= x:
            total = below
    return total


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


def _scored(pmf: dict[int, Fraction], score: Score) -> Pmf:
    out: Pmf = defaultdict(Fraction)
    for v, p in pmf.items():
        out[Fraction(score(v))] += p
    return dict(out)


def _keep_pmf(pmf: dict[int, Fraction], n: int, keep: Keep, score: Score, budget: Budget) -> Pmf:
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


# --- the analysis ---------------------------------------------------------------------------------------------


class _Odds:
    def __init__(self, budget: Budget, cap: int) -> None:
        self.budget = budget
        self.cap = cap
        self.divides_by_zero = False

    # means

    def mean(self, node: Node) -> Mean:
        if isinstance(node, Number):
            return Mean(Fraction(node.value))
        if isinstance(node, Dice):
            return self.dice_mean(node, score_of(node))
        if isinstance(node, Paren):
            return self.mean(node.inner)
        if isinstance(node, Negate):
            inner = self.mean(node.operand)
            return Mean(-inner.value, inner.exact, inner.remainder)
        if isinstance(node, Binary):
            if node.op in ("+", "-"):
                left, right = self.mean(node.left), self.mean(node.right)
                value = left.value + right.value if node.op == "+" else left.value - right.value
                return Mean(value, left.exact and right.exact, left.remainder + right.remainder)
            if node.op == "*":
                left, right = self.mean(node.left), self.mean(node.right)
                return Mean(left.value * right.value, left.exact and right.exact, left.remainder + right.remainder)
            if node.op == "/":
                low, high = bounds_of(node.right, self.cap)
                if low == high and low != 0:
                    left = self.mean(node.left)
                    return Mean(left.value / low, left.exact, left.remainder)
        if isinstance(node, Group):
            return self.group_mean(node)
        pmf, remainder = self.pmf(node)
        return Mean(sum((v * p for v, p in pmf.items()), Fraction(0)), True, remainder)

    def dice_mean(self, node: Dice, score: Score) -> Mean:
        try:
            return self._dice_mean(node, score, Budget(EXACT_BUDGET), exact=True)
        except OverBudget:
            return self._dice_mean(node, score, self.budget, exact=False)

    def _dice_mean(self, node: Dice, score: Score, budget: Budget, exact: bool) -> Mean:
        self.budget.charge(len(node.faces))
        pmf = die_pmf(node)
        n = node.count
        explode = node.explode
        if node.reroll_add is not None:
            if explode is not None or node.keep is not None:
                raise Unsupported
            one = _mean_of(pmf, score)
            target = node.reroll_add
            none = sum((p for v, p in pmf.items() if not target.met_by(v)), Fraction(0))
            return Mean(n * one + (1 - none**n) * one)
        if explode is None:
            if node.keep is None:
                return Mean(n * _mean_of(pmf, score))
            value = _kept_one(_Class(pmf, score), n, node.keep, budget, exact)
            return Mean(Fraction(value) if exact else Fraction(value).limit_denominator(10**9), exact)
        p, hit, miss = _split(pmf, node)
        plain_sum = node.success is None and score(7) == 7 and score(-3) == -3
        if explode.kind == "!" or (node.keep is None and plain_sum and explode.kind == "!!"):
            return self._shape_mean(node, p, hit, miss, score, budget, exact)
        if explode.kind == "!p" and node.keep is None and plain_sum:
            shaped = self._shape_mean(node, p, hit, miss, score, budget, exact)
            added = sum((w * (m + o - n) for m, o, w in _shapes(n, p, self.cap, budget)), Fraction(0))
            return Mean(shaped.value - added, shaped.exact)
        if explode.kind == "!p" and node.keep is not None:
            raise Unsupported
        # Compounding dice kept or counted, penetrating dice counted: chains, with what the shared cap leaves out.
        remainder = cap_chance(node, self.cap, budget)
        if explode.kind == "!!":
            chain = chain_pmf(node, self.cap, budget)
            cls = _Class(chain, score)
            if node.keep is None:
                return Mean(n * cls.mean, True, remainder)
            return Mean(Fraction(_kept_one(cls, n, node.keep, budget, True)), True, remainder)
        chain = chain_pmf(node, self.cap, budget, score)
        return Mean(n * sum((v * q for v, q in chain.items()), Fraction(0)), True, remainder)

    def _shape_mean(
        self,
        node: Dice,
        p: Fraction,
        hit: dict[int, Fraction],
        miss: dict[int, Fraction],
        score: Score,
        budget: Budget,
        exact: bool,
    ) -> Mean:
        shapes = _shapes(node.count, p, self.cap, budget)
        a, b = _Class(hit, score) if hit else None, _Class(miss, score) if miss else None
        if node.keep is None:
            total = sum((w * ((a.mean * m if a else 0) + (b.mean * o if b else 0)) for m, o, w in shapes), Fraction(0))
            return Mean(total)
        upper = not hit or not miss or min(hit) > max(miss)
        total_value: Fraction | float = Fraction(0) if exact else 0.0
        for m, o, w in shapes:
            if not exact and w < Fraction(1, 10**18):
                continue
            weight: Fraction | float = w if exact else float(w)
            if upper:
                part = self._upper_kept(node.keep, m, o, a, b, budget, exact)
            else:
                classes = [(count, cls) for count, cls in ((m, a), (o, b)) if count and cls is not None]
                part = _kept_mixed(classes, node.keep, budget)
            total_value += weight * part  # type: ignore[operator,unused-ignore]
        if exact:
            return Mean(Fraction(total_value))
        return Mean(Fraction(total_value).limit_denominator(10**9), False)

    @staticmethod
    def _upper_kept(
        keep: Keep, m: int, o: int, a: _Class | None, b: _Class | None, budget: Budget, exact: bool
    ) -> Fraction | float:
        """Keep/drop when every exploding die ranks above every other: the kept dice are a top or bottom slice."""
        wanted = keep.kept_of(m + o)
        a_mean = a.mean if a else Fraction(0)
        b_mean = b.mean if b else Fraction(0)
        zero: Fraction | float = Fraction(0) if exact else 0.0

        def lowest(cls: _Class | None, count: int, j: int) -> Fraction | float:
            if cls is None or j == 0:
                return zero
            return cls.lowest(count, budget, exact)[j]

        if keep.from_top:
            if wanted <= m:  # the highest `wanted` of the exploding dice
                return (
                    (a_mean * m - lowest(a, m, m - wanted)) if exact else (float(a_mean) * m - lowest(a, m, m - wanted))
                )
            rest = wanted - m
            whole_a = a_mean * m
            top_b = b_mean * o - lowest(b, o, o - rest) if exact else float(b_mean) * o - lowest(b, o, o - rest)
            return whole_a + top_b if exact else float(whole_a) + top_b  # type: ignore[operator,unused-ignore]
        if wanted <= o:
            return lowest(b, o, wanted)
        return (b_mean * o + lowest(a, m, wanted - o)) if exact else float(b_mean) * o + lowest(a, m, wanted - o)

    def group_mean(self, node: Group) -> Mean:
        if len(node.items) == 1 and (node.keep is not None or node.success is not None):
            return self._pool_mean(node)
        if node.keep is None and node.success is None:
            total = Mean(Fraction(0))
            for item in node.items:
                total = total + self.mean(item)
            return total
        pmfs = [self.pmf(item) for item in node.items]
        remainder = sum((r for _, r in pmfs), Fraction(0))
        if node.success is not None:
            score = counting(node.success, node.failure)
            value = Fraction(0)
            kept_classes = [_Class(pmf) for pmf, _ in pmfs]
            if node.keep is not None:
                # Count over the kept sub-rolls only: the score ranks the same way as the totals only for kh/kl
                # on a plain "or more"/"or less" count, so anything else is rolled to see.
                raise Unsupported
            for cls in kept_classes:
                value += sum((p * score(v) for v, p in cls.pmf.items()), Fraction(0))
            return Mean(value, True, remainder)
        assert node.keep is not None
        classes = [(1, _Class(pmf)) for pmf, _ in pmfs]
        return Mean(_kept_mixed(classes, node.keep, self.budget), True, remainder)

    def _pool_mean(self, node: Group) -> Mean:
        terms = pool_terms(node.items[0])
        offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
        dice = [(sign, term) for sign, term in terms if isinstance(term, Dice)]
        if node.keep is not None:
            if node.success is not None or any(sign < 0 for sign, _ in dice):
                raise Unsupported
            classes = []
            remainder = Fraction(0)
            for _sign, term in dice:
                if term.explode is not None:
                    if term.explode.kind != "!!" or term.reroll_add is not None:
                        raise Unsupported
                    remainder += cap_chance(term, self.cap, self.budget)
                    classes.append((term.count, _Class(chain_pmf(term, self.cap, self.budget))))
                elif term.reroll_add is not None:
                    raise Unsupported
                else:
                    classes.append((term.count, _Class(die_pmf(term))))
            return Mean(_kept_mixed(classes, node.keep, self.budget) + offset, True, remainder)
        assert node.success is not None
        total = Mean(Fraction(0))
        for sign, term in dice:
            score = counting(node.success, node.failure, offset)
            signed: Score = score if sign > 0 else (lambda value, s=score: s(-value))  # type: ignore[misc]
            total = total + self.dice_mean(term, signed)
        return total

    # distributions

    def pmf(self, node: Node) -> tuple[Pmf, Fraction]:
        if isinstance(node, Number):
            return {Fraction(node.value): Fraction(1)}, Fraction(0)
        if isinstance(node, Dice):
            return self.dice_pmf(node, score_of(node))
        if isinstance(node, Paren):
            return self.pmf(node.inner)
        if isinstance(node, Negate):
            inner, remainder = self.pmf(node.operand)
            return {-v: p for v, p in inner.items()}, remainder
        if isinstance(node, Call):
            inner, remainder = self.pmf(node.arg)
            out: Pmf = defaultdict(Fraction)
            for v, p in inner.items():
                out[apply_function(node.name, v)] += p
            return dict(out), remainder
        if isinstance(node, Binary):
            left, lr = self.pmf(node.left)
            right, rr = self.pmf(node.right)
            if node.op in ("/", "//", "%") and Fraction(0) in right:
                self.divides_by_zero = True
                raise Unsupported
            return convolve(left, right, self.budget, _OPS[node.op]), lr + rr
        return self.group_pmf(node)

    def dice_pmf(self, node: Dice, score: Score) -> tuple[Pmf, Fraction]:
        pmf = die_pmf(node)
        n = node.count
        if node.explode is not None:
            if node.keep is not None or node.reroll_add is not None:
                raise Unsupported
            chain = chain_pmf(node, self.cap, self.budget, score)
            return power(chain, n, self.budget), cap_chance(node, self.cap, self.budget)
        if node.reroll_add is not None:
            if node.keep is not None:
                raise Unsupported
            target = node.reroll_add
            one = _scored(pmf, score)
            miss = {v: p for v, p in pmf.items() if not target.met_by(v)}
            none_hit = power(_scored(miss, score), n, self.budget)
            every = power(one, n, self.budget)
            some_hit = {v: every.get(v, Fraction(0)) - none_hit.get(v, Fraction(0)) for v in every}
            out = convolve(some_hit, one, self.budget)
            for v, p in none_hit.items():
                out[v] = out.get(v, Fraction(0)) + p
            return {v: p for v, p in out.items() if p}, Fraction(0)
        if node.keep is None:
            return power(_scored(pmf, score), n, self.budget), Fraction(0)
        return _keep_pmf(pmf, n, node.keep, score, self.budget), Fraction(0)

    def group_pmf(self, node: Group) -> tuple[Pmf, Fraction]:
        if len(node.items) == 1 and (node.keep is not None or node.success is not None):
            if node.keep is not None:
                raise Unsupported
            assert node.success is not None
            terms = pool_terms(node.items[0])
            offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
            total: Pmf = {Fraction(0): Fraction(1)}
            remainder = Fraction(0)
            for sign, term in terms:
                if isinstance(term, Dice):
                    score = counting(node.success, node.failure, offset)
                    signed: Score = score if sign > 0 else (lambda value, s=score: s(-value))  # type: ignore[misc]
                    pmf, r = self.dice_pmf(term, signed)
                    total = convolve(total, pmf, self.budget)
                    remainder += r
            return total, remainder
        parts = [self.pmf(item) for item in node.items]
        remainder = sum((r for _, r in parts), Fraction(0))
        if node.keep is None and node.success is None:
            total = {Fraction(0): Fraction(1)}
            for pmf, _ in parts:
                total = convolve(total, pmf, self.budget)
            return total, remainder
        if node.success is not None:
            if node.keep is not None:
                raise Unsupported
            score = counting(node.success, node.failure)
            total = {Fraction(0): Fraction(1)}
            for pmf, _ in parts:
                scored: Pmf = defaultdict(Fraction)
                for v, p in pmf.items():
                    scored[Fraction(score(v))] += p
                total = convolve(total, dict(scored), self.budget)
            return total, remainder
        assert node.keep is not None
        if node.keep.kept_of(len(parts)) != 1:
            raise Unsupported
        return _extreme([pmf for pmf, _ in parts], highest=node.keep.from_top, budget=self.budget), remainder


def _extreme(pmfs: list[Pmf], highest: bool, budget: Budget) -> Pmf:
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


_OPS: dict[str, Callable[[Fraction, Fraction], Fraction]] = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: x / y,
    "//": lambda x, y: Fraction(math.floor(x / y)),
    "%": lambda x, y: x - y * math.trunc(x / y),
}


# --- bounds ---------------------------------------------------------------------------------------------------


def bounds_of(node: Node, cap: int) -> tuple[Fraction, Fraction]:
    """The lowest and highest value a node can roll (raises Unsupported for a divisor that may be 0)."""
    if isinstance(node, Number):
        return Fraction(node.value), Fraction(node.value)
    if isinstance(node, Dice):
        return _dice_bounds(node, cap, score_of(node))
    if isinstance(node, Paren):
        return bounds_of(node.inner, cap)
    if isinstance(node, Negate):
        low, high = bounds_of(node.operand, cap)
        return -high, -low
    if isinstance(node, Call):
        low, high = bounds_of(node.arg, cap)
        if node.name == "abs":
            if low >= 0:
                return low, high
            if high <= 0:
                return -high, -low
            return Fraction(0), max(-low, high)
        return apply_function(node.name, low), apply_function(node.name, high)
    if isinstance(node, Binary):
        (a, b), (c, d) = bounds_of(node.left, cap), bounds_of(node.right, cap)
        if a == b and c == d and (c != 0 or node.op in ("+", "-", "*")):
            value = _OPS[node.op](a, c)
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
    return _group_bounds(node, cap)


def _whole(node: Node) -> bool:
    """Whether a node's value is always a whole number (only / makes fractions)."""
    return not any(isinstance(item, Binary) and item.op == "/" for item in walk(node))


def _dice_bounds(node: Dice, cap: int, score: Score) -> tuple[Fraction, Fraction]:
    values = list(die_pmf(node))
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


def _group_bounds(node: Group, cap: int) -> tuple[Fraction, Fraction]:
    if len(node.items) == 1 and (node.keep is not None or node.success is not None):
        terms = pool_terms(node.items[0])
        offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
        pool_high = 0
        term_lows: list[int] = []
        term_highs: list[int] = []
        for sign, term in terms:
            if isinstance(term, Dice):
                extra = (cap if term.explode is not None and term.explode.kind != "!!" else 0) + (
                    1 if term.reroll_add is not None else 0
                )
                pool_high += term.count + extra
                plain = Dice(term.count, term.sides, term.fate, term.rerolls, term.minimum, term.maximum)
                values = list(die_pmf(plain))
                if term.explode is not None and term.explode.kind == "!!":
                    values.append(max(values) * (cap + 1))
                    if min(values) < 0:
                        values.append(min(values) * (cap + 1))
                if term.explode is not None and term.explode.kind == "!p":
                    values.append(min(values) - 1)
                term_lows.append(min(sign * v for v in values))
                term_highs.append(max(sign * v for v in values))
        if node.success is not None:
            score = counting(node.success, node.failure, offset)
            low_total = high_total = 0
            for sign, term in terms:
                if isinstance(term, Dice):
                    signed: Score = score if sign > 0 else (lambda v: score(-v))
                    if term.explode is not None and term.explode.kind == "!!":
                        values = list(die_pmf(term)) + [max(die_pmf(term)) * (cap + 1)]
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
                        )
                    low_total += int(span[0])
                    high_total += int(span[1])
            return Fraction(low_total), Fraction(high_total)
        low, high = min(term_lows), max(term_highs)
        kept = _kept_range(node.keep, sum(t.count for _, t in terms if isinstance(t, Dice)), pool_high)
        span = _span(kept, low, high)
        return span[0] + offset, span[1] + offset
    ranges = [bounds_of(item, cap) for item in node.items]
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


# --- the public functions -------------------------------------------------------------------------------------


def bounds(expr: Expression | str, *, explosion_cap: int = EXPLOSION_CAP) -> tuple[Fraction, Fraction]:
    """The lowest and highest total the expression can roll (exploding dice limited by the cap). Raises
    Unsupported when a divisor can be 0."""
    return bounds_of(as_expression(expr).root, explosion_cap)


def mean(
    expr: Expression | str, *, explosion_cap: int = EXPLOSION_CAP, budget: float = float("inf")
) -> Fraction | None:
    """The expected total, exactly where a method covers it (None where the page says "roll it to see")."""
    try:
        return _Odds(Budget(budget), explosion_cap).mean(as_expression(expr).root).value
    except (Unsupported, OverBudget):
        return None


def describe_odds(expr: Expression | str, *, explosion_cap: int = EXPLOSION_CAP) -> dict[str, object]:
    """What the roll page shows before rolling: min, max (None when a divisor can be 0), mean (2 decimals; None
    past ODDS_BUDGET or without a method), whether it is exact, the chance the method leaves out
    (`remainder`), and whether the roll can divide by 0."""
    return dict(_describe(as_expression(expr), explosion_cap))


def _number(value: Fraction) -> int | float:
    return value.numerator if value.denominator == 1 else float(value)


@lru_cache(maxsize=1024)
def _describe(parsed: Expression, cap: int) -> dict[str, object]:
    odds = _Odds(Budget(ODDS_BUDGET), cap)
    low: int | float | None
    high: int | float | None
    try:
        found = bounds_of(parsed.root, cap)
        low, high = _number(found[0]), _number(found[1])
    except Unsupported:
        low = high = None
        odds.divides_by_zero = True
    try:
        shown = odds.mean(parsed.root)
        value: float | None = round(float(shown.value), 2)
        exact, remainder = shown.exact, float(shown.remainder)
    except (OverBudget, Unsupported):
        value, exact, remainder = None, False, 0.0
    return {
        "min": low,
        "max": high,
        "mean": value,
        "exact": exact,
        "text": str(parsed),
        "remainder": remainder,
        "divides_by_zero": odds.divides_by_zero,
    }
