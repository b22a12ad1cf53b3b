"""The cat fight in the leak test (tests/security/test_hidden_results.py, through tests/utils/leak.py): the hidden
actions it plays, how the world's characters are made, what it cannot hide."""

from __future__ import annotations

from typing import Any

from utils.catfight import MIMI, TECKA
from utils.leak import Case, Leak, LeakWorld

from app.characters.models import Character
from app.rolls import service as rolls

CASES = [
    Case(
        "catfight-heal",
        "catfight",
        "heal",
        {},
        [],
        [],
        roller="nora",
        character="hurt",
        compare=False,
        secrets={"success": ["back to full health"]},
    ),
]


def characters(world: LeakWorld, db: Any) -> None:
    world.ids["mine"] = world.make(db, "pia", "Tecka", dict(TECKA))
    world.ids["theirs"] = world.make(db, "otto", "Mimi", dict(MIMI))
    world.ids["hurt"] = world.make(db, "pia", "Tibbs", dict(TECKA))
    hurt = db.get(Character, world.ids["hurt"])
    hurt.sheet = {**hurt.sheet, "health": 1}
    db.commit()
    # A duel in the open, so the encounter pages are walked too.
    req = rolls.ActionRequest(
        system="catfight",
        action="challenge",
        character_id=world.ids["mine"],
        params={"opponent_id": world.ids["theirs"]},
    )
    result = rolls.perform_action(db, world.acc(db, "pia"), req)
    assert result.encounter_id is not None
    world.encounters.append(result.encounter_id)


LEAK = Leak(
    cases=CASES,
    characters=characters,
    not_played={
        "settings": {"regen_minutes": 30},
    },
)
