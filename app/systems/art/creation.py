"""Creating an adventurer (balanced or random attributes) or a foe, and rolling random attributes.

art-engine.md, ch. 2 "Determining Attributes", "Random Method", "Balanced Method", "Health", "Fame",
"Fortune", "Starting Experience", "Starting Skills"; ch. 1 "Abilities" (foe attributes are levels).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from app.i18n import _, join, msg, rule_message
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES, BALANCED_NUMBERS, FORTUNE_RANKS, Level
from app.systems.base import ActionError, Context, Resolution

from .sheet import FOE_TRAITS, LEVEL_CODES, ArtSheet, Item, Skill, dump

MAX_STARTING_SKILLS = 6  # rows on the creation form


def _text(fields: Mapping[str, Any], name: str) -> str:
    value = fields.get(name, "")
    if isinstance(value, list):
        value = value[0] if value else ""
    return str(value).strip()


def finish_attributes(sheet: ArtSheet) -> ArtSheet:
    """Once every attribute has a score: Health from Stamina, Fortune from Fate, Fame 1, experience =
    Intelligence (ch. 2); then the starting gear chosen at creation, which needs the Fortune."""
    scores = {code: value for code, value in sheet.attributes.items() if value is not None}
    sheet.health = [box.name for box in art.health_track(scores["STA"])]
    sheet.checked = [False] * len(sheet.health)
    sheet.fortune = art.starting_fortune(scores["FAT"])
    sheet.fame = art.STARTING_FAME
    sheet.xp = art.starting_experience(scores["INT"])
    choice, sheet.starting_gear = sheet.starting_gear or {}, None
    if choice.get("weapon"):
        sheet.gear = [*sheet.gear, starting_weapon(sheet, choice["weapon"])]
    if choice.get("armor"):
        sheet.armor = art.starting_armor(sheet.fortune, scores["STR"])
    return sheet


def starting_weapon(sheet: ArtSheet, weapon_class: str) -> Item:
    """A weapon of a class from ch. 2's Weapon Class table at the best cost the adventurer's Fortune (and, for a
    two-handed ranged weapon, Strength) allows, named by its class in the player's language."""
    cost = art.starting_weapon_cost(weapon_class, sheet.fortune or FORTUNE_RANKS[0], sheet.attributes["STR"] or 0)
    return Item.model_validate(
        {
            "name": _(weapon_class),
            "slot": "ready",
            "type": "weapon",
            "cost": cost,
            "weapon": art.WEAPON_CLASSES[weapon_class],
        }
    )


def _gear_choice(fields: Mapping[str, Any]) -> dict[str, Any] | None:
    """The creation form's starting gear: a weapon class (or none) and whether to wear the best armor.
    A form without the fields (an API client listing its gear itself) chooses none."""
    weapon = _text(fields, "starting_weapon")
    if weapon in ("", "none"):
        weapon = ""
    elif weapon not in art.WEAPON_CLASSES:
        raise ActionError(_("Choose a weapon class from the list."), field="starting_weapon")
    armor = _text(fields, "starting_armor") in ("1", "on", "true")
    return {"weapon": weapon, "armor": armor} if weapon or armor else None


def _balanced(fields: Mapping[str, Any]) -> dict[str, int]:
    pairs: dict[str, tuple[int, int]] = {}
    left = Counter(BALANCED_NUMBERS)
    for code, name in ATTRIBUTES.items():
        pair = []
        for half in ("a", "b"):
            field = f"{code}_{half}"
            text = _text(fields, field)
            if not text:
                raise ActionError(_("Choose two numbers from the list for {name}.").format(name=name), field=field)
            if not text.isdigit() or int(text) not in left:
                raise ActionError(_("{text} is not on the list (1 to 6).").format(text=text), field=field)
            number = int(text)
            if left[number] == 0:
                times = BALANCED_NUMBERS.count(number)
                raise ActionError(
                    _("The list has only {times} × {number}, and they are all used by now.").format(
                        times=times, number=number
                    ),
                    field=field,
                )
            left[number] -= 1
            pair.append(number)
        pairs[code] = (pair[0], pair[1])
    try:
        return art.balanced_attributes(pairs)
    except art.ArtRuleError as exc:  # the checks above name the field; this keeps any other rule error a 422
        raise ActionError(rule_message(exc), field=exc.field) from exc


def _starting_skills(fields: Mapping[str, Any], xp: int) -> tuple[list[Skill], int]:
    skills: list[Skill] = []
    for index in range(MAX_STARTING_SKILLS):
        name = _text(fields, f"skill_{index}")
        rating_text = _text(fields, f"skill_{index}_rating")
        if not name:
            continue
        if len(name) > 80:
            raise ActionError(_("Keep a skill's name under 80 characters."), field=f"skill_{index}")
        if any(s.name.lower() == name.lower() for s in skills):
            raise ActionError(
                _("You already have {name}; a new skill must differ.").format(name=name), field=f"skill_{index}"
            )
        rating = int(rating_text) if rating_text.isdigit() else 1
        if rating not in art.STARTING_SKILL_COSTS:
            raise ActionError(_("Starting skills are +1 to +4."), field=f"skill_{index}_rating")
        cost = art.starting_skill_cost(rating)
        if cost > xp:
            raise ActionError(
                _("+{rating} costs {cost} xp; you have {xp} left.").format(rating=rating, cost=cost, xp=xp),
                field=f"skill_{index}_rating",
            )
        xp -= cost
        skills.append(Skill(name=name, rating=rating))
    return skills, xp


def _foe(fields: Mapping[str, Any]) -> dict[str, Any]:
    levels = {}
    for code, name in FOE_TRAITS.items():
        value = _text(fields, f"level_{code}").upper()
        if value not in LEVEL_CODES:
            raise ActionError(
                _("Choose {name}'s level (Catastrophic to Extreme).").format(name=_(name)), field=f"level_{code}"
            )
        levels[code] = value
    health = [_text(fields, f"health_{i}").upper() for i in range(6)]
    health = [box for box in health if box]
    for i, box in enumerate(health):
        if box not in LEVEL_CODES:
            raise ActionError(_("{box} is not a level.").format(box=box), field=f"health_{i}")
    if not health:
        raise ActionError(_("A foe needs at least one Health box."), field="health_0")
    health.sort(key=lambda code: Level[code])
    rating_text = _text(fields, "damage_rating") or "0"
    if rating_text not in ("0", "1", "2", "3"):
        raise ActionError(_("A damage rating is +0 to +3."), field="damage_rating")
    sheet = ArtSheet(
        kind="foe",
        levels=levels,
        health=health,
        checked=[False] * len(health),
        damage_rating=int(rating_text),
        henchman=_text(fields, "henchman") in ("1", "on", "true"),
        notes=_text(fields, "notes")[:2000],
        attributes={},
        fame=0,
    )
    return dump(sheet)


def create(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A new sheet from the creation form. Errors name the field to fix."""
    what = _text(fields, "sheet_kind") or "adventurer"
    if what == "foe":
        return _foe(fields)
    if what != "adventurer":
        raise ActionError(_("Create an adventurer or a foe."), field="sheet_kind")
    method = _text(fields, "method") or "balanced"
    gear = _gear_choice(fields)
    if method == "random":
        # The scores are rolled on the sheet, through the rules service, so the log shows the dice.
        return dump(ArtSheet(method="random", starting_gear=gear))
    if method != "balanced":
        raise ActionError(_("Choose the balanced or the random method."), field="method")
    sheet = finish_attributes(ArtSheet(method="balanced", attributes=dict(_balanced(fields)), starting_gear=gear))
    sheet.skills, sheet.xp = _starting_skills(fields, sheet.xp)
    return dump(sheet)


class RollAttributesParams(BaseModel):
    attribute: str | None = Field(default=None, description="The attribute this roll goes to; empty: all the rest")


def resolve_roll_attributes(
    sheet: ArtSheet, params: RollAttributesParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """Random method: 2d6 per attribute, assigned as rolled (ch. 2, "Random Method"). With an attribute
    named, one roll goes to it; without, the remaining attributes are rolled in the sheet's order."""
    if sheet.kind != "adventurer" or sheet.method != "random":
        raise ActionError(_("Only an adventurer made by the random method rolls attributes."), field="attribute")
    empty = [code for code, value in sheet.attributes.items() if value is None]
    if not empty:
        raise ActionError(_("Every attribute already has its score."), field="attribute")
    if params.attribute:
        if params.attribute not in ATTRIBUTES:
            raise ActionError(
                _("{attribute} is not an attribute.").format(attribute=params.attribute), field="attribute"
            )
        if params.attribute not in empty:
            raise ActionError(
                _("{attribute} already has its score.").format(attribute=_(ATTRIBUTES[params.attribute])),
                field="attribute",
            )
        empty = [params.attribute]
    rolled = {}
    for code in empty:
        rolled[code] = dice.roll(6) + dice.roll(6)
        sheet.attributes[code] = rolled[code]
    done = all(value is not None for value in sheet.attributes.values())
    had = len(sheet.gear)
    if done:
        finish_attributes(sheet)
    parts = join(msg("{name} {score}", name=msg(ATTRIBUTES[code]), score=score) for code, score in rolled.items())
    summary = msg("rolls attributes (2d6 each): {parts}", parts=parts)
    if done:
        summary = join(
            [
                summary,
                msg(
                    "; Health {track}, Fortune {fortune}, {xp} xp",
                    track="/".join(sheet.health),
                    fortune=msg(sheet.fortune) if sheet.fortune else "—",
                    xp=sheet.xp,
                ),
            ],
            "",
        )
        gear = [msg("{weapon} ({cost})", weapon=item.name, cost=msg(item.cost or "")) for item in sheet.gear[had:]]
        if sheet.armor:
            gear.append(msg("{cost} armor", cost=msg(sheet.armor)))
        if gear:
            summary = join([summary, msg("; starting gear: {items}", items=join(gear))], "")
    return Resolution(
        request={"attribute": params.attribute},
        outcome={"scores": rolled, "complete": done},
        summary=summary,
        sheet=sheet,
    )
