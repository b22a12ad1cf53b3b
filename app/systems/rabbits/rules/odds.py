"""Exact odds of passing an independent test, with or without Fate (RULINGS.md, "Rabbits")."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

from app.systems.rabbits.rules.errors import MAX_POOL, check_count

_HALF = Fraction(1, 2)
# One exploding die: 1–3 fails, 4–5 succeeds, 6 succeeds and brings a new die (Fate rerolls it).
_PLAIN_SUCCESS = Fraction(1, 3)
_SIX = Fraction(1, 6)


@cache
def _exploding_at_least(dice: int, needed: int) -> Fraction:
    """P(`dice` exploding dice give at least `needed` successes). Each step uses up a die or a needed
    success (a 6 does both and adds a die back), so the recursion ends and the answer is exact.
    """
    if needed <= 0:
        return Fraction(1)
    if dice == 0:
        return Fraction(0)
    return (
        _HALF * _exploding_at_least(dice - 1, needed)
        + _PLAIN_SUCCESS * _exploding_at_least(dice - 1, needed - 1)
        + _SIX * _exploding_at_least(dice, needed - 1)
    )


def _plain_at_least(dice: int, needed: int) -> Fraction:
    if needed <= 0:
        return Fraction(1)
    return Fraction(sum(comb(dice, hits) for hits in range(needed, dice + 1)), 2**dice)


def exact_pass_chance(pool: int, ob: int, *, with_fate: bool = False) -> Fraction:
    """The exact chance that `pool` dice pass Ob `ob` (rabbits.en.md, "Tests").

    with_fate: Fate is spent on the roll, so every 6 explodes open-endedly (rabbits.en.md, "Rewards").
    New dice only add successes, so spending Fate is never worse and this is the chance with Fate in hand.
    """
    check_count(pool, "pool", 0, MAX_POOL)
    # Beyond the pool budget an Ob can be met only with Fate, at vanishing odds; the cap bounds the work.
    check_count(ob, "ob", 0, MAX_POOL)
    if with_fate:
        # Fill the cache bottom-up so a big pool never recurses deeply.
        for needed in range(ob + 1):
            _exploding_at_least(pool, needed)
        return _exploding_at_least(pool, ob)
    return _plain_at_least(pool, ob)
