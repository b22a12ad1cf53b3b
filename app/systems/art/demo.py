"""The ART examples in the demo campaign: an adventurer with gear, a roll and a call for a roll; a foe."""

from __future__ import annotations

from typing import Any

from app.systems.base import Seeder

from .sheet import FOE_TRAITS


def seed_demo(seed: Seeder) -> None:
    """An adventurer for the player (with gear and a roll in the log) and a foe for the narrator."""
    # The rules text's climbing example: Strength 9, Climbing +4, Rock climbing +1 -> row 14.
    pairs = {
        "AGI": (5, 4),
        "ALE": (4, 3),
        "CHA": (3, 2),
        "CRA": (1, 2),
        "CUN": (3, 1),
        "DEX": (5, 2),
        "FAT": (4, 1),
        "INT": (6, 5),
        "STA": (6, 4),
        "STR": (6, 3),
    }
    fields: dict[str, Any] = {
        "sheet_kind": "adventurer",
        "method": "balanced",
        "skill_0": "Climbing",
        "skill_0_rating": "4",
        "skill_1": "Rock climbing",
        "skill_1_rating": "1",
    }
    for code, (a, b) in pairs.items():
        fields[f"{code}_a"], fields[f"{code}_b"] = str(a), str(b)
    hero = seed.character("player", "Maren Quickhand", fields)
    foe_fields = {
        "sheet_kind": "foe",
        **{f"level_{code}": "PR" for code in FOE_TRAITS},
        "level_ALE": "IN",
        "level_ATK": "PR",
        "level_DEF": "PS",
        "health_0": "PR",
        "health_1": "PS",
        "health_2": "GD",
        "health_3": "GT",
        "damage_rating": "1",
        "notes": "Goblin chieftain",
    }
    seed.character("narrator", "Goblin Chieftain", foe_fields, kind="npc")
    seed.act(
        "player",
        "add_item",
        hero,
        {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Poor", "weapon": "melee_1h"},
    )
    seed.act(
        "player",
        "trait_roll",
        hero,
        {"attribute": "STR", "difficulty": "PR", "skills": ["Climbing", "Rock climbing"]},
        note="climb the cliff",
        dice_faces=[73],
    )
    seed.prompt(
        "narrator", hero, "trait_roll", {"attribute": "AGI", "difficulty": "IN"}, note="Sneak past the goblin chieftain"
    )
