"""The ART Engine sheet: an adventurer's or a foe's, as stored, with the numbers derived from it.

art-engine.md, ch. 2 "Your Character Sheet", "Health", "Fame", "Gear", "Armor & Defense", "Shields",
"Weapons & Attack"; ch. 1 "Abilities" (foe attributes are levels). Derived numbers (Defense, Attack,
range, shield uses) are computed here and never stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from app.errors import InvalidValue, validation_message
from app.i18n import N_, Text, _, msg
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES, FORTUNE_RANKS, Level
from app.systems.base import ActionError

LEVEL_CODES: tuple[str, ...] = tuple(level.name for level in Level)
FOE_TRAITS: dict[str, str] = {**ATTRIBUTES, "ATK": N_("Attack"), "DEF": N_("Defense")}
SLOTS: dict[str, int] = {"ready": 2, "at_hand": 4, "stowed": 9}  # ch. 2, "Gear"
SLOT_NAMES: dict[str, str] = {"ready": N_("Ready"), "at_hand": N_("At hand"), "stowed": N_("Stowed")}
WEAPON_KINDS: dict[str, str] = {
    "melee_1h": N_("One-handed melee"),
    "melee_2h": N_("Two-handed melee"),
    "ranged_1h": N_("One-handed ranged"),
    "ranged_2h": N_("Two-handed ranged"),
    "shotgun": N_("Shotgun"),
}
ITEM_TYPES = ("item", "weapon", "shield", "medkit")
SHOTGUN_BONUS = 2  # ch. 2, "Weapon Attack" notes: "Shotguns receive +2 on their attack" (see the rulings)


class Skill(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    rating: int = Field(ge=1, le=8)
    inspiration: int = Field(default=0, ge=0, le=4)


class Item(BaseModel):
    """One slot's worth of gear (a kit of small things is one item). Weapons and shields have a Fortune cost;
    a med-kit has uses and a bonus; any item may fire an effect on given kicker faces (a trophy)."""

    name: str = Field(min_length=1, max_length=80)
    slot: Literal["ready", "at_hand", "stowed"] = "stowed"
    type: Literal["item", "weapon", "shield", "medkit"] = "item"
    cost: str | None = None
    weapon: Literal["melee_1h", "melee_2h", "ranged_1h", "ranged_2h", "shotgun"] | None = None
    thrown: bool = False
    reach: bool = False  # ch. 2 "Melee Weapon Features", Reach: a two-handed melee weapon attacks an adjacent band
    uses: int | None = Field(default=None, ge=0, le=99)
    bonus: int = Field(default=0, ge=-10, le=10)
    kickers: list[int] = Field(default_factory=list)
    effect: str = Field(default="", max_length=200)

    @property
    def two_handed(self) -> bool:
        return self.weapon in ("melee_2h", "ranged_2h", "shotgun")

    @property
    def slots_used(self) -> int:
        return 2 if self.two_handed and self.slot == "ready" else 1


class ArtSheet(BaseModel):
    kind: Literal["adventurer", "foe"] = "adventurer"
    # Adventurer
    method: Literal["balanced", "random"] = "balanced"
    attributes: dict[str, int | None] = Field(default_factory=lambda: dict.fromkeys(ATTRIBUTES))
    attribute_inspiration: dict[str, int] = Field(default_factory=dict)
    fame: int = Field(default=art.STARTING_FAME, ge=0)
    fame_spent: int = Field(default=0, ge=0)
    glory: int = Field(default=0, ge=0)
    fortune: str | None = None
    xp: int = Field(default=0, ge=0)
    fatigue: int = Field(default=0, ge=0, le=30)
    unconscious: bool = False
    skills: list[Skill] = Field(default_factory=list)
    perks: dict[str, int] = Field(default_factory=dict)
    armor: str | None = None
    gear: list[Item] = Field(default_factory=list)
    sessions: int = Field(default=0, ge=0)
    between_adventures: bool = True
    last_roll: dict[str, Any] | None = None
    sustained: dict[str, Any] | None = None
    complex: dict[str, Any] | None = None  # an open (or just finished) complex action, see complex.py
    burning: dict[str, Any] | None = None  # sustained damage under way (fire, acid), see health.py
    starting_gear: dict[str, Any] | None = None  # chosen at creation, equipped once Fortune is known (creation.py)
    # Both: the Health track (levels, low to high) and its check marks
    health: list[str] = Field(default_factory=list)
    checked: list[bool] = Field(default_factory=list)
    # Foe
    levels: dict[str, str] = Field(default_factory=dict)
    damage_rating: int = Field(default=0, ge=0, le=3)
    henchman: bool = False
    notes: str = Field(default="", max_length=2000)

    @field_validator("health")
    @classmethod
    def _levels(cls, value: list[str]) -> list[str]:
        for code in value:
            if code not in LEVEL_CODES:
                raise InvalidValue(N_("{code!r} is not an ART level."), code=code)
        return value

    @model_validator(mode="after")
    def _track(self) -> ArtSheet:
        if len(self.checked) != len(self.health):
            self.checked = (self.checked + [False] * len(self.health))[: len(self.health)]
        return self


def load(sheet: Mapping[str, Any]) -> ArtSheet:
    return ArtSheet.model_validate(dict(sheet))


def stored(sheet: Mapping[str, Any]) -> ArtSheet:
    """The stored sheet as the model its actions take (RuleSystem.sheets: loaded once by the rules service). A sheet
    broken by hand is refused in words, not a 500."""
    try:
        return load(sheet)
    except ValidationError as exc:
        error = validation_message(exc, ArtSheet)[0]
        raise ActionError(_("This sheet is damaged: {error}").format(error=error), field="sheet") from exc


def dump(sheet: ArtSheet) -> dict[str, Any]:
    """The model as the JSON to store (RuleSystem.sheets: dumped once), validated again: its track kept whole."""
    return ArtSheet.model_validate(sheet.model_dump()).model_dump(mode="json")


@lru_cache(maxsize=32)
def _parsed(csv_text: str) -> art.ArtTable:
    return art.load_table(csv_text)


def table_of(settings: Mapping[str, Any] | None) -> art.ArtTable:
    """The campaign's own Action Results Table if it uploaded one, else the default (ruling 1)."""
    text = (settings or {}).get("table_csv")
    return _parsed(text) if text else art.DEFAULT_TABLE


def level(code: str) -> Level:
    return Level[code]


def level_name(code: str | Level) -> str:
    return (code if isinstance(code, Level) else Level[code]).display_name


def level_word(code: str | Level) -> Text:
    """A level's name in a log line (translated when read)."""
    return msg(level_name(code))


# --- derived numbers -------------------------------------------------------------------------------------


def ready(sheet: ArtSheet) -> bool:
    return sheet.kind == "adventurer" and all(v is not None for v in sheet.attributes.values())


def attr(sheet: ArtSheet, code: str) -> int:
    value = sheet.attributes.get(code)
    if value is None:
        raise ActionError(_("Roll or choose the attributes first."), field="attribute")
    return value


def fame_left(sheet: ArtSheet) -> int:
    return max(0, sheet.fame - sheet.fame_spent)


def defense(sheet: ArtSheet) -> int:
    """Agility adjusted by the armor's cost, at least 1 (ch. 2, "Armor & Defense")."""
    return art.defense(attr(sheet, "AGI"), sheet.armor or FORTUNE_RANKS[0])


def shield(sheet: ArtSheet) -> Item | None:
    """The shield the adventurer can use: ready or at hand (ch. 2, "Shields")."""
    return next((i for i in sheet.gear if i.type == "shield" and i.slot in ("ready", "at_hand") and i.cost), None)


def shield_bonus(sheet: ArtSheet) -> int:
    found = shield(sheet)
    return art.SHIELDS[art.fortune_rank(found.cost)][0] if found and found.cost else 0


def shield_uses(sheet: ArtSheet) -> int:
    """Uses per round: DEX + STR + the shield's Speed (+2 per Shield Use rank) (ch. 2, ch. 6)."""
    found = shield(sheet)
    if not found or not found.cost:
        return 0
    speed = art.SHIELDS[art.fortune_rank(found.cost)][1] + 2 * sheet.perks.get("Shield Use", 0)
    return art.shield_uses(attr(sheet, "DEX"), attr(sheet, "STR"), speed)


def two_handed_ready(sheet: ArtSheet) -> bool:
    return any(i.two_handed and i.slot == "ready" for i in sheet.gear)


def weapon_stats(sheet: ArtSheet, item: Item) -> dict[str, Any]:
    """Attack, the attribute it uses, range in bands and any Strength it lacks (ch. 2, "Weapon Attack")."""
    row = art.WEAPON_ATTACK[art.fortune_rank(item.cost or FORTUNE_RANKS[0])]
    kind = item.weapon or "melee_1h"
    extra = item.bonus
    if kind == "melee_1h":
        code, modifier, reach = "DEX", row.melee_1h_dex, 0
    elif kind == "melee_2h":
        code, modifier, reach = "STR", row.melee_2h_str, 0
    elif kind == "ranged_1h":
        code, modifier, reach = "ALE", row.ranged_1h_ale, row.range_1h
    elif kind == "ranged_2h":
        code, modifier, reach = "ALE", row.ranged_2h_ale, row.range_2h
    else:
        code, modifier, reach = "ALE", row.ranged_2h_ale, row.shotgun_range
        extra += SHOTGUN_BONUS
    required = row.ranged_2h_str_required if kind in ("ranged_2h", "shotgun") else 0
    thrown = art.thrown_range(attr(sheet, "STR"))[0] if item.thrown and kind == "melee_1h" else None
    return {
        "attack": art.weapon_attack(attr(sheet, code), modifier, bonus=extra),
        "attribute": code,
        "range": reach,
        "thrown_range": thrown,
        "reach": item.reach and kind == "melee_2h",
        "ranged": kind.startswith("ranged") or kind == "shotgun",
        "strength_required": required,
        "too_heavy": attr(sheet, "STR") < required,
    }


def slot_counts(gear: list[Item]) -> dict[str, int]:
    counts = dict.fromkeys(SLOTS, 0)
    for item in gear:
        counts[item.slot] += item.slots_used
    return counts


def check_slots(gear: list[Item]) -> None:
    for slot, used in slot_counts(gear).items():
        if used > SLOTS[slot]:
            raise ActionError(
                _(
                    "{slot} holds {count} items; this would make {used} (a two-handed weapon fills both ready slots)."
                ).format(slot=_(SLOT_NAMES[slot]), count=SLOTS[slot], used=used),
                field="slot",
            )


def health_boxes(sheet: ArtSheet) -> list[Level]:
    return [Level[code] for code in sheet.health]


def health_rank(sheet: ArtSheet) -> int | None:
    try:
        return art.health_rank(health_boxes(sheet))
    except art.ArtRuleError:
        return None


def defeated(sheet: ArtSheet) -> bool:
    return bool(sheet.checked) and all(sheet.checked)


def derived(sheet_data: Mapping[str, Any]) -> dict[str, Any]:
    """What the sheet page shows but nobody types in."""
    sheet = load(sheet_data)
    if sheet.kind == "foe":
        return {
            "henchman_traits": {code: art.henchman_trait(Level[value]) for code, value in sheet.levels.items()},
            "defeated": defeated(sheet),
        }
    if not ready(sheet):
        return {"ready": False}
    weapons = [
        (index, item, weapon_stats(sheet, item)) for index, item in enumerate(sheet.gear) if item.type == "weapon"
    ]
    return {
        "ready": True,
        "defense": defense(sheet),
        "shield_bonus": shield_bonus(sheet),
        "shield_uses": shield_uses(sheet),
        "two_handed": two_handed_ready(sheet),
        "weapons": weapons,
        "fame_left": fame_left(sheet),
        "slots": slot_counts(sheet.gear),
        "health_rank": health_rank(sheet),
        "defeated": defeated(sheet),
        "thrown_range": art.thrown_range(attr(sheet, "STR")),
    }


def public_sheet(sheet_data: dict[str, Any]) -> dict[str, Any]:
    """What other players see: the Health track and standing, not the numbers."""
    sheet = load(sheet_data)
    shown: dict[str, Any] = {"kind": sheet.kind, "health": sheet.health, "checked": sheet.checked}
    if sheet.kind == "adventurer":
        shown.update(fame=sheet.fame, glory=sheet.glory, unconscious=sheet.unconscious, fatigue=sheet.fatigue)
    return shown


CONCEALED = ("difficulty", "successes", "meaning")


def owner_sheet(sheet_data: dict[str, Any]) -> dict[str, Any]:
    """What the adventurer's player sees: everything but a foe's level remembered with a roll against it
    (the narrator's alone); the server still reads it for Fame after."""
    last = sheet_data.get("last_roll")
    if not isinstance(last, dict) or not last.get("concealed"):
        return sheet_data
    shown = {k: v for k, v in last.items() if k not in CONCEALED}
    shown["label"] = "success" if (last.get("successes") or 0) > 0 else "failure"
    return {**sheet_data, "last_roll": shown}
