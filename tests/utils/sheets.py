"""A new character of every rule system (its creation fields) and a prompt the narrator calls for on it: the
sheet layout tests (tests/characters/test_sheet_layout.py, tests/browser/test_sheet_layout_browser.py) build one
of each. Each system declares its own in tests/systems/<id>/sheet_case.py (CASE); a registered system without one
fails test_every_system_has_a_case."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from app.systems import SYSTEMS

SYSTEM_TESTS = Path(__file__).resolve().parent.parent / "systems"


def sheet_case(system_id: str) -> tuple[dict[str, Any], str, dict[str, Any]] | None:
    """The system's (creation fields, action, locked params), or None when it has no sheet_case.py."""
    path = SYSTEM_TESTS / system_id / "sheet_case.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"sheet_case_{system_id}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    case: tuple[dict[str, Any], str, dict[str, Any]] = module.CASE
    return case


# Per registered system: a player's new sheet (the creation fields) and a prompt the narrator calls for on it.
CASES: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    sid: case for sid in SYSTEMS if (case := sheet_case(sid)) is not None
}
