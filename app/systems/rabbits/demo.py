"""The demo campaign's rabbits: one for pia with a few rolls on the log, and a narrator's fox."""

from __future__ import annotations

from app.systems.base import Seeder


def seed_demo(seed: Seeder) -> None:
    clover = seed.character(
        "player",
        "Clover Quickfoot",
        {
            "nature": 4,
            "will": 3,
            "health": 4,
            "resources": 1,
            "circles": 2,
            "skills": {"Scout": 3, "Pathfinder": 2, "Fighter": 2, "Healer": 1},
            "wises": ["Fox-wise", "Meadow-wise"],
            "traits": [{"name": "Quick", "level": 1}, {"name": "Curious", "level": 1}],
            "belief": "The warren survives only if we watch the edges.",
            "goal": "Find where the fox dens this season.",
            "instinct": "Always freeze before crossing open ground.",
        },
    )
    seed.character(
        "narrator",
        "Old Red (fox)",
        {"nature": 5, "will": 4, "health": 5, "skills": {"Hunter": 4, "Fighter": 4, "Scout": 3}},
        kind="npc",
    )
    # Scripted faces keep the demo the same on every machine: a Scout test that rolls two 6s for Fate to follow.
    seed.act(
        "player",
        "test",
        clover,
        {"skill": "Scout", "ob": 3, "wise": "Fox-wise"},
        note="spot the fox from the hedge",
        dice_faces=[6, 2, 6, 1],
    )
    seed.prompt(
        "narrator", clover, "test", {"skill": "Pathfinder", "ob": 2}, note="Find the old run through the brambles."
    )
