"""Cat on the one sheet layout (tests/characters/test_sheet_layout.py and its browser twin,
through tests/utils/sheets.py): a player's new sheet (its creation fields) and a prompt the narrator calls for."""

from __future__ import annotations

from typing import Any

CASE: tuple[dict[str, Any], str, dict[str, Any]] = (
    {
        "human_name": "Mister Buttons",
        "cat_name": "Smoke",
        "secret_name": "Ashwhisker",
        "rank_claws": "strong",
        "rank_coat": "good",
        "rank_face": "best",
        "rank_fangs": "strong",
        "rank_legs": "strong",
        "rank_tail": "good",
        "rep_name_1": "Best mouser",
        "rep_rank_1": "3",
        "rep_name_2": "Never lost",
        "rep_rank_2": "2",
        "rep_name_3": "Friend of the baker",
        "rep_rank_3": "2",
    },
    "test_fate",
    {"trait": "legs", "difficulty": "hard"},
)
