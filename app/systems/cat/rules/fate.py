"""Cat: a Risk (cat.txt, "Testing Fate", "Scars", "Lives", "Style"; rulings 2 and 3) and its exact odds."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from app.rules.dice import Dice
from app.rules.text import N_
from app.systems.cat.rules import (
    DIFFICULTY_EVENS,
    MAX_POOL,
    CatRuleError,
    _check_count,
    _check_pool,
    _evens,
    _lowest_odd,
    _roll,
)


def _needed(difficulty: object) -> int:
    if difficulty not in DIFFICULTY_EVENS:
        raise CatRuleError(
            "difficulty", N_("Unknown difficulty {difficulty!r}; choose easy, moderate or hard."), difficulty=difficulty
        )
    assert isinstance(difficulty, str)
    return DIFFICULTY_EVENS[difficulty]


@dataclass(frozen=True)
class FateResult:
    """One Risk. `evens` includes `style_spent`; `scars` go where the player explains (cat.txt)."""

    difficulty: str
    needed: int
    faces: tuple[int, ...]
    style_spent: int
    evens: int
    success: bool
    style_gained: int
    dangerous: bool
    scars: int
    life_spent: bool


def test_fate(
    dice: Dice,
    pool: int,
    difficulty: str,
    *,
    style_points: int = 0,
    dangerous: bool = False,
    spend_life: bool = False,
) -> FateResult:
    """cat.txt, "Testing Fate", "Scars", "Lives", "Style"; rulings 2 and 3.

    Evens beyond those needed become Style (banked Style points spent on the roll count
    too, so any not needed come back). A failed dangerous Risk scars by its lowest odd
    die. A spent Life wins the Risk outright: no roll, so no Style gained and no scars.
    """
    needed = _needed(difficulty)
    _check_count(style_points, "style_points")
    if spend_life:
        if style_points:
            raise CatRuleError("style_points", N_("A Life already wins this Risk; keep the Style points for later."))
        # "Regardless of your Trait": the pool is never rolled, so even a Crippled Trait may be named.
        _check_count(pool, "pool", 0, MAX_POOL)
        return FateResult(
            difficulty=difficulty,
            needed=needed,
            faces=(),
            style_spent=0,
            evens=0,
            success=True,
            style_gained=0,
            dangerous=dangerous,
            scars=0,
            life_spent=True,
        )
    faces = _roll(dice, _check_pool(pool, "pool"))
    evens = _evens(faces) + style_points
    success = evens >= needed
    return FateResult(
        difficulty=difficulty,
        needed=needed,
        faces=faces,
        style_spent=style_points,
        evens=evens,
        success=success,
        style_gained=max(0, evens - needed),
        dangerous=dangerous,
        scars=_lowest_odd(faces) if dangerous and not success else 0,
        life_spent=False,
    )


# The name is the rules' own; this keeps pytest from collecting it when a test imports it.
test_fate.__test__ = False  # type: ignore[attr-defined]  # pytest's own marker attribute, set on a function


def exact_success_chance(pool: int, needed: int, style_points: int = 0) -> Fraction:
    """Exact chance that `pool` d6 plus `style_points` automatic evens reach `needed` evens."""
    _check_count(pool, "pool", 0, MAX_POOL)
    _check_count(needed, "needed")
    _check_count(style_points, "style_points")
    target = needed - style_points
    if target <= 0:
        return Fraction(1)
    ways = sum(comb(pool, k) for k in range(target, pool + 1))
    return Fraction(ways, 2**pool)
