"""Coins: a throwaway fifth rule system (issue 23, the proof). Flip some coins; enough heads is a success. Built
from docs/ARCHITECTURE.md "Adding a rule system" alone: this one folder (rules/, the glue, templates/, static/), its
tests beside it (tests/systems/coin/), and one registry line — which tests/systems/coin/test_fifth_system.py adds
with app.systems.register, as the line in MODULES would."""

from __future__ import annotations

from app.i18n import N_
from app.systems.base import GroupCall, RuleSystem, Sheets, action_table
from app.systems.coin.actions import ACTIONS
from app.systems.coin.demo import seed_demo
from app.systems.coin.marks import die_marks
from app.systems.coin.sheet import CoinSheet, dump, public_sheet
from app.systems.coin.toss import TOSS
from app.systems.kinds import kind_table

SYSTEM = RuleSystem(
    id="coin",
    name=N_("Coins"),
    description=N_("Flip coins: enough heads is a success."),
    sheet=CoinSheet,
    sheets=Sheets(CoinSheet.model_validate, dump),
    actions=action_table(ACTIONS),
    has_pages=True,
    public_sheet=public_sheet,
    rulings=(N_("A flip succeeds with at least as many heads as needed."),),
    seed_demo=seed_demo,
    labels={"luck": N_("Luck"), "notes": N_("Notes")},
    die_marks=die_marks,
    group_calls=(GroupCall("flip", N_("Coins: a flip"), "coin/_group_call.html"),),
    template_data={"most_coins": 10},
    encounters=kind_table((TOSS,)),
)
