"""The registry of rule systems. Every system is one folder, app/systems/<id>/ (docs/ARCHITECTURE.md, "Adding a
rule system"): __init__.py (its RuleSystem), sheet.py, actions.py, demo.py, feature modules, rules/ (its pure rules),
templates/ and static/; adding one is one line in MODULES.

This is the only module outside a system's folder that may name a system id (tests/test_system_names.py)."""

from __future__ import annotations

import importlib
from pathlib import Path

from app.i18n import _
from app.systems.base import Action, ActionError, Context, Odds, Resolution, RuleSystem, Seeder
from app.systems.kinds import EncounterKind, EncounterViewer, Team, kind_table

# The registry: one line per system, in the order pages list them.
MODULES: list[str] = [
    "app.systems.dice",
    "app.systems.cat",
    "app.systems.catfight",
    "app.systems.rabbits",
    "app.systems.art",
]

# The generic roller: every campaign may use it, whatever else it plays; rolls without a system are its rolls.
ROLLER = "dice"
ALWAYS_ON = (ROLLER,)

SYSTEMS: dict[str, RuleSystem] = {}
# Each registered system's folder (its templates/ and static/ are found there: app/web.py, app/main.py).
FOLDERS: dict[str, Path] = {}


def register(module_name: str) -> RuleSystem:
    """Import a system's package (its SYSTEM) and add it to the registry (SYSTEMS, FOLDERS)."""
    module = importlib.import_module(module_name)
    system: RuleSystem = module.SYSTEM
    if module.__file__ is None:
        raise ValueError(f"{module_name} is not a package with a folder")
    SYSTEMS[system.id] = system
    FOLDERS[system.id] = Path(module.__file__).resolve().parent
    return system


def unregister(system_id: str) -> None:
    """Take a system out of the registry again (the fifth-system test's throwaway system)."""
    SYSTEMS.pop(system_id, None)
    FOLDERS.pop(system_id, None)


for _name in MODULES:
    register(_name)


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
    "FOLDERS",
    "MODULES",
    "ROLLER",
    "SYSTEMS",
    "Action",
    "ActionError",
    "Context",
    "EncounterKind",
    "EncounterViewer",
    "Odds",
    "Resolution",
    "RuleSystem",
    "Seeder",
    "Team",
    "get_action",
    "get_system",
    "kind_table",
    "register",
    "unregister",
]
