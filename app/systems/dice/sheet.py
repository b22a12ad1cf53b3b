"""The generic roller's sheet: notes only (a dice character is a name to roll for)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from app.errors import validation_message
from app.i18n import _
from app.systems.base import ActionError


class DiceSheet(BaseModel):
    notes: str = Field(default="", max_length=5000)


def load(sheet: Mapping[str, Any]) -> DiceSheet:
    """The stored sheet as the model (RuleSystem.sheets); a sheet broken by hand is refused in words."""
    try:
        return DiceSheet.model_validate(dict(sheet))
    except ValidationError as exc:
        raise ActionError(
            _("This sheet is damaged: {error}").format(error=validation_message(exc, DiceSheet)[0])
        ) from exc


def dump(sheet: DiceSheet) -> dict[str, Any]:
    return sheet.model_dump(mode="json")
