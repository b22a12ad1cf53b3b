"""Odds before rolling: bounds, the exact mean, and the summary the roll page shows.

Every dice term is seen as a mixture of pool shapes. Rolling stops after D = min(T, count + cap)
dice, where T is the roll on which the count-th non-maximum face appears (each maximum adds a die
until `cap` have been added). So a shape is (maxes, others): `maxes` dice on the top face and
`others` dice uniform on the lower faces (on all faces when the term does not explode):

* fewer than `cap` explosions (m = 0..cap-1): (m, count), probability C(count+m-1, m) p^m q^count;
* the cap reached: the first count+cap-1 dice hold j < count lower faces and the last die is free:
  (count+cap-j, j) with probability C(count+cap-1, j) q^j p^(count+cap-j), or
  (count+cap-1-j, j+1) with probability C(count+cap-1, j) q^(j+1) p^(count+cap-1-j).

Maximum faces sort above every lower face, so keep/drop takes whole maxima first (keeping high) or
last (keeping low), and the lower dice left in play are a top or bottom slice of i.i.d. dice, whose
expected sum or success count comes from order statistics (order_stats.py). The mean is exact
whenever that work fits EXACT_BUDGET, which covers every term of up to 10 dice; bigger terms use the
same formulas in floating point (agreeing with the exact value to about 1e-9, relative) and
describe_odds reports exact=False for them.

describe_odds answers requests, so it keeps to a work budget for the whole expression (ODDS_BUDGET,
at most about 75 ms of CPU): past it the bounds are still given, the mean is None ("roll it to see"), and
nothing is computed. Its answers are cached on the parsed expression (pure input).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import TypeVar, cast

from app.rules.notation.errors import EXPLOSION_CAP
from app.rules.notation.order_stats import lowest_sums_exact, lowest_sums_float
from app.rules.notation.parser import as_expression
from app.rules.notation.tree import DiceTerm, Expression, Term

# Work units (see _exact_cost, _float_cost; one unit is 0.2 to 0.5 µs of CPU, measured) a term may cost
# before its mean switches from fractions to floats. No term of up to 10 dice costs more than about 55,000.
EXACT_BUDGET = 100_000
# Work units one describe_odds call may spend on means, all terms together: at most about 75 ms.
ODDS_BUDGET = 150_000

Number = TypeVar("Number", Fraction, float)
Weight = TypeVar("Weight", int, float)
Shape = tuple[int, int]  # (dice showing the top face, dice uniform on the lower faces)


def bounds(expr: Expression | str, *, explosion_cap: int = EXPLOSION_CAP) -> tuple[int, int]:
    """The lowest and highest total the expression can roll (exploding dice limited by the cap)."""
    low = high = 0
    for term in as_expression(expr).terms:
        term_low, term_high = _term_bounds(term, explosion_cap)
        if term.sign > 0:
            low, high = low + term_low, high + term_high
        else:
            low, high = low - term_high, high - term_low
    return low, high


def mean(expr: Expression | str, *, explosion_cap: int = EXPLOSION_CAP) -> Fraction:
    """The expected total: exact for every term within EXACT_BUDGET (all terms of up to 10 dice)."""
    return _mean(as_expression(expr), explosion_cap)[0]


def describe_odds(expr: Expression | str, *, explosion_cap: int = EXPLOSION_CAP) -> dict[str, object]:
    """What the roll page shows before rolling: min, max, mean (2 decimals), and whether the mean is exact.
    Over ODDS_BUDGET the mean is None (and exact False): too many dice to work it out per request."""
    return dict(_describe(as_expression(expr), explosion_cap))


@lru_cache(maxsize=1024)
def _describe(parsed: Expression, cap: int) -> dict[str, object]:
    low, high = bounds(parsed, explosion_cap=cap)
    cost = sum(_dice_cost(replace(t, sign=1), cap) for t in parsed.terms if isinstance(t, DiceTerm))
    if cost > ODDS_BUDGET:
        return {"min": low, "max": high, "mean": None, "exact": False, "text": str(parsed)}
    expected, exact = _mean(parsed, cap)
    return {"min": low, "max": high, "mean": round(float(expected), 2), "exact": exact, "text": str(parsed)}


def _mean(expr: Expression, cap: int) -> tuple[Fraction, bool]:
    total = Fraction(0)
    exact = True
    for term in expr.terms:
        if isinstance(term, DiceTerm):
            value, term_exact = _dice_mean(replace(term, sign=1), cap)
            exact = exact and term_exact
        else:
            value = Fraction(term.value)
        total += term.sign * value
    return total, exact


def _term_bounds(term: Term, cap: int) -> tuple[int, int]:
    if not isinstance(term, DiceTerm):
        return term.value, term.value
    lower = _lower_faces(term)
    top = _score(term, term.sides)
    lower_scores = [_score(term, face) for face in range(1, lower + 1)]
    least, most = min(lower_scores), max(lower_scores)
    lows, highs = [], []
    for maxes, others in _shapes(term, cap):
        kept_max, kept_others, _ = _kept(term, maxes, others)
        lows.append(kept_max * top + kept_others * least)
        highs.append(kept_max * top + kept_others * most)
    return min(lows), max(highs)


def _shapes(term: DiceTerm, cap: int) -> list[Shape]:
    """Every pool shape a term can roll, in the order _shape_weights_* give their probabilities."""
    count = term.count
    if not term.explode:
        return [(0, count)]
    shapes = [(m, count) for m in range(cap)]
    for j in range(count):
        shapes += [(count + cap - j, j), (count + cap - 1 - j, j + 1)]
    return shapes


def _shape_weights_exact(term: DiceTerm, cap: int) -> tuple[list[int], int]:
    """Probabilities of the shapes as integer numerators over one common denominator."""
    count, sides = term.count, term.sides
    if not term.explode:
        return [1], 1
    numerators = [math.comb(count + m - 1, m) * (sides - 1) ** count * sides ** (cap - m) for m in range(cap)]
    for j in range(count):
        base = math.comb(count + cap - 1, j) * (sides - 1) ** j
        numerators += [base, base * (sides - 1)]
    return numerators, sides ** (count + cap)


def _shape_weights_float(term: DiceTerm, cap: int) -> list[float]:
    count, sides = term.count, term.sides
    if not term.explode:
        return [1.0]
    log_p, log_q = -math.log(sides), math.log1p(-1 / sides)
    weights = [math.exp(_log_comb(count + m - 1, m) + m * log_p + count * log_q) for m in range(cap)]
    rolls = count + cap - 1
    for j in range(count):
        base = _log_comb(rolls, j) + j * log_q + (rolls - j) * log_p
        weights += [math.exp(base + log_p), math.exp(base + log_q)]
    return weights


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _kept(term: DiceTerm, maxes: int, others: int) -> tuple[int, int, bool]:
    """(top faces kept, lower dice kept, whether the lower dice kept are the highest of them)."""
    if term.keep is None:
        return maxes, others, True
    wanted = term.keep.kept_of(maxes + others)
    if term.keep.from_top:
        kept_max = min(maxes, wanted)
        return kept_max, wanted - kept_max, True
    kept_others = min(others, wanted)
    return wanted - kept_others, kept_others, False


def _lower_faces(term: DiceTerm) -> int:
    """How many faces the 'other' dice are uniform on: all but the top one when the top face explodes."""
    return term.sides - 1 if term.explode else term.sides


def _score(term: DiceTerm, face: int) -> int:
    """What one kept die adds: its face, or 1/0 for a success/failure when the term counts successes."""
    if term.condition is None:
        return face
    return int(term.condition.met_by(face))


def _plan(term: DiceTerm, cap: int) -> tuple[list[Shape], dict[int, int], set[int], int]:
    """(shapes, score steps, partly kept pool sizes, exact cost) of one positive dice term."""
    shapes = _shapes(term, cap)
    lower = _lower_faces(term)
    steps = _score_steps(term, lower)
    # Pool sizes whose lower dice are only partly kept: those need order statistics.
    slices = {others for maxes, others in shapes if 0 < _kept(term, maxes, others)[1] < others}
    cost = _exact_cost(len(shapes), len(steps), slices, lower)
    # The shapes' weights are integers of about (count + cap) * log2(sides) bits each.
    cost += len(shapes) * (term.count + (cap if term.explode else 0)) * term.sides.bit_length() // 100
    return shapes, steps, slices, cost


@lru_cache(maxsize=256)
def _dice_mean(term: DiceTerm, cap: int) -> tuple[Fraction, bool]:
    """Expected value of one (positive) dice term, and whether it was computed exactly."""
    shapes, steps, slices, cost = _plan(term, cap)
    if cost <= EXACT_BUDGET:
        return _exact_mean(term, cap, shapes, steps, slices), True
    return _float_mean(term, cap, shapes, steps, slices), False


@lru_cache(maxsize=1024)
def _dice_cost(term: DiceTerm, cap: int) -> int:
    """The work _dice_mean does for this term: its exact cost, or its float cost past EXACT_BUDGET."""
    shapes, steps, slices, cost = _plan(term, cap)
    return cost if cost <= EXACT_BUDGET else _float_cost(term, cap, shapes, steps, slices)


def _float_cost(term: DiceTerm, cap: int, shapes: list[Shape], steps: dict[int, int], slices: set[int]) -> int:
    """Rough work of the float method: the binomial windows it walks (at most about 21 standard
    deviations wide, see order_stats._NEGLIGIBLE) for every score step of every likely pool size."""
    weights = _shape_weights_float(term, cap)
    needed = {others for (_, others), weight in zip(shapes, weights) if weight > 1e-18 and others in slices}
    lower = _lower_faces(term)
    work = len(shapes)
    for others in needed:
        for face in steps:
            p = face / lower
            work += min(others + 1, int(21 * math.sqrt(others * p * (1 - p))) + 3)
    return work


def _exact_mean(term: DiceTerm, cap: int, shapes: list[Shape], steps: dict[int, int], slices: set[int]) -> Fraction:
    lower = _lower_faces(term)
    numerators, denominator = _shape_weights_exact(term, cap)
    lowest = {others: lowest_sums_exact(others, lower, steps) for others in slices}

    def lowest_sum(others: int, rank: int) -> Fraction:
        sums, whole = lowest[others]
        return Fraction(sums[rank], whole)

    mean_score = Fraction(_total_score(term, lower), lower)
    return _mixture(term, shapes, numerators, lowest_sum, mean_score) / denominator


def _float_mean(term: DiceTerm, cap: int, shapes: list[Shape], steps: dict[int, int], slices: set[int]) -> Fraction:
    lower = _lower_faces(term)
    # Shapes this unlikely cannot move the mean by more than about 1e-12, even at the largest scores.
    likely = [(shape, weight) for shape, weight in zip(shapes, _shape_weights_float(term, cap)) if weight > 1e-18]
    float_steps = {face: float(step) for face, step in steps.items()}
    needed = {others for (_, others), _ in likely if others in slices}
    lowest = {others: lowest_sums_float(others, lower, float_steps) for others in needed}
    value = _mixture(
        term,
        [shape for shape, _ in likely],
        [weight for _, weight in likely],
        lambda others, rank: lowest[others][rank],
        _total_score(term, lower) / lower,
    )
    return Fraction(value).limit_denominator(10**9)


def _total_score(term: DiceTerm, lower: int) -> int:
    return sum(_score(term, face) for face in range(1, lower + 1))


def _exact_cost(shapes: int, steps: int, slices: set[int], lower: int) -> int:
    """Rough work of the exact method: binomial terms, weighted by how long their numbers grow."""
    return shapes + steps * sum(others * (1 + others * lower.bit_length() // 300) for others in slices)


def _mixture(
    term: DiceTerm,
    shapes: Sequence[Shape],
    weights: Sequence[Weight],
    lowest: Callable[[int, int], Number],
    mean_score: Number,
) -> Number:
    """Sum over pool shapes of weight times the expected kept score of that shape.

    Weights are summed per kind of contribution first, so only a handful of (possibly huge)
    fractions are ever multiplied.
    """
    top_weight: Weight = 0
    whole_weight: Weight = 0
    slice_weights: dict[tuple[int, int, bool], Weight] = defaultdict(int)
    for (maxes, others), weight in zip(shapes, weights):
        kept_max, kept_others, high = _kept(term, maxes, others)
        top_weight += weight * kept_max
        if kept_others == others:
            whole_weight += weight * others
        elif kept_others:
            slice_weights[others, kept_others, high] += weight
    total = mean_score * whole_weight + _score(term, term.sides) * top_weight
    for (others, kept_others, high), weight in slice_weights.items():
        # The highest k of the lower dice are all of them minus the lowest (others - k).
        part = others * mean_score - lowest(others, others - kept_others) if high else lowest(others, kept_others)
        total += weight * part
    # Callers pair Fraction scores with int weights and float scores with float weights; mypy also tries
    # Fraction with float weights, whose product is a float.
    return cast(Number, total)


def _score_steps(term: DiceTerm, lower: int) -> dict[int, int]:
    """g(x) - g(x+1) over the lower faces, with g(lower+1) taken as 0; zero steps left out."""
    steps = {}
    for face in range(1, lower + 1):
        following = _score(term, face + 1) if face < lower else 0
        step = _score(term, face) - following
        if step:
            steps[face] = step
    return steps
