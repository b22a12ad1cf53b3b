"""Builders for the Rabbits tests that need no table: a new rabbit's creation fields. (A conflict through the rules
service is utils/rabbits_conflict.py.)"""

from __future__ import annotations

from typing import Any

# A new rabbit as a player makes it: Nature 4, Scout 3, one wise and one trait.
NEW_RABBIT: dict[str, Any] = {"nature": 4, "skills": {"Scout": 3}, "wises": ["Fox-wise"], "traits": ["Quick"]}
