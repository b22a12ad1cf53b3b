"""The generic dice roller: any dice expression, for any campaign (app/rules/notation.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.rules import notation
from app.rules.dice import Dice
from app.systems.base import Action, ActionError, Odds, RecordingDice, Resolution, RuleSystem


class DiceSheet(BaseModel):
    notes: str = Field(default="", max_length=5000)


class RollParams(BaseModel):
    expression: str = Field(min_length=1, max_length=200)


def _parse(expression: str) -> Any:
    try:
        return notation.parse(expression)
    except notation.NotationError as exc:
        raise ActionError(str(exc), field="expression") from exc


def resolve_roll(sheet: dict[str, Any], params: RollParams, dice: Dice) -> Resolution:
    expr = _parse(params.expression)
    recorder = RecordingDice(dice)
    result = notation.roll(expr, recorder)
    canonical = notation.canonical(expr)
    return Resolution(
        request={"expression": params.expression},
        dice=recorder.rolled,
        outcome={"total": result.total, "expression": canonical, "detail": result.render()},
        summary=f"rolled {result.render()}",
    )


def roll_odds(sheet: dict[str, Any], params: RollParams) -> Odds:
    expr = _parse(params.expression)
    odds = notation.describe_odds(expr)
    if odds["mean"] is None:  # over the odds budget (app/rules/notation/odds.py, ODDS_BUDGET)
        return Odds(text=f"{odds['min']}–{odds['max']}; too many dice to work out the average here — roll it to see",
                    details={"min": odds["min"], "max": odds["max"], "mean": None})
    return Odds(
        text=f"{odds['min']}–{odds['max']}, average {odds['mean']:g}",
        details={"min": odds["min"], "max": odds["max"], "mean": odds["mean"]},
    )


SYSTEM = RuleSystem(
    id="dice",
    name="Dice",
    description="Generic dice expressions: 2d6+1, 4d6kh3, 3d6!, 6d6>=4, d%.",
    rulings=(
        "NdS rolls N dice with S sides (N defaults to 1); d% is one d100, where 00 counts as 100.",
        "kh/kl keep the highest/lowest N dice, dh/dl drop them; dropped dice are shown struck through.",
        "! explodes: a die showing its maximum is rolled again and added; at most 100 extra dice per term.",
        ">=, >, <=, <, = count the dice that meet the condition (after keep/drop) instead of adding them.",
        "At most 1,000 dice and 1,000 sides per expression, 20 terms and 200 characters.",
    ),
    sheet=DiceSheet,
    actions={
        "roll": Action(
            id="roll", name="Roll dice", params=RollParams, resolve=resolve_roll, odds=roll_odds,
            needs_character=False,
        ),
    },
)
