"""Rolling a dice expression (app/rules/notation.py): the params, the roll and its odds."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, join, msg, msgn, number, retire, rule_message
from app.rules import notation
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Odds, RecordingDice, Resolution


class RollParams(BaseModel):
    expression: str = Field(min_length=1, max_length=200)


def _parse(expression: str) -> Any:
    try:
        return notation.parse(expression)
    except notation.NotationError as exc:
        raise ActionError(rule_message(exc), field="expression") from exc


def resolve_roll(sheet: dict[str, Any], params: RollParams, dice: Dice, ctx: Context) -> Resolution:
    expr = _parse(params.expression)
    recorder = RecordingDice(dice)
    result = notation.roll(expr, recorder)
    canonical = notation.canonical(expr)
    return Resolution(
        request={"expression": params.expression},
        dice=recorder.rolled,
        outcome={"total": result.total, "expression": canonical, "detail": result.render()},
        summary=msg("rolled {detail}", detail=_detail(result)),
    )


# Entries logged before the count had plural forms (one msgid per form).
retire("({n} success)", lambda a: msgn("({n} success)", "({n} successes)", a["n"]))
retire("({n} successes)", lambda a: msgn("({n} success)", "({n} successes)", a["n"]))


def _detail(result: notation.RollResult) -> Summary:
    """The roll as render() writes it ("6d6>=4 [5*, 2, 4*, 1, 6*, 3] (3 successes) = 3"), its words ("3 successes",
    "explosion cap reached") as messages, so each reader reads them in their language; without words, the text."""
    if all(term.successes is None and not term.capped for term in result.terms):
        return result.render()
    parts: list[Any] = []
    for index, term in enumerate(result.terms):
        parts.append(("-" if term.sign < 0 else "") if index == 0 else (" - " if term.sign < 0 else " + "))
        parts.append(notation.faces_text(term))
        if term.successes is not None:
            parts += [" ", msgn("({n} success)", "({n} successes)", term.successes)]
        if term.capped:
            parts += [" ", msg(N_("(explosion cap reached)"))]
    parts.append(f" = {result.total}")
    return join(parts, "")


def roll_odds(sheet: dict[str, Any], params: RollParams, ctx: Context) -> Odds:
    expr = _parse(params.expression)
    odds = notation.describe_odds(expr)
    mean = odds["mean"]
    if not isinstance(mean, int | float):  # None: over the odds budget (app/rules/notation/odds.py, ODDS_BUDGET)
        return Odds(text=_("{low}–{high}; too many dice to work out the average here — roll it to see").format(
                        low=odds["min"], high=odds["max"]),
                    details={"min": odds["min"], "max": odds["max"], "mean": None})
    details: dict[str, Any] = {"min": odds["min"], "max": odds["max"], "mean": odds["mean"]}
    if isinstance(odds["max"], (int, float)) and odds["max"] <= 0 and any(sign in params.expression for sign in "<>="):
        # Counting successes against a target no die can reach (e.g. 6d6>=7): always 0.
        details["warning"] = _("No die can meet that target: this roll can never succeed.")
    return Odds(text=_("{low}–{high}, average {mean}").format(low=odds["min"], high=odds["max"],
                                                              mean=number(mean, digits=4)), details=details)
