"""The ART Engine on the one sheet layout (tests/characters/test_sheet_layout.py and its browser twin,
through tests/utils/sheets.py): a player's new sheet (its creation fields) and a prompt the narrator calls for."""

from __future__ import annotations

from typing import Any

from utils.art import balanced_fields

CASE: tuple[dict[str, Any], str, dict[str, Any]] = (
    balanced_fields(),
    "trait_roll",
    {"attribute": "AGI", "difficulty": "IN"},
)
