"""A fighting cat's sheet: five values that add up to 70 ("EXAMPLE CAT", ruling 12), its health and whether
it is in a duel; what a new cat's form becomes; what everyone may see of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from app.errors import InvalidValue, validation_message
from app.i18n import N_
from app.i18n import gettext as _
from app.systems.base import ActionError
from app.systems.catfight import rules as catfight

STATS = catfight.STATS
# The five values as both rules texts name them, in capitals (catfight.de.md: „ihren Wert SNEAK“, „auf
# QUICKNESS“): the sheet, the creation form and the log lines use these names, translated where shown (the German
# catalog keeps the seed's words; docs/GLOSSARY.da.md has the Danish ones).
STAT_NAMES: dict[str, str] = {
    "attack": N_("ATTACK"),
    "defend": N_("DEFEND"),
    "jump": N_("JUMP"),
    "sneak": N_("SNEAK"),
    "quickness": N_("QUICKNESS"),
}
# Their short forms, where space is tight (the duel page's two cats side by side, the narrator's glance).
STAT_SHORT: dict[str, str] = {
    "attack": N_("ATK"),
    "defend": N_("DEF"),
    "jump": N_("JMP"),
    "sneak": N_("SNK"),
    "quickness": N_("QCK"),
}


class CatSheet(BaseModel):
    attack: int = Field(default=14, ge=1)
    defend: int = Field(default=14, ge=1)
    jump: int = Field(default=14, ge=1)
    sneak: int = Field(default=14, ge=1)
    quickness: int = Field(default=14, ge=1)
    health: int = Field(default=catfight.MAX_HEALTH, ge=0, le=catfight.MAX_HEALTH)
    fighting: bool = False  # in a duel now (one at a time)
    escaped_at: float | None = None  # server time of its last escape: it regenerates from then on

    @model_validator(mode="after")
    def _sums_to_70(self) -> CatSheet:
        total = sum(getattr(self, stat) for stat in STATS)
        if total != catfight.STAT_TOTAL:
            raise InvalidValue(
                N_("The five values add up to {total}; they must add up to exactly {exactly}."),
                total=total,
                exactly=catfight.STAT_TOTAL,
            )
        return self


def load(sheet: Mapping[str, Any]) -> CatSheet:
    """The stored sheet as the model (RuleSystem.sheets): what the rules service hands the actions. A sheet broken by
    hand (its values not adding up to 70 any more) is refused in words."""
    try:
        return CatSheet.model_validate(dict(sheet))
    except ValidationError as exc:
        error = validation_message(exc, CatSheet)[0]
        raise ActionError(_("This sheet is damaged: {error}").format(error=error), field="sheet") from exc


def dump(sheet: CatSheet) -> dict[str, Any]:
    """The model as the JSON to store: the keys the sheet had or was given (an older sheet gains none)."""
    return sheet.model_dump(mode="json", exclude_unset=True)


def stat_label(stat: str) -> str:
    """A value's name in the reader's language (unknown ids as they are)."""
    return _(STAT_NAMES[stat]) if stat in STAT_NAMES else stat


def create_cat(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The creation form's five values → a new cat's sheet; the first problem is named next to its field."""
    values: dict[str, int] = {}
    for stat in STATS:
        raw = fields.get(stat)
        text = str(raw).strip() if raw is not None and not isinstance(raw, bool) else ""
        try:
            values[stat] = int(text)
        except ValueError:
            raise ActionError(_("%(stat)s must be a whole number.") % {"stat": stat_label(stat)}, field=stat) from None
        if values[stat] < 1:
            raise ActionError(_("%(stat)s must be at least 1.") % {"stat": stat_label(stat)}, field=stat)
    total = sum(values.values())
    if total != catfight.STAT_TOTAL:
        raise ActionError(
            _("The five values add up to %(total)d; they must add up to exactly 70.") % {"total": total}, field="total"
        )
    return CatSheet.model_validate(values).model_dump(mode="json")


def public_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """A duel is fought in the open: everyone sees a cat's values and health."""
    return dict(sheet)
