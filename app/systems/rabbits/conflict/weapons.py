"""Weapons in conflicts, a campaign setting off by default (rabbits.en.md, "Sample weapons": gear is ignored
unless the table chooses to use it): the table for the conflict (weapons, or argument "weapons") and what a
weapon adds to an action.
"""

from __future__ import annotations

from app.i18n import _, rule_message
from app.systems.base import ActionError
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.rules import RabbitRuleError

ANY_TABLE = "any"


def table_key(state: ConflictState) -> str:
    """Ruling 10: the table a conflict uses — "weapons", "argument" or "none" (set at set-up; a conflict set up
    before the ruling reads it from its type, Other taking the sample weapons as it did)."""
    if not state.weapons:
        return "none"
    if state.weapon_table:
        return str(state.weapon_table)
    if state.conflict not in rabbits.CONFLICTS:
        return "weapons"
    return rabbits.weapon_table_key(state.conflict, "weapons")


def weapon_table(state: ConflictState) -> tuple[tuple[str, ...], ...]:
    key = table_key(state)
    if key == ANY_TABLE:  # the roll form's odds: the weapon's name finds its row in either table
        return rabbits.WEAPONS + rabbits.ARGUMENT_WEAPONS
    return rabbits.weapon_rows(key)


def has_halberd(state: ConflictState) -> bool:
    """Whether the script form asks for the Halberd's mode with each action (ruling 11)."""
    return any(row[0] == rabbits.HALBERD for row in weapon_table(state))


def weapon_mods(state: ConflictState, name: str, action: str, against: str, mode: str = "") -> tuple[int, int, str]:
    """(dice, successes, label) a weapon gives an action: its column of the sheet's table ("+1D", "-1D",
    "+1s"; the bow's +1D only against Defend; the Halberd's cells only in the mode scripted with the action,
    ruling 11). The special column is the table's to apply."""
    if not name.strip():
        return 0, 0, ""
    row = next((r for r in weapon_table(state) if r[0].lower() == name.strip().lower()), None)
    if row is None:
        if state.weapons and table_key(state) == "none":
            raise ActionError(_("This kind of conflict uses no weapons (ruling 10)."), field="weapon")
        raise ActionError(_("Choose a weapon from the table (weapons are a campaign setting)."), field="weapon")
    if row[0] == rabbits.HALBERD and not mode:
        raise ActionError(
            _(
                "This action was scripted without a Halberd mode (axe or spear): the mode is chosen "
                "with the scripted action (ruling 11)."
            ),
            field="weapon",
        )
    try:
        dice, hits = rabbits.weapon_modifier(row, action, against, mode if row[0] == rabbits.HALBERD else "")
    except RabbitRuleError as exc:
        raise ActionError(rule_message(exc), field="weapon") from exc
    return dice, hits, row[0]
