"""The chapter 4-5 contract surface (ART-COMBAT.md): every name exported, result fields as listed,
and the modules stay pure (no web or database imports, no dice)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import app.systems.art.rules as art

CONTRACT = [
    "phases",
    "timed_action",
    "PHASE_SCALES",
    "raise_scale",
    "TRACK_SQUARES",
    "advance_token",
    "next_turn_marker",
    "initiative_order",
    "simplified_initiative",
    "wait_targets",
    "wait",
    "multi_action_fame",
    "free_action_attempt",
    "encounter_range",
    "movement",
    "foe_movement",
    "escape_cost",
    "Band",
    "bands_moved",
    "sneak",
    "stop_foe",
    "defense_damage",
    "foe_fumbles",
    "attack_fumble",
    "fumble",
    "dodge",
    "can_parry",
    "parry",
    "aoe_difficulty",
    "aoe_attack",
    "lowest_fate",
    "aoe_damage",
    "maneuver_difficulty",
    "knock_down",
    "disarm",
    "grapple",
    "protect",
    "sees_through",
]

RESULT_FIELDS = {
    art.TimedAction: ("phases", "succeeded", "again", "aborted", "spent"),
    art.Initiative: ("bonus", "first", "later"),
    art.FreeAttempt: ("done", "turn_ends"),
    art.Movement: ("bands", "free_bands"),
    art.Band: ("foes", "friends", "rough"),
    art.Sneak: ("spotted", "free_action"),
    art.Dodge: ("defense_bonus", "defense_difficulty", "fell", "may_move"),
    art.Parry: ("parried", "lost"),
    art.AoeHit: ("difficulty", "band", "extra_damage", "extra_targets", "out_of_ammo"),
    art.Disarm: ("disarmed", "own_weapon_away"),
    art.Grapple: ("held", "bonus", "defense_modifier"),
}

MODULES = ("exploration", "rounds", "movement", "combat", "aoe", "maneuvers", "_inputs")
RULES = Path(art.__file__).parent


@pytest.mark.parametrize("name", CONTRACT)
def test_contract_name_is_exported(name: str) -> None:
    assert name in art.__all__
    namespace: dict[str, object] = {}
    exec(f"from app.systems.art.rules import {name}", namespace)  # noqa: S102 - the import form the contract names
    assert namespace[name] is getattr(art, name)


@pytest.mark.parametrize(("cls", "fields"), list(RESULT_FIELDS.items()))
def test_result_types_are_frozen_dataclasses_with_the_contract_fields(cls: type, fields: tuple[str, ...]) -> None:
    assert dataclasses.is_dataclass(cls)
    assert tuple(field.name for field in dataclasses.fields(cls)) == fields
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_band_defaults() -> None:
    assert art.Band() == art.Band(foes=0, friends=0, rough=False)


def test_refusals_are_art_rule_errors_and_value_errors() -> None:
    with pytest.raises(ValueError) as raised:
        art.multi_action_fame(4)
    assert isinstance(raised.value, art.ArtRuleError)


@pytest.mark.parametrize("module", MODULES)
def test_chapter_modules_are_pure(module: str) -> None:
    """No web, database or template imports, and no dice: the rules only read rolls already made."""
    tree = ast.parse((RULES / f"{module}.py").read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    forbidden = {"fastapi", "starlette", "sqlalchemy", "jinja2", "random", "secrets", "app.rules.dice"}
    assert not {name for name in imported if name.split(".")[0] in forbidden or name in forbidden}
    assert "dice" not in {name.split(".")[-1] for name in imported}
