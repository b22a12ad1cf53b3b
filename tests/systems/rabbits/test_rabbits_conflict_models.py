"""The conflict's typed state (issue 23 §3): the stored JSON goes through ConflictState unchanged, keys an older
state lacks stay missing, and a step writes only the keys it sets."""

from __future__ import annotations

import copy
from typing import Any

from app.i18n import msg
from app.systems.base import stored_state
from app.systems.rabbits import SYSTEM
from app.systems.rabbits.conflict.models import ConflictState, Team, conflict_state
from app.systems.rabbits.conflict.state import RECENT, fronts_of, say
from app.systems.rabbits.conflict.weapons import table_key


def _team(name: str, captain: int) -> dict[str, Any]:
    return {
        "name": name,
        "goal": "win",
        "captain": captain,
        "members": [captain],
        "narrator": False,
        "base": None,
        "start": None,
        "disposition": None,
        "roll": None,
        "scripted": False,
        "locked": False,
        "script": None,
        "salts": None,
        "commitments": None,
        "lock_seq": None,
        "impede": 0,
        "position": 0,
        "disarmed": [],
    }


# A conflict stored before fronts, weapon tables and tiebreakers (no "fronts", "weapon_table", "tiebreak"), with
# a key this version does not know.
OLDER: dict[str, Any] = {
    "conflict": "fight",
    "other_skill": "",
    "weapons": True,
    "phase": "disposition",
    "volley": 1,
    "index": 0,
    "teams": {"a": _team("Hazel", 1), "b": _team("Woundwort", 2)},
    "current": None,
    "pending": [],
    "opened": [],
    "recent": [],
    "result": None,
    "title": "Hazel vs Woundwort",
    "future_key": {"kept": True},
}


def test_the_rabbits_system_types_its_conflicts() -> None:
    typed = SYSTEM.typed_state("conflict", OLDER)
    assert isinstance(typed, ConflictState)
    assert isinstance(typed.teams["a"], Team)
    assert typed.teams["b"].name == "Woundwort"


def test_an_older_state_goes_through_unchanged() -> None:
    state = conflict_state(copy.deepcopy(OLDER))
    assert stored_state(state) == OLDER  # nothing added (fronts, weapon_table, tiebreak), nothing dropped
    assert fronts_of(state) == [["a", "b"]]  # an older state's one front
    assert table_key(state) == table_key(conflict_state(OLDER)) == "weapons"  # ruling 10 read from the type


def test_a_step_stores_only_what_it_set() -> None:
    state = conflict_state(copy.deepcopy(OLDER))
    state.teams["a"].put(start=4, disposition=4, spread={"1": 4})
    stored = stored_state(state)
    assert stored["teams"]["a"]["spread"] == {"1": 4} and stored["teams"]["a"]["start"] == 4
    assert "spread" not in stored["teams"]["b"] and "spread_by_hand" not in stored["teams"]["a"]
    assert "fronts" not in stored


def test_what_happened_keeps_the_last_lines_newest_first() -> None:
    state = conflict_state(copy.deepcopy(OLDER))
    for n in range(RECENT + 3):
        say(state, msg("line {n}", n=n))
    recent = stored_state(state)["recent"]
    assert len(recent) == RECENT
    assert recent[0] == msg("line {n}", n=RECENT + 2)
