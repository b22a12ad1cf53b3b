"""Cat in the leak test (tests/security/test_hidden_results.py, through tests/utils/leak.py): the hidden
actions it plays, how the world's characters are made, what it cannot hide."""

from __future__ import annotations

from typing import Any

from utils.cat import NEW_CAT
from utils.leak import Case, Leak, LeakWorld

CASES = [
    Case(
        "cat-test_fate",
        "cat",
        "test_fate",
        {"trait": "legs", "difficulty": "hard", "dangerous": "true"},
        [2, 4, 6, 6],
        [3, 3, 5, 3],
        secrets={"failure": ["scars to place"]},
    ),
]


def characters(world: LeakWorld, db: Any) -> None:
    world.ids["mine"] = world.make(db, "pia", "Smoke", dict(NEW_CAT))
    world.ids["theirs"] = world.make(db, "otto", "Tiger", {**NEW_CAT, "secret_name": "Ottosecret"})
    world.ids["foe"] = world.make(db, "nora", "Ship dog", {"foe_template": "dog"}, kind="npc")


LEAK = Leak(
    cases=CASES,
    characters=characters,
    not_played={
        "settings": {},
    },
    follow_ups=frozenset(
        {
            "edit_scene",
            "place_scars",
            "dodge_with_life",
            "propose_reputation",
            "heal_first",
            "notes",
            "move_scar",
            "grant_advantage",
            "approve_reputation",
            "clear_approvals",
            "dock_reputation",
            "restore_reputation",
            "gift_reputation",
            "advance_time",
        }
    ),
)
