"""The ART Engine on the one sheet layout (tests/characters/test_sheet_layout.py and its browser twin,
through tests/utils/sheets.py): a player's new sheet (its creation fields) and a prompt the narrator calls for."""

from __future__ import annotations

from typing import Any

ART_PAIRS = {
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

CASE: tuple[dict[str, Any], str, dict[str, Any]] = (
    {
        "sheet_kind": "adventurer",
        "method": "balanced",
        **{f"{code}_{side}": str(v) for code, pair in ART_PAIRS.items() for side, v in zip("ab", pair)},
    },
    "trait_roll",
    {"attribute": "AGI", "difficulty": "IN"},
)
