"""Odds before rolling: bounds, the exact mean, and the summary the roll page shows.

One die's distribution comes first (dist: its rerolls, with the reroll cap, and min/max). Then per node:

* a dice term without explosions: n times one die's mean; keep/drop through order statistics (kept.py,
  order_stats.py).
* exploding (`!`): the term's pool is a mixture of shapes (m dice that explode, o that do not) with the per-term
  cap exactly (die.py: explosion_shapes); dice that explode and dice that do not are two classes of identical dice,
  so keep/drop is order statistics over two classes (cheap when the exploding faces are the top ones, as `!` and
  `!>4` are).
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

Modules: limits (budgets, exceptions), die (one die, explosions), kept (order statistics over classes of dice),
distributions (pmfs), ranges (bounds), analysis (the walk over the tree: means and pmfs); here the public functions.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from app.rules.notation.errors import EXPLOSION_CAP
from app.rules.notation.odds.analysis import Odds
from app.rules.notation.odds.die import die_pmf
from app.rules.notation.odds.limits import Budget, OverBudget, Unsupported
from app.rules.notation.odds.ranges import bounds_of
from app.rules.notation.parser import as_expression
from app.rules.notation.tree import Expression

# Work units one describe_odds call may spend, all nodes together, besides the terms' shared exact attempts
# (limits.EXACT_TOTAL): at most about a second of CPU whatever the number of terms (tests/rules/test_notation_trial.py).
ODDS_BUDGET = 100_000

# die_pmf: bench/notation.py clears its cache (and _describe's) to time the cold cost.
__all__ = ["ODDS_BUDGET", "OverBudget", "Unsupported", "bounds", "describe_odds", "die_pmf", "mean"]


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
        return Odds(Budget(budget), explosion_cap).mean(as_expression(expr).root).value
    except (Unsupported, OverBudget):
        return None


def describe_odds(expr: Expression | str, *, explosion_cap: int = EXPLOSION_CAP) -> dict[str, object]:
    """What the roll page shows before rolling: min, max (None when a divisor can be 0; the practical range: never a
    face that `r` rerolls), `theory` (the range counting those faces, when it differs, else None), mean (2
    decimals; None past ODDS_BUDGET or without a method), whether it is exact, the chance the method leaves out
    (`remainder`), and whether the roll can divide by 0."""
    return dict(_describe(as_expression(expr), explosion_cap))


def _number(value: Fraction) -> int | float:
    return value.numerator if value.denominator == 1 else float(value)


@lru_cache(maxsize=1024)
def _describe(parsed: Expression, cap: int) -> dict[str, object]:
    odds = Odds(Budget(ODDS_BUDGET), cap)
    low: int | float | None
    high: int | float | None
    theory: tuple[int | float, int | float] | None = None
    try:
        found = bounds_of(parsed.root, cap, practical=True)
        low, high = _number(found[0]), _number(found[1])
        possible = bounds_of(parsed.root, cap)
        if possible != found:  # `r`'s cap: a rerolled face stays only after REROLL_CAP rerolls showing it again
            theory = (_number(possible[0]), _number(possible[1]))
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
        "theory": theory,
        "mean": value,
        "exact": exact,
        "text": str(parsed),
        "remainder": remainder,
        "divides_by_zero": odds.divides_by_zero,
    }
