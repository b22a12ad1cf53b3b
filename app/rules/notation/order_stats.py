"""Expected sums over the lowest r of b independent uniform dice (order statistics).

For dice uniform on 1..faces and a per-face score g, the r-th lowest die X(r) satisfies
P(X(r) <= x) = P(Binomial(b, x/faces) >= r), so by summation by parts

    E[g(X(r))] = sum over x of (g(x) - g(x+1)) * P(Binomial(b, x/faces) >= r),   g(faces+1) = 0.

Callers pass those differences as `steps` (x -> g(x) - g(x+1), nonzero entries only): a face-sum has
one step per face, a success count only one or two, which keeps counting cheap.
"""

from __future__ import annotations

import math

# Float mode ignores binomial probabilities this far below the mode; they cannot move a mean
# that is shown to two decimals (and stay far below 1e-12 even summed over every rank).
_NEGLIGIBLE = 1e-22


def lowest_sums_exact(b: int, faces: int, steps: dict[int, int]) -> tuple[list[int], int]:
    """E[sum of g over the lowest r of b dice] for r = 0..b, as integer numerators over faces**b.

    Numerators rather than fractions: callers need only a few ranks, and normalising a fraction of
    numbers this large costs far more than the sums themselves.
    """
    whole = faces**b
    per_rank = [0] * (b + 1)
    for x, step in steps.items():
        if x == faces:
            # Every die is <= the top face, so the tail probability is 1 for every rank.
            for rank in range(1, b + 1):
                per_rank[rank] += step * whole
            continue
        tail = 0
        terms = _binomial_counts(b, x, faces)
        for rank in range(b, 0, -1):
            tail += terms[rank]
            per_rank[rank] += step * tail
    sums = [0]
    for rank in range(1, b + 1):
        sums.append(sums[-1] + per_rank[rank])
    return sums, whole


def _binomial_counts(b: int, x: int, faces: int) -> list[int]:
    """C(b, j) x^j (faces-x)^(b-j) for j = 0..b: outcomes with exactly j dice at or below x."""
    other = faces - x
    term = other**b
    counts = [term]
    for j in range(b):
        # Exact: the quotient is the next count, and the numerator is that count times the divisor.
        term = term * (b - j) * x // ((j + 1) * other)
        counts.append(term)
    return counts


def lowest_sums_float(b: int, faces: int, steps: dict[int, float]) -> list[float]:
    """Float twin of lowest_sums_exact, skipping negligible binomial tails, for terms too big to do exactly."""
    per_rank = [0.0] * (b + 2)
    below_window = [0.0] * (b + 2)  # difference array: a step added to every rank 1..lo
    for x, step in steps.items():
        if x == faces:
            below_window[1] += step
            below_window[b + 1] -= step
            continue
        low, pmf = _binomial_window(b, x / faces)
        below_window[1] += step
        below_window[low + 1] -= step
        tail = 0.0
        for offset in range(len(pmf) - 1, 0, -1):
            tail += pmf[offset]
            per_rank[low + offset] += step * tail
    sums = [0.0]
    running = 0.0
    level = 0.0
    for rank in range(1, b + 1):
        level += below_window[rank]
        running += per_rank[rank] + level
        sums.append(running)
    return sums


def _binomial_window(n: int, p: float) -> tuple[int, list[float]]:
    """(low, pmf) with pmf[i] = P(Binomial(n, p) = low + i) over the non-negligible range."""
    mode = min(n, int((n + 1) * p))
    log_peak = (
        math.lgamma(n + 1) - math.lgamma(mode + 1) - math.lgamma(n - mode + 1)
        + mode * math.log(p) + (n - mode) * math.log1p(-p)
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
