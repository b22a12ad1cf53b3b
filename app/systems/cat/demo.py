"""The Cat examples in the demo campaign: Pia's cat, the narrator's ship dog, one logged test of fate."""

from __future__ import annotations

from typing import Any

DEMO_CAT = {
    "human_name": "Mister Buttons", "cat_name": "Smoke-on-the-Roof", "secret_name": "Ashwhisker",
    "rank_claws": "strong", "rank_coat": "good", "rank_face": "best", "rank_fangs": "strong", "rank_legs": "strong",
    "rank_tail": "good", "rep_name_1": "Best mouser on Lantern Road", "rep_rank_1": "3",
    "rep_name_2": "Friend of the lamplighter", "rep_rank_2": "2", "rep_name_3": "Never lost", "rep_rank_3": "2",
    "notes": "Sleeps on the warm lamp-post base. Owes the bakery cat a fish.",
}


def seed_demo(db: Any, narrator: Any, player: Any) -> None:
    from app.characters.service import create_character
    from app.rolls import service as rolls
    from app.rules.dice import ScriptedDice

    smoke = create_character(db, player, name="Smoke", system="cat", sheet=dict(DEMO_CAT))
    create_character(db, narrator, name="Ship dog", system="cat", kind="npc", sheet={"foe_template": "dog"})
    db.commit()
    # Scripted faces keep the demo's first Cat line the same everywhere: 4 Legs dice, 2 evens for a Moderate Risk.
    rolls.perform_action(db, player, rolls.ActionRequest(
        system="cat", action="test_fate", character_id=smoke.id,
        params={"trait": "legs", "difficulty": "moderate", "dangerous": True},
        note="leap from the lamp post to the chandler's roof"), dice=ScriptedDice([2, 5, 6, 3]))
