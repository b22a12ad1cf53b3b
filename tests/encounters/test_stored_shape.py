"""Every encounter kind's stored JSON keeps its exact shape through its typed model (issue 38, as issue 23 did for
ART's combat): dumps → loads → dumps, byte for byte, for states the rules service stored while the systems' own
tests played each kind (stored_states.json: for each kind, the states that together hold every key its tests
reached; captured by recording what `save_encounter` stored). A new kind adds its states there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.systems import SYSTEMS
from app.systems.base import stored_state

STATES: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).resolve().parent / "stored_states.json").read_text(encoding="utf-8")
)
KINDS = sorted(f"{sid}:{kind}" for sid, system in SYSTEMS.items() for kind in system.encounters)


def test_every_declared_kind_has_stored_states() -> None:
    assert set(KINDS) <= set(STATES), "add states of the new kind to stored_states.json"


@pytest.mark.parametrize("key", KINDS)
def test_a_stored_state_survives_its_model_byte_for_byte(key: str) -> None:
    system_id, kind_id = key.split(":")
    kind = SYSTEMS[system_id].kind(kind_id)
    assert STATES[key], key
    for stored in STATES[key]:
        text = json.dumps(stored, ensure_ascii=False)
        model = kind.load(json.loads(text))
        assert isinstance(model, kind.state)
        again = json.dumps(stored_state(model), ensure_ascii=False)
        assert again == text
        # and once more, from what it gave back: the shape is a fixed point
        assert json.dumps(stored_state(kind.load(json.loads(again))), ensure_ascii=False) == text


@pytest.mark.parametrize("key", KINDS)
def test_a_state_missing_its_optional_keys_stays_without_them(key: str) -> None:
    """A key an older state lacks is not added by the model (exclude_unset): the smallest stored state of the kind
    comes back with exactly its own keys."""
    system_id, kind_id = key.split(":")
    kind = SYSTEMS[system_id].kind(kind_id)
    smallest = min(STATES[key], key=lambda s: len(json.dumps(s)))
    assert list(stored_state(kind.load(smallest))) == list(smallest)


TYPED_SHEETS = sorted(sid for sid, system in SYSTEMS.items() if system.sheets is not None)


@pytest.mark.parametrize("system_id", TYPED_SHEETS)
def test_a_stored_sheet_survives_its_model_byte_for_byte(system_id: str) -> None:
    """A system whose sheets cross the seam as its model (RuleSystem.sheets): a new sheet comes back from the service's
    load → dump as it was stored."""
    system = SYSTEMS[system_id]
    assert system.sheets is not None
    text = json.dumps(system.default_sheet(), ensure_ascii=False)
    assert json.dumps(system.sheets.dump(system.load_sheet(json.loads(text))), ensure_ascii=False) == text


# Sheets the rules service stored while ART's and Rabbits' own tests played (stored_sheets.json: for each system, the
# sheets that together hold every key and value type its tests reached; captured by recording what
# RuleSystem.stored_sheets gave the service). A system converted to typed sheets adds its own there.
SHEETS: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).resolve().parent / "stored_sheets.json").read_text(encoding="utf-8")
)
PLAYED_SHEETS = [f"{sid}:{n}" for sid in sorted(SHEETS) for n in range(len(SHEETS[sid]))]


def test_art_and_rabbits_have_stored_sheets() -> None:
    assert {"art", "rabbits"} <= set(SHEETS) and all(SHEETS[sid] for sid in SHEETS)
    assert set(SHEETS) <= set(TYPED_SHEETS), "a sheet kept here is one whose system declares `sheets`"


@pytest.mark.parametrize("key", PLAYED_SHEETS)
def test_a_played_sheet_survives_its_model_byte_for_byte(key: str) -> None:
    """load (the service, once, before the action) → dump (once, after it): the stored JSON, byte for byte, and
    a fixed point."""
    system_id, index = key.split(":")
    system = SYSTEMS[system_id]
    assert system.sheets is not None
    text = json.dumps(SHEETS[system_id][int(index)], ensure_ascii=False)
    again = json.dumps(system.sheets.dump(system.load_sheet(json.loads(text))), ensure_ascii=False)
    assert again == text
    assert json.dumps(system.sheets.dump(system.load_sheet(json.loads(again))), ensure_ascii=False) == text
