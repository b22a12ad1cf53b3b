"""What a rule system gives the app: its sheet, its actions, and pure resolve/odds functions.

Nothing here does I/O: the rules service (app/rolls/service.py) loads the sheet, calls `resolve`
with the server's dice, and writes the log entry and the sheet changes in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from app.rules.dice import Dice


class ActionError(ValueError):
    """A request the rules refuse (e.g. a bad expression). `field` names the form field to blame."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class RecordingDice:
    """Wraps the dice so the log can show every face in the order it was rolled."""

    def __init__(self, dice: Dice) -> None:
        self._dice = dice
        self.rolled: list[dict[str, int]] = []

    def roll(self, sides: int) -> int:
        face = self._dice.roll(sides)
        self.rolled.append({"sides": sides, "face": face})
        return face


@dataclass(frozen=True)
class Resolution:
    request: dict[str, Any]
    dice: list[dict[str, int]]
    outcome: dict[str, Any]
    summary: str
    # The new sheet (whole), or None when the action does not change it.
    sheet: dict[str, Any] | None = None


@dataclass(frozen=True)
class Odds:
    """What the page shows before rolling. `chance` is exact where the action has one."""

    chance: float | None = None
    text: str = ""
    details: dict[str, Any] = field(default_factory=dict)


Resolve = Callable[[dict[str, Any], Any, Dice], Resolution]
OddsFn = Callable[[dict[str, Any], Any], Odds | None]


@dataclass(frozen=True)
class Action:
    id: str
    name: str
    params: type[BaseModel]
    resolve: Resolve
    odds: OddsFn | None = None
    needs_character: bool = True


@dataclass(frozen=True)
class RuleSystem:
    id: str
    name: str
    sheet: type[BaseModel]
    actions: Mapping[str, Action]
    description: str = ""

    def default_sheet(self) -> dict[str, Any]:
        return self.sheet().model_dump(mode="json")
