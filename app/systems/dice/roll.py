"""Rolling a dice expression (app/rules/notation, docs/NOTATION.md): the params, the roll, its reading and odds.

The expression may end with a note (`2d6+1 # sneak`, Roll20's `1d20+5 Roll for Initiative`): it becomes the
entry's note (after the roll's own note field, when both are given). Each die's marks (rerolled, dropped,
exploded, success, failure) go into the outcome beside the recorded dice, so the log shows what happened to each.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, gettext, join, msg, msgn, number, retire, rule_message
from app.rules import notation
from app.rules.dice import Dice
from app.rules.notation.tree import walk
from app.systems.base import ActionError, Context, Odds, Resolution
from app.systems.dice.sheet import DiceSheet

# The formula, then a note of up to MAX_NOTE characters (and a separator).
MAX_EXPRESSION = notation.MAX_LENGTH + notation.MAX_NOTE + 20


class RollParams(BaseModel):
    expression: str = Field(min_length=1, max_length=MAX_EXPRESSION)


def _parse(expression: str) -> notation.Expression:
    try:
        return notation.parse(expression)
    except notation.NotationError as exc:
        raise ActionError(rule_message(exc), field="expression") from exc


def resolve_roll(sheet: DiceSheet, params: RollParams, dice: Dice, ctx: Context[DiceSheet]) -> Resolution[DiceSheet]:
    expr = _parse(params.expression)
    try:
        result = notation.roll(expr, dice)
    except notation.RollError as exc:
        raise ActionError(rule_message(exc), field="expression") from exc
    outcome: dict[str, Any] = {
        "total": total_value(result.total),
        "expression": notation.canonical(expr),
        "detail": result.render(),
        "marks": [list(roll.marks) + (["fate"] if roll.fate else []) for roll in result.rolls],
    }
    if any(roll.value != roll.raw for roll in result.rolls):
        outcome["shown"] = [roll.value for roll in result.rolls]  # Fate dice, penetrating dice, mi/ma
    if expr.note:
        outcome["note"] = expr.note
    return Resolution(
        request={"expression": params.expression},
        outcome=outcome,
        summary=msg("rolled {detail}", detail=_detail(result)),
        note=expr.note,
    )


def total_value(total: Any) -> int | float:
    """A total for the outcome: whole numbers as int, a division's fraction as a float (4 places)."""
    return total.numerator if total.denominator == 1 else round(float(total), 4)


# Entries logged before the count had plural forms (one msgid per form).
retire("({n} success)", lambda a: msgn("({n} success)", "({n} successes)", a["n"]))
retire("({n} successes)", lambda a: msgn("({n} success)", "({n} successes)", a["n"]))


def _detail(result: notation.RollResult) -> Summary:
    """The roll as render() writes it ("6d6>=4 [5*, 2, 4*, 1, 6*, 3] (3 successes) = 3"), its words ("3 successes",
    "explosion cap reached") as messages, so each reader reads them in their language; without words, the text."""
    if all(isinstance(part, str) for part in result.parts):
        return result.render()
    parts: list[Any] = []
    for part in result.parts:
        if isinstance(part, str):
            parts.append(part)
        elif part[0] == "successes":
            parts.append(msgn("({n} success)", "({n} successes)", int(part[1])))
        elif part[0] == "failures":
            parts.append(msgn("({n} failure)", "({n} failures)", int(part[1])))
        elif part[0] == "capped":
            parts.append(msg(N_("(explosion cap reached)")))
        else:
            parts.append(msg(N_("(reroll cap reached)")))
    return join(parts, "")


def say(phrase: notation.Phrase) -> str:
    """A phrase of the engine's reading in the reader's language (its values translated too)."""
    values = {key: say(value) if isinstance(value, notation.Phrase) else value for key, value in phrase.values.items()}
    try:
        return gettext(phrase.template).format(**values)
    except (KeyError, IndexError, ValueError):
        return phrase.english()


def read_aloud(expr: notation.Expression) -> list[dict[str, str]]:
    """How the expression was read, part by part ({notation, text}), in the reader's language."""
    return [
        {"notation": part.notation, "text": "; ".join(say(clause) for clause in part.clauses)}
        for part in notation.reading(expr)
    ]


def roll_odds(sheet: DiceSheet, params: RollParams, ctx: Context[DiceSheet]) -> Odds:
    expr = _parse(params.expression)
    odds = notation.describe_odds(expr)
    low, high, mean = odds["min"], odds["max"], odds["mean"]
    details: dict[str, Any] = {"min": low, "max": high, "mean": mean, "reading": read_aloud(expr)}
    if odds["divides_by_zero"]:
        details["warning"] = _("The divisor can come up 0: a roll that divides by 0 is refused, and nothing is logged.")
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        return Odds(text=_("the range depends on a divisor that can be 0 — roll it to see"), details=details)
    if not isinstance(mean, int | float):  # None: over the odds budget (app/rules/notation/odds.py, ODDS_BUDGET)
        return Odds(
            text=_("{low}–{high}; too many dice to work out the average here — roll it to see").format(
                low=number(low), high=number(high)
            ),
            details=details,
        )
    remainder = odds["remainder"]
    notes = []
    theory = odds["theory"]
    if isinstance(theory, tuple):
        notes.append(
            _(
                "A rerolled face stays only after {cap} rerolls that all show it again: {low}–{high} is possible "
                "only in theory."
            ).format(cap=notation.REROLL_CAP, low=number(theory[0]), high=number(theory[1]))
        )
    if isinstance(remainder, float) and remainder > 0:
        notes.append(
            _("The average leaves out rolls that reach the explosion cap (a chance of about {chance}).").format(
                chance=f"{remainder:.1e}"
            )
        )
    if notes:
        details["breakdown"] = " ".join(notes)
    if high <= 0 and _counts(expr):
        # Counting successes against a target no die can reach (e.g. 6d6>=7): always 0.
        details["warning"] = _("No die can meet that target: this roll can never succeed.")
    text = _("{low}–{high}, average {mean}") if odds["exact"] else _("{low}–{high}, average about {mean}")
    return Odds(text=text.format(low=number(low), high=number(high), mean=number(mean, digits=4)), details=details)


def _counts(expr: notation.Expression) -> bool:
    return any(getattr(node, "success", None) is not None for node in _nodes(expr))


def _nodes(expr: notation.Expression) -> list[Any]:
    return walk(expr.root)
