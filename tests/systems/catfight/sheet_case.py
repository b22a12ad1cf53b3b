"""The cat fight on the one sheet layout (tests/characters/test_sheet_layout.py and its browser twin,
through tests/utils/sheets.py): a player's new sheet (its creation fields) and a prompt the narrator calls for."""

from __future__ import annotations

from typing import Any

from utils.catfight import TECKA

CASE: tuple[dict[str, Any], str, dict[str, Any]] = (
    dict(TECKA),
    "challenge",
    {},
)
