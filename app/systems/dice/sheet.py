"""The generic roller's sheet: notes only (a dice character is a name to roll for)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class DiceSheet(BaseModel):
    notes: str = Field(default="", max_length=5000)
