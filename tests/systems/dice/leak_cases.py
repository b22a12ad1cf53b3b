"""The dice roller in the leak test (tests/security/test_hidden_results.py, through tests/utils/leak.py): the hidden
actions it plays, how the world's characters are made, what it cannot hide."""

from __future__ import annotations

from typing import Any

from utils.leak import Case, Leak, LeakWorld

CASES = [
    Case(
        "dice-roll",
        "dice",
        "roll",
        {"expression": "3d1000"},
        [613, 547, 281],
        [1, 2, 3],
        changes_sheet=False,
        secrets={"success": ["1441", "613", "547", "281"]},
    ),
]


def characters(world: LeakWorld, db: Any) -> None:
    world.ids["mine"] = world.make(db, "pia", "Pia's hero", {})
    world.ids["theirs"] = world.make(db, "otto", "Otto's hero", {})


LEAK = Leak(cases=CASES, characters=characters)
