"""A new character of every rule system (its creation fields) and a prompt the narrator calls for on it: the
sheet layout tests (tests/characters/test_sheet_layout.py, tests/browser/test_sheet_layout_browser.py) build one
of each."""

from __future__ import annotations

from typing import Any

# Per system: a player's new sheet (the creation fields) and a prompt the narrator calls for on it.
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
CASES: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "dice": ({}, "roll", {"expression": "2d6"}),
    "cat": (
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
    ),
    "catfight": ({"attack": 16, "defend": 12, "jump": 15, "sneak": 15, "quickness": 12}, "challenge", {}),
    "rabbits": (
        {"nature": 4, "skills": {"Scout": 3}, "wises": ["Fox-wise"], "traits": ["Quick"]},
        "test",
        {"skill": "Scout"},
    ),
    "art": (
        {
            "sheet_kind": "adventurer",
            "method": "balanced",
            **{f"{code}_{side}": str(v) for code, pair in ART_PAIRS.items() for side, v in zip("ab", pair)},
        },
        "trait_roll",
        {"attribute": "AGI", "difficulty": "IN"},
    ),
}
