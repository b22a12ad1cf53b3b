"""Expected kept sums over pools of independent dice (order statistics), exactly or in floating point.

For a pool sorted ascending X(1) <= … <= X(N) and a per-value score g, with support values x_1 < … < x_V and
step_i = g(x_i) - g(x_(i+1)) (g past the top taken as 0), summation by parts gives

    E[g(X(1)) + … + g(X(j))] = sum over i of step_i * E[min(N_i, j)],   N_i = how many dice show x_i or less,

and N_i is a binomial per class of identical dice (a sum of them for a mixed pool). The highest j are all N
minus the lowest N - j. Binomial weights are integers C(n,k) a^k (d-a)^(n-k) over d^n when the class's
probability of "x_i or less" is a/d, so the exact sums stay in integers until the end.
"""

from __future__ import annotations

import math
from fractions import Fraction

# Float mode ignores binomial probabilities this far below the mode; they cannot move a mean that is shown to
# two decimals (and stay far below 1e-12 even summed over every rank).
_NEGLIGIBLE = 1e-22


def binomial_counts(n: int, a: int, d: int) -> list[int]:
    """C(n,k) a^k (d-a)^(n-k) for k = 0..n: outcomes (out of d^n) with exactly k dice in an event of a/d."""
    if a == 0:
        return [d**n] + [0] * n
    if a == d:
        return [0] * n + [d**n]
    other = d - a
    term = other**n
    counts = [term]
    for k in range(n):
        # Exact: the quotient is the next count, and the numerator is that count times the divisor.
        term = term * (n - k) * a // ((k + 1) * other)
        counts.append(term)
    return counts


def expected_min_exact(n: int, p: Fraction, j: int, offset: int = 0) -> Fraction:
    """E[min(offset + B, j)] for B ~ Binomial(n, p)."""
    if j <= offset:
        return Fraction(j)
    counts = binomial_counts(n, p.numerator, p.denominator)
    numerator = sum(min(offset + k, j) * count for k, count in enumerate(counts))
    return Fraction(numerator, p.denominator**n)


def expected_min_float(n: int, p: float, j: int, offset: int = 0) -> float:
    if j <= offset:
        return float(j)
    if p <= 0.0:
        return float(min(offset, j))
    if p >= 1.0:
        return float(min(offset + n, j))
    low, pmf = binomial_window(n, p)
    return sum(min(offset + low + i, j) * weight for i, weight in enumerate(pmf))


def mixed_count_pmf(classes: list[tuple[int, Fraction]]) -> list[Fraction]:
    """P(N = k) for N a sum of independent Binomial(n, p) over the classes (exact)."""
    pmf = [Fraction(1)]
    for n, p in classes:
        counts = binomial_counts(n, p.numerator, p.denominator)
        whole = p.denominator**n
        part = [Fraction(count, whole) for count in counts]
        out = [Fraction(0)] * (len(pmf) + n)
        for i, a in enumerate(pmf):
            if a:
                for k, b in enumerate(part):
                    if b:
                        out[i + k] += a * b
        pmf = out
    return pmf


def binomial_window(n: int, p: float) -> tuple[int, list[float]]:
    """(low, pmf) with pmf[i] = P(Binomial(n, p) = low + i) over the non-negligible range."""
    mode = min(n, int((n + 1) * p))
    log_peak = (
        math.lgamma(n + 1)
        - math.lgamma(mode + 1)
        - math.lgamma(n - mode + 1)
        + mode * math.log(p)
        + (n - mode) * math.log1p(-p)
    )
    peak = math.exp(log_peak)
    ratio = p / (1 - p)
    upper = [peak]
    value, j = peak, mode
    while j < n and value > _NEGLIGIBLE:
        value *= (n - j) / (j + 1) * ratio
        j += 1
        upper.append(value)
    lower: list[float] = []
    value, j = peak, mode
    while j > 0 and value > _NEGLIGIBLE:
        value *= j / ((n - j + 1) * ratio)
        j -= 1
        lower.append(value)
    return mode - len(lower), lower[::-1] + upper
