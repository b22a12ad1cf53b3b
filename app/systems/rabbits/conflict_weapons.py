"""Weapons in conflicts, a campaign setting off by default (rabbits.en.md, "Sample weapons": gear is ignored
unless the table chooses to use it): the table for the conflict (weapons, or argument "weapons") and what a
weapon adds to an action.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.i18n import _
from app.rules import rabbits
from app.systems.base import ActionError

_MOD = re.compile(r"([+-]\d+)(D|s)")


def weapon_table(state: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    if not state.get("weapons"):
        return ()
    return rabbits.ARGUMENT_WEAPONS if state["conflict"] == "argument" else rabbits.WEAPONS


def weapon_mods(state: Mapping[str, Any], name: str, action: str, against: str) -> tuple[int, int, str]:
    """(dice, successes, label) a weapon gives an action: its column of the sheet's table ("+1D", "-1D",
    "+1s"; the bow's +1D only against Defend). The special column is the table's to apply."""
    if not name.strip():
        return 0, 0, ""
    row = next((r for r in weapon_table(state) if r[0].lower() == name.strip().lower()), None)
    if row is None:
        raise ActionError(_("Choose a weapon from the table (weapons are a campaign setting)."), field="weapon")
    cell = row[1 + rabbits.ACTIONS.index(action)]
    if "*" in cell and against != "defend":
        return 0, 0, row[0]
    dice = sum(int(n) for n, kind in _MOD.findall(cell) if kind == "D")
    hits = sum(int(n) for n, kind in _MOD.findall(cell) if kind == "s")
    return dice, hits, row[0]
