"""The Cat examples in the demo campaign: Pia's cat, the narrator's ship dog, one logged test of fate."""

from __future__ import annotations

from app.systems.base import Seeder

DEMO_CAT = {
    "human_name": "Mister Buttons",
    "cat_name": "Smoke-on-the-Roof",
    "secret_name": "Ashwhisker",
    "rank_claws": "strong",
    "rank_coat": "good",
    "rank_face": "best",
    "rank_fangs": "strong",
    "rank_legs": "strong",
    "rank_tail": "good",
    "rep_name_1": "Best mouser on Lantern Road",
    "rep_rank_1": "3",
    "rep_name_2": "Friend of the lamplighter",
    "rep_rank_2": "2",
    "rep_name_3": "Never lost",
    "rep_rank_3": "2",
    "notes": "Sleeps on the warm lamp-post base. Owes the bakery cat a fish.",
}


def seed_demo(seed: Seeder) -> None:
    smoke = seed.character("player", "Smoke", dict(DEMO_CAT))
    seed.character("narrator", "Ship dog", {"foe_template": "dog"}, kind="npc")
    # Scripted faces keep the demo's first Cat line the same everywhere: 4 Legs dice, 2 evens for a Moderate Risk.
    seed.act(
        "player",
        "test_fate",
        smoke,
        {"trait": "legs", "difficulty": "moderate", "dangerous": True},
        note="leap from the lamp post to the chandler's roof",
        dice_faces=[2, 5, 6, 3],
    )
