"""The duel's state as typed models (issue 38): what the rules service validates the stored JSON with before a step
(the "duel" kind, __init__.py) and dumps back after it. The pure rules (rules/duel.py) play a move on the JSON (a
copy: `stored()`); the step validates what they return again. The fields are described in rules/duel.py."""

from __future__ import annotations

from typing import Any, Literal

from app.systems.stored import Stored


class DuelCat(Stored):
    name: str
    attack: int
    defend: int
    jump: int
    sneak: int
    quickness: int
    health: int


class DuelState(Stored):
    a: DuelCat
    b: DuelCat
    phase: Literal["begin", "sneak", "attack", "respond", "over"] = "begin"
    attacker: str | None = None  # "a" or "b": the cat with the upper hand
    pending_attack: int | None = None
    over: bool = False
    winner: str | None = None
    escaped: str | None = None
    outcome: str | None = None
    round: int = 0
    recent: list[dict[str, Any]] = []  # the steps in words, newest first
    # What the duel page shows (with_view): whose move, the legal moves, the defender's chances.
    to_move: str | None = None
    legal: list[str] = []
    chances: dict[str, Any] | None = None
