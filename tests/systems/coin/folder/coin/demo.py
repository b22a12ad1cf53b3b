"""Coins in the demo: one character, one flip."""

from __future__ import annotations

from app.systems.base import Seeder


def seed_demo(seed: Seeder) -> None:
    cid = seed.character("player", "Penny")
    seed.act("player", "flip", cid, {"coins": 3, "needed": 2}, dice_faces=[2, 2, 1])
