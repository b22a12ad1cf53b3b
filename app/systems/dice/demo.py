"""The demo campaign's first lines: Wren the Lamplighter climbs a lamp post, the narrator rolls blind, and
calls for Wren's roll."""

from __future__ import annotations

from app.systems.base import Seeder


def seed_demo(seed: Seeder) -> None:
    wren = seed.character("player", "Wren the Lamplighter")
    seed.character("narrator", "The Toll-Keeper", kind="npc")
    # Scripted faces keep the demo's first lines the same on every machine; later rolls use the server's dice.
    seed.act("player", "roll", wren, {"expression": "2d6+1"}, note="climb the lamp post", dice_faces=[4, 5])
    seed.act("narrator", "roll", None, {"expression": "1d20"}, visibility="blind", dice_faces=[17])
    seed.prompt("narrator", wren, "roll", {"expression": "1d20+2"}, note="Does Wren spot the toll-keeper's trick?")
