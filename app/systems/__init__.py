"""The registry of rule systems. Every system is a package of one shape (docs/ARCHITECTURE.md, "Adding a rule
system"): __init__.py (its RuleSystem), sheet.py, actions.py, demo.py and feature modules; adding one is one line
in SYSTEMS."""

from __future__ import annotations

from app.i18n import _
from app.systems import art, cat, catfight, dice, rabbits
from app.systems.base import Action, ActionError, Context, EncounterViewer, Odds, Resolution, RuleSystem, Seeder

SYSTEMS: dict[str, RuleSystem] = {
    dice.SYSTEM.id: dice.SYSTEM,
    cat.SYSTEM.id: cat.SYSTEM,
    catfight.SYSTEM.id: catfight.SYSTEM,
    rabbits.SYSTEM.id: rabbits.SYSTEM,
    art.SYSTEM.id: art.SYSTEM,
}

# Every campaign may use the generic roller, whatever else it plays.
ALWAYS_ON = ("dice",)


def get_system(system_id: str) -> RuleSystem:
    try:
        return SYSTEMS[system_id]
    except KeyError:
        raise ActionError(_("Unknown rule system: {names}.").format(names=repr(system_id)), field="system") from None


def get_action(system_id: str, action_id: str) -> tuple[RuleSystem, Action]:
    system = get_system(system_id)
    try:
        return system, system.actions[action_id]
    except KeyError:
        raise ActionError(
            _("{system} has no action {action}.").format(system=_(system.name), action=repr(action_id)), field="action"
        ) from None


__all__ = [
    "ALWAYS_ON",
    "SYSTEMS",
    "Action",
    "ActionError",
    "Context",
    "EncounterViewer",
    "Odds",
    "Resolution",
    "RuleSystem",
    "Seeder",
    "get_action",
    "get_system",
]
