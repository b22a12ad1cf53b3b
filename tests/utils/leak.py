"""The leak test's cases (tests/security/test_hidden_results.py), declared by each system beside its own tests:
tests/systems/<id>/leak_cases.py holds `LEAK = Leak(...)` — the hidden actions it plays, how its characters are
made, what it cannot hide. The leak test loads it for every registered system (so a new system must bring one)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

SYSTEM_TESTS = Path(__file__).resolve().parent.parent / "systems"


class LeakWorld(Protocol):
    """What a system's leak set-up may use of the leak test's World."""

    ids: dict[str, int]
    encounters: list[int]

    def make(self, db: Any, who: str, name: str, sheet: dict[str, Any], kind: str = "pc", system: str = "") -> int: ...

    def acc(self, db: Any, who: str) -> Any: ...

    def act_public(self, who: str, action: str, params: dict[str, Any], faces: list[int] | None = None) -> None: ...

    @property
    def factory(self) -> Any: ...


@dataclass(frozen=True)
class Case:
    id: str
    system: str
    action: str
    form: dict[str, str]  # the action's form fields; "{foe}", "{theirs}": those characters' ids
    success: list[int]  # scripted faces for the two worlds
    failure: list[int]
    roller: str = "pia"
    character: str = "mine"  # which character acts: see World.characters
    # Values that must not reach a viewer who may not see the result (besides the entry's summary).
    secrets: dict[str, list[str]] = field(default_factory=dict)  # "success"/"failure" -> strings
    compare: bool = True  # False: no dice, no outcome to tell apart (one world is enough)
    changes_sheet: bool = True  # a roll that changes a sheet cannot be kept to oneself (service: held + self)
    setup: str = ""  # a named preparation step of the system's Leak.prepare

    def fields(self, world: Any) -> dict[str, str]:
        return {k: v.format(**world.ids) for k, v in self.form.items()}

    def odds_query(self, world: Any) -> dict[str, str]:
        return self.fields(world)


@dataclass(frozen=True)
class Leak:
    """One system's part of the leak test."""

    # The hidden actions played through the web form, in two worlds that differ only in the dice.
    cases: list[Case]
    # Makes the world's characters (world.ids: "mine" for pia, "theirs" for otto, and e.g. "foe", "hurt") and any
    # encounter in the open (world.encounters), so the encounter pages are walked too.
    characters: Callable[[LeakWorld, Any], None]
    # A case's `setup` step, after the characters (e.g. a sword to attack with, a checked Health box).
    prepare: Callable[[LeakWorld, str], None] | None = None
    # Actions the service refuses to hide (settings changes), with valid params for each (in this order).
    not_played: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    # Hideable actions not played, and why: follow-ups on a played roll, bookkeeping, the narrator's tools.
    follow_ups: frozenset[str] = frozenset()


def leak_of(system_id: str) -> Leak:
    """The system's tests/systems/<id>/leak_cases.py: its LEAK (a missing file is a failing leak test)."""
    path = SYSTEM_TESTS / system_id / "leak_cases.py"
    spec = importlib.util.spec_from_file_location(f"leak_cases_{system_id}", path)
    assert spec is not None and spec.loader is not None, f"{path} is missing: every system brings its leak cases"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    leak: Leak = module.LEAK
    assert all(case.system == system_id for case in leak.cases), path
    return leak
