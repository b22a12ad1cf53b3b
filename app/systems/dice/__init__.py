"""The generic dice roller: any dice expression, for any campaign (app/rules/notation, docs/NOTATION.md)."""

from __future__ import annotations

from app.i18n import N_
from app.systems.base import GroupCall, RuleSystem, Sheets, action_table
from app.systems.dice import marks
from app.systems.dice.actions import ACTIONS
from app.systems.dice.demo import seed_demo
from app.systems.dice.sheet import DiceSheet, dump, load

SYSTEM = RuleSystem(
    group_calls=(GroupCall("roll", N_("Dice"), "dice/_group_call.html"),),
    die_marks=marks.die_marks,
    result_total=marks.result_total,
    sheets=Sheets(load, dump),
    id="dice",
    name=N_("Dice"),
    labels={"notes": N_("Notes")},
    description=N_(
        "Dice expressions in Roll20's notation (and Avrae's spellings): 2d6+1, 4d6kh3, 3d6!>4, 2d20ro1, "
        "6d6>4f1, {1d8!,1d6!}kh1, 4dF, floor(1d6/2). The line under the dice box says how it was read."
    ),
    rulings=(
        N_("NdS rolls N dice with S sides (N defaults to 1); d% means one d100, where 00 counts as 100."),
        N_(
            "kh/kl keep the highest/lowest N dice, dh/dl (or a bare d, as in 8d100d3) drop them; dropped dice are shown "  # noqa: E501 -- a catalog msgid
            "struck through."
        ),
        N_(
            "Roll20 reads > and < as “or more” and “or less”: 3d6>3 counts dice of 3 or more, 3d6!>4 explodes on 4 or "
            "more; f counts failures (3d6>3f1)."
        ),
        N_(
            "! explodes, !! compounds, !p penetrates (each added die counts 1 less): at most 100 extra dice per term. "
            "r rerolls while a die matches (at most 10 times), ro once, ra once and keeps both; mi/ma set a die's "
            "least and most."
        ),
        N_(
            "{…} groups: one sub-roll keeps or counts its dice, several their totals. dF is a Fate die (-1, 0, +1). "
            "+ - * / // % with parentheses, floor, ceil, round and abs; / keeps fractions."
        ),
        N_("A [label] marks the term before it; text after the formula, or after #, is the roll's note."),
        N_("Where Avrae differs, Roll20 wins: k3 keeps the 3 highest dice; d%, a d100; > and < include the target."),
        N_("At most 1,100 dice and 1,000 sides per expression, 20 terms and 200 characters (and a note of 500)."),
    ),
    sheet=DiceSheet,
    actions=action_table(ACTIONS),
    seed_demo=seed_demo,
)
