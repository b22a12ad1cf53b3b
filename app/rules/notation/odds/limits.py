"""What the odds may cost and where they stop: the work budgets, OverBudget and Unsupported, the types."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

# Work units (roughly one big-number operation each) a dice term's exact mean may cost before it is worked out in
# floats instead; every term of up to 10 dice fits.
EXACT_BUDGET = 100_000
# ... and what all the terms of one expression may spend on exact attempts together (analysis.Odds.exact_left).
EXACT_TOTAL = 2 * EXACT_BUDGET

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
