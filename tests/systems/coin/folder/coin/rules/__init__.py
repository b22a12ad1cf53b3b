"""The pure rules of Coins: imports nothing of the app; the dice come in as an argument."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from app.rules.dice import Dice

HEADS = 2  # a coin is a d2: 2 is heads


@dataclass(frozen=True)
class Flip:
    faces: list[int]
    heads: int
    success: bool


def flip(dice: Dice, coins: int, needed: int) -> Flip:
    faces = [dice.roll(2) for _ in range(coins)]
    heads = sum(1 for f in faces if f == HEADS)
    return Flip(faces, heads, heads >= needed)


def chance(coins: int, needed: int) -> Fraction:
    """The exact chance of at least `needed` heads in `coins` fair flips."""
    return Fraction(sum(comb(coins, k) for k in range(max(needed, 0), coins + 1)), 2**coins)
