"""The Cat's two fights' states as typed models (issue 38): what the rules service validates the stored JSON with
before a step (the "cat-fight" and "foe-fight" kinds, __init__.py) and dumps back after it; brawls.py plays them.
The JSON keeps its shape: a key a state never had stays missing (a challenge not yet answered has no faces)."""

from __future__ import annotations

from typing import Any, Literal

from app.systems.stored import Stored

Weapon = Literal["claws", "fangs", "legs"]


class CatFightState(Stored):
    """Cat against cat: the challenger's weapon (hidden from the other side until the answer), then both rolls."""

    stage: Literal["answer", "done"] = "answer"
    challenger_weapon: Weapon
    defender_weapon: Weapon | None = None
    challenger_faces: list[int] = []
    defender_faces: list[int] = []
    challenger_evens: int = 0
    defender_evens: int = 0
    challenger_scars: int = 0
    defender_scars: int = 0
    winner: str | None = None
    ending: Any = None  # language-neutral (app.i18n.msg): how the challenge was called off


class FoughtRound(Stored):
    round: int
    weapon: Weapon
    cat_faces: list[int] = []
    foe_faces: list[int] = []
    cat_scars: int = 0
    foe_scars: int = 0
    cancelled: int = 0


class FoeFightState(Stored):
    """Cat against a foe: rounds (the last 20 kept; the log has them all) until one side wins, flees or it is
    called off."""

    round: int = 0
    foe_trait: Literal["claws", "fangs"] = "fangs"
    rounds: list[FoughtRound] = []
    stage: Literal["done"] | None = None  # set when the fight ends
    ending: Any = None  # language-neutral (app.i18n.msg)
