"""Rabbits in the leak test (tests/security/test_hidden_results.py, through tests/utils/leak.py): the hidden
actions it plays, how the world's characters are made, what it cannot hide."""

from __future__ import annotations

from typing import Any

from utils.leak import Case, Leak, LeakWorld

from app.characters.models import Character

RABBIT = {"nature": 4, "will": 3, "health": 4, "skills": {"Scout": 3, "Fighter": 2}, "wises": ["Fox-wise"]}

CASES = [
    Case("rabbits-test", "rabbits", "test", {"skill": "Scout", "ob": "2"}, [6, 5, 4], [1, 2, 3]),
    Case(
        "rabbits-versus",
        "rabbits",
        "versus",
        {"skill": "Scout", "opponent_id": "{theirs}"},
        [6, 6, 6, 1, 1, 1],
        [1, 1, 1, 6, 6, 6],
    ),
    # The rolls issue 21 found exempted (item 15): played hidden like the others.
    Case(
        "rabbits-recover",
        "rabbits",
        "recover",
        {"condition": "tired"},
        [6, 5, 4, 4],
        [1, 2, 3, 1],
        setup="tired",
        secrets={"success": ["no longer Tired"]},
    ),
]


def characters(world: LeakWorld, db: Any) -> None:
    world.ids["mine"] = world.make(db, "pia", "Clover", dict(RABBIT))
    world.ids["theirs"] = world.make(db, "otto", "Hazel", dict(RABBIT))


def prepare(world: LeakWorld, setup: str) -> None:
    """A rabbit that is Tired (recover)."""
    if setup == "tired":
        with world.factory() as db:
            ch = db.get(Character, world.ids["mine"])
            ch.sheet = {**ch.sheet, "conditions": ["tired"], "checks": 2}  # the narrator's turn: 2 checks
            db.commit()


LEAK = Leak(
    cases=CASES,
    characters=characters,
    prepare=prepare,
    not_played={
        "settings": {},
        "conflict_settings": {"weapons": True},
    },
    follow_ups=frozenset({"fate", "deeper", "of_course", "concede", "tiebreak", "consequence", "clear", "award"}),
)
