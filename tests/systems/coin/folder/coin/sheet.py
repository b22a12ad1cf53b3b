"""A Coins character's sheet: luck (what a success adds) and notes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class CoinSheet(BaseModel):
    luck: int = Field(0, ge=0, le=99)
    notes: str = Field("", max_length=500)


def public_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    return {"luck": sheet.get("luck", 0)}


def dump(sheet: CoinSheet) -> dict[str, Any]:
    """What the rules service stores (RuleSystem.sheets): the keys the sheet had or was given."""
    return sheet.model_dump(mode="json", exclude_unset=True)
