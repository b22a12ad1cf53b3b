"""The combat's state as typed models (issue 23 §3): what the rules service validates the stored JSON with before a
step (RuleSystem.encounter_states) and dumps back after it. The JSON keeps its shape: a key missing from an older
state stays missing (dumped with exclude_unset), and `unset` takes a key out again (a ruse ended, a perk used).

art-engine.md, ch. 5 "Combat Rounds"; the fields are described in fight/state.py.
"""

from __future__ import annotations

from typing import Any, Literal

from app.systems.stored import Stored

__all__ = ["CombatState", "Feature", "Fighter", "Stored", "Turn"]


class Feature(Stored):
    band: int
    kind: Literal["exit", "rough", "hazard"]
    label: str = ""


class Fighter(Stored):
    id: int
    name: str
    side: Literal["adventurer", "foe"]
    count: int = 1
    band: int = 0
    initiative: str | None = None  # a foe's Alertness level, an adventurer's initiative roll (a level name)
    tie: list[Any] = []
    out: bool = False  # defeated
    skip: bool = False  # staggered: loses its next turn
    prone: bool = False
    dodge: dict[str, Any] | None = None  # {bonus, difficulty} until the start of its next turn
    penalty: dict[str, Any] | None = None  # a fumble's {columns, turns}
    next: list[str] = []  # what happens at the start of its next turn
    now: list[str] = []  # … and holds during this one
    grapple: dict[str, Any] | None = None  # {with, bonus}
    aim: int = 0
    acted_round: int | None = None
    # Set only while they last (a key the dict did not have before):
    perk_bonuses: list[dict[str, Any]] = []
    perk_choice: dict[str, Any] | None = None
    free_attack: dict[str, Any] | None = None
    may_play_dead: bool = False
    playing_dead: bool = False
    ruse: dict[str, Any] | None = None
    stop_round: int | None = None


class Turn(Stored):
    id: int
    turns: int = 1
    action: bool = False  # the turn's action is used
    move: dict[str, Any] | None = None  # {bands, free, used, mode, ended, result}
    free_used: bool = False


class CombatState(Stored):
    phase: Literal["initiative", "rounds", "over"] = "initiative"
    bands: int = 8
    features: list[Feature] = []
    fighters: list[Fighter] = []
    simplified: bool = False
    initiative: dict[str, Any] | None = None  # {bonus, first, later} of ids, or {simple: [...]}
    round: int = 0
    order: list[int] = []  # who still acts this round; order[0] is on turn
    waited: list[int] = []
    turn: Turn | None = None
    pending: dict[str, Any] | None = None  # a reaction the game waits for (a Defense roll, a parry offer, …)
    recent: list[dict[str, Any]] = []  # the last steps in words, newest first
    title: Any = None  # a made-up title (language-neutral), when the narrator gave none
    into_grapple: int | None = None  # during an attack into a grapple: who the Fate rolls chose
