"""The demo campaign's rabbits: one for pia with a few rolls on the log, and a narrator's fox."""

from __future__ import annotations

from typing import Any

from app.rules.dice import ScriptedDice


def seed_demo(db: Any, narrator: Any, player: Any) -> None:
    # Imported here: the services import the system registry, which imports this package.
    from app.characters.service import create_character
    from app.rolls import prompts
    from app.rolls import service as rolls

    if "rabbits" not in narrator.campaign.systems:
        return
    clover = create_character(db, player, name="Clover Quickfoot", system="rabbits", sheet={
        "nature": 4, "will": 3, "health": 4, "resources": 1, "circles": 2,
        "skills": {"Scout": 3, "Pathfinder": 2, "Fighter": 2, "Healer": 1},
        "wises": ["Fox-wise", "Meadow-wise"], "traits": [{"name": "Quick", "level": 1}, {"name": "Curious", "level": 1}],
        "belief": "The warren survives only if we watch the edges.", "goal": "Find where the fox dens this season.",
        "instinct": "Always freeze before crossing open ground."})
    fox = create_character(db, narrator, name="Old Red (fox)", system="rabbits", kind="npc", sheet={
        "nature": 5, "will": 4, "health": 5, "skills": {"Hunter": 4, "Fighter": 4, "Scout": 3}})
    db.commit()
    # Scripted faces keep the demo the same on every machine: a Scout test that rolls two 6s for Fate to follow.
    rolls.perform_action(db, player, rolls.ActionRequest(
        system="rabbits", action="test", character_id=clover.id,
        params={"skill": "Scout", "ob": 3, "wise": "Fox-wise"}, note="spot the fox from the hedge"),
        dice=ScriptedDice([6, 2, 6, 1]))
    prompts.create_prompt(db, narrator, character_id=clover.id, system="rabbits", action="test",
                        locked={"skill": "Pathfinder", "ob": 2}, note="Find the old run through the brambles.")
    del fox
