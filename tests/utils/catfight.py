"""Builders for the cat fight tests: the two duelling cats' values (a cat's five values add up to 70)."""

from __future__ import annotations

# Tecka, the rules' example cat (catfight.en.md, EXAMPLE CAT), and Mimi, a defender.
TECKA = {"attack": 16, "defend": 12, "jump": 15, "sneak": 15, "quickness": 12}
MIMI = {"attack": 12, "defend": 16, "jump": 14, "sneak": 14, "quickness": 14}
