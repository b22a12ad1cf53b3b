"""Every rule system has one shape, declared once (docs/ARCHITECTURE.md, "Adding a rule system"): the same
modules, its actions as a tuple in actions.py, resolve/odds with one signature, a demo that only uses the
seeder it is handed, and its template data in its RuleSystem."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from app.systems import SYSTEMS, RuleSystem
from app.systems.base import Action

SYSTEMS_DIR = Path(__file__).resolve().parents[2] / "app" / "systems"
APP_DIR = SYSTEMS_DIR.parent
RULES_DIR = APP_DIR / "rules"
MODULES = {"__init__", "sheet", "actions", "demo"}
MAX_LINES = 400


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_each_system_is_a_package_with_the_same_modules(system_id: str) -> None:
    package = SYSTEMS_DIR / system_id
    assert package.is_dir(), f"app/systems/{system_id} is not a package"
    assert {p.stem for p in package.glob("*.py")} >= MODULES


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_the_package_declares_its_system_once(system_id: str) -> None:
    """__init__.py holds the declaration only: imports, constants and `SYSTEM = RuleSystem(...)`, no function."""
    system = SYSTEMS[system_id]
    package = importlib.import_module(f"app.systems.{system_id}")
    assert package.SYSTEM is system and system.id == system_id
    tree = ast.parse((SYSTEMS_DIR / system_id / "__init__.py").read_text(encoding="utf-8"))
    assert not [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    actions = importlib.import_module(f"app.systems.{system_id}.actions").ACTIONS
    assert isinstance(actions, tuple) and all(isinstance(a, Action) for a in actions)
    assert tuple(system.actions.values()) == actions and list(system.actions) == [a.id for a in actions]
    assert system.seed_demo is importlib.import_module(f"app.systems.{system_id}.demo").seed_demo


def _params(fn: Any) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_resolve_and_odds_always_take_the_context(system_id: str) -> None:
    for action in SYSTEMS[system_id].actions.values():
        assert len(_params(action.resolve)) == 4 and _params(action.resolve)[-1] == "ctx", action.id
        if action.odds is not None:
            assert len(_params(action.odds)) == 3 and _params(action.odds)[-1] == "ctx", action.id


def test_no_module_of_the_app_is_too_long() -> None:
    """A module past MAX_LINES is split by concept (as app/systems/cat/rules/ and app/security/ were). The mark is
    per module, at any depth of app/: the systems, their rules, the shared rules and every feature."""
    modules = list(APP_DIR.rglob("*.py"))
    assert len(modules) > 100 and SYSTEMS_DIR in {p.parent for p in modules}  # the folder is really there
    long = {
        p.relative_to(APP_DIR).as_posix(): n
        for p in modules
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, long


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_each_systems_rules_live_in_its_folder(system_id: str) -> None:
    """A system's own rules are in app/systems/<id>/rules/ (app/rules/ keeps what systems share), its templates in
    app/systems/<id>/templates/ when it has pages."""
    assert not (RULES_DIR / system_id).exists(), f"app/rules/{system_id}: move it to app/systems/{system_id}/rules"
    if SYSTEMS[system_id].has_pages:
        assert (SYSTEMS_DIR / system_id / "templates" / "sheet.html").is_file()


class RecordingSeeder:
    """A seeder that keeps what a demo asked for, without a database."""

    def __init__(self) -> None:
        self.characters: list[tuple[str, str, dict[str, Any] | None, str]] = []
        self.calls: list[tuple[str, str, str, int | None, dict[str, Any]]] = []

    def character(self, role: str, name: str, sheet: Mapping[str, Any] | None = None, kind: str = "pc") -> int:
        self.characters.append((role, name, dict(sheet) if sheet is not None else None, kind))
        return 100 + len(self.characters)

    def act(
        self,
        role: str,
        action: str,
        character_id: int | None = None,
        params: Mapping[str, Any] | None = None,
        *,
        note: str = "",
        visibility: str = "public",
        dice_faces: list[int] | None = None,
    ) -> None:
        self.calls.append(("act", role, action, character_id, dict(params or {})))

    def prompt(self, role: str, character_id: int, action: str, locked: Mapping[str, Any], note: str = "") -> None:
        self.calls.append(("prompt", role, action, character_id, dict(locked)))


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_the_demo_uses_only_the_seeder(system_id: str) -> None:
    system: RuleSystem = SYSTEMS[system_id]
    assert system.seed_demo is not None
    seeder = RecordingSeeder()
    system.seed_demo(seeder)
    assert seeder.characters, "a demo shows at least one character"
    roles = {"narrator", "player", "other_player"}
    for role, _name, sheet, kind in seeder.characters:
        assert role in roles and kind in ("pc", "npc")
        system.new_sheet(sheet or {})  # what the character service will make of it
    ids = set(range(101, 101 + len(seeder.characters)))
    for _what, role, action, character_id, params in seeder.calls:
        assert role in roles and action in system.actions
        assert character_id is None or character_id in ids
        system.actions[action].params.model_validate(params)


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_template_data_is_read_from_the_declaration(system_id: str) -> None:
    from app.web import ENV

    assert ENV.globals["system_data"][system_id] is SYSTEMS[system_id].template_data
