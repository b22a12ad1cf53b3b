"""The generic dice roller: any dice expression, for any campaign (app/rules/notation.py)."""

from __future__ import annotations

from app.i18n import N_
from app.systems.base import RuleSystem, action_table
from app.systems.dice.actions import ACTIONS
from app.systems.dice.demo import seed_demo
from app.systems.dice.sheet import DiceSheet

SYSTEM = RuleSystem(
    id="dice",
    name=N_("Dice"),
    labels={"notes": N_("Notes")},
    description=N_("Generic dice expressions: 2d6+1, 4d6kh3, 3d6!, 6d6>=4, d%."),
    rulings=(
        N_("NdS rolls N dice with S sides (N defaults to 1); d% means one d100, where 00 counts as 100."),
        N_("kh/kl keep the highest/lowest N dice, dh/dl drop them; dropped dice are shown struck through."),
        N_("! explodes: a die showing its maximum is rolled again and added; at most 100 extra dice per term."),
        N_(">=, >, <=, <, = count the dice that meet the condition (after keep/drop) instead of adding them."),
        N_("At most 1,000 dice and 1,000 sides per expression, 20 terms and 200 characters."),
    ),
    sheet=DiceSheet,
    actions=action_table(ACTIONS),
    seed_demo=seed_demo,
)
