"""Dice: the protocol every rule takes, the secure roller, and scripted dice for tests and replays."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Protocol, runtime_checkable


class DiceError(Exception):
    """Scripted dice were misused (ran out, or a face does not fit the die)."""


@runtime_checkable
class Dice(Protocol):
    def roll(self, sides: int) -> int:
        """One die with `sides` faces: a whole number in 1..sides. A d100 is roll(100); 100 means "00"."""
        ...


class SecureDice:
    """The server's dice: the operating system's CSPRNG, so no player can predict a roll."""

    def __init__(self) -> None:
        self._rng = secrets.SystemRandom()
        self.faces: list[tuple[int, int]] = []

    def roll(self, sides: int) -> int:
        if sides < 1:
            raise DiceError(f"a die needs at least 1 side, not {sides}")
        face = self._rng.randint(1, sides)
        self.faces.append((sides, face))
        return face


class ScriptedDice:
    """Returns the given faces in order; raises if asked for more, or for a face the die cannot show."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0
        self.faces: list[tuple[int, int]] = []

    def roll(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise DiceError(f"scripted dice ran out after {len(self._faces)} rolls (asked for a d{sides})")
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise DiceError(f"scripted face {face} (roll #{self._next + 1}) cannot come up on a d{sides}")
        self._next += 1
        self.faces.append((sides, face))
        return face

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._next
