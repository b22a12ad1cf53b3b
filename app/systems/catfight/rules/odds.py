"""The exact chances the duel page shows before a DEFEND or a JUMP (the plus-minus d6 with its confirmation rolls)."""

from __future__ import annotations

from fractions import Fraction

from app.systems.catfight.rules import _signed


def exact_defend_chance(defend: int, attack_value: int) -> Fraction:
    """DEFEND: chance that DEFEND + pm d6 >= the changed ATTACK value; lucky fate parries, unlucky cat fails."""
    sixth = Fraction(1, 6)
    chance = Fraction(0)
    for face in range(1, 7):
        succeeds = Fraction(int(defend + _signed(face) >= attack_value))
        if face >= 5:  # a confirmation roll follows; only the same face again is a critical
            succeeds = sixth * int(face == 6) + (1 - sixth) * succeeds
        chance += sixth * succeeds
    return chance


def exact_jump_chance(defender_jump: int, attacker_jump: int) -> Fraction:
    """JUMP: chance the defender's JUMP + pm d6 beats the attacker's, given no tie (ties roll again)."""
    wins = ties = 0
    for mine in range(1, 7):
        for theirs in range(1, 7):
            margin = defender_jump + _signed(mine) - attacker_jump - _signed(theirs)
            wins += margin > 0
            ties += margin == 0
    return Fraction(wins, 36 - ties)
