"""The mean of kept dice (keep/drop): order statistics over classes of identical dice (order_stats.py)."""

from __future__ import annotations

import math
from fractions import Fraction

from app.rules.notation.odds.limits import Budget, Pmf, Score
from app.rules.notation.odds.order_stats import binomial_counts, binomial_window, mixed_count_pmf
from app.rules.notation.tree import (
    Keep,
)

# --- order statistics over classes of identical dice ------------------------------------------------------------


class DiceClass:
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


def kept_one(cls: DiceClass, n: int, keep: Keep, budget: Budget, exact: bool) -> Fraction | float:
    wanted = keep.kept_of(n)
    lowest = cls.lowest(n, budget, exact)
    if keep.from_top:
        return lowest[n] - lowest[n - wanted]
    return lowest[wanted]


def kept_mixed(classes: list[tuple[int, DiceClass]], keep: Keep, budget: Budget) -> Fraction:
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
        pmf = mixed_count_pmf([(n, share_below(cls, x)) for n, cls in classes])
        lowest += step * sum((min(k, lowest_count) * p for k, p in enumerate(pmf)), Fraction(0))
    return everything - lowest if keep.from_top else lowest


def share_below(cls: DiceClass, x: Fraction) -> Fraction:
    total = Fraction(0)
    for v, below in zip(cls.values, cls.below, strict=True):
        if v <= x:
            total = below
    return total
