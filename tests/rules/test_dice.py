"""The Dice protocol, the secure roller and scripted dice."""

from __future__ import annotations

import pytest

from app.rules.dice import Dice, DiceError, ScriptedDice, SecureDice


def test_scripted_dice_return_faces_in_order_and_refuse_more() -> None:
    dice = ScriptedDice([3, 6, 100])
    assert isinstance(dice, Dice)
    assert [dice.roll(6), dice.roll(6), dice.roll(100)] == [3, 6, 100]
    with pytest.raises(DiceError, match="ran out after 3 rolls"):
        dice.roll(6)


def test_scripted_dice_refuse_a_face_the_die_cannot_show() -> None:
    with pytest.raises(DiceError, match="cannot come up on a d6"):
        ScriptedDice([7]).roll(6)
    with pytest.raises(DiceError):
        ScriptedDice([0]).roll(6)


def test_secure_dice_cover_every_face_and_only_those() -> None:
    dice = SecureDice()
    faces = {dice.roll(6) for _ in range(2000)}
    assert faces == {1, 2, 3, 4, 5, 6}
    assert all(1 <= dice.roll(100) <= 100 for _ in range(500))
    with pytest.raises(DiceError):
        dice.roll(0)
