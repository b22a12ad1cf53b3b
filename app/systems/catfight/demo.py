"""The cat fight in the demo campaign: Tecka (the rules' example cat) for the player and a rival for another
player (or the narrator), and a duel between them, ready for its first roll."""

from __future__ import annotations

from app.systems.base import Seeder
from app.systems.catfight import rules as catfight
from app.systems.catfight.sheet import STATS


def seed_demo(seed: Seeder) -> None:
    tecka = seed.character("player", "Tecka", {s: catfight.TECKA[s] for s in STATS})
    rival = seed.character(
        "other_player", "Mimi", {"attack": 12, "defend": 16, "jump": 14, "sneak": 14, "quickness": 14}
    )
    seed.act("player", "challenge", tecka, {"opponent_id": rival})
