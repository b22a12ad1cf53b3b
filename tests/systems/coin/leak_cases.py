"""Coins in the leak test (tests/security/test_hidden_results.py, through tests/utils/leak.py)."""

from __future__ import annotations

from typing import Any

from utils.leak import Case, Leak, LeakWorld

CASES = [Case("coin-flip", "coin", "flip", {"coins": "3", "needed": "2"}, [2, 2, 2], [1, 1, 1])]


def characters(world: LeakWorld, db: Any) -> None:
    world.ids["mine"] = world.make(db, "pia", "Penny", {})
    world.ids["theirs"] = world.make(db, "otto", "Nick", {})


LEAK = Leak(cases=CASES, characters=characters)
