"""The trait roll every ART action shares: trait total, Fame before, taking 25, the ART, Fame regained,
the kicker's perks and items, the inspiration doubles open, and the sheet's memory of the roll.

art-engine.md, ch. 3 "Summary of a Trait Roll" to "Regaining Fame", "Fatigue"; ch. 6 "Inspiration
Points"; RULINGS.md, ART Engine rulings 2-7.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.i18n import N_, Text, _, join, msg
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES, Level
from app.systems.base import ActionError

from . import wording
from .sheet import ArtSheet, fame_left, level_word, ready

ROLL_KINDS = ("trait", "defense", "melee_attack", "ranged_attack", "healing")


@dataclass
class RollSpec:
    """What the narrator announced and the player chose, for one trait roll."""

    label: str | Text  # a name, or msg(...)
    base: int
    attribute: str
    difficulty: Level
    roll_kind: str = "trait"
    skills: list[str] = field(default_factory=list)
    modifiers: int = 0
    fame_before: int = 0
    take25: bool = False
    untrained: bool = False
    item_index: int | None = None  # the weapon or shield used, whose kicker effects count


def parse_level(code: str | None, field_name: str, what: str = N_("the difficulty")) -> Level:
    """`what`: the English name (marked N_) of what to choose, translated here."""
    if not code:
        raise ActionError(_("Choose {what}.").format(what=_(what)), field=field_name)
    try:
        return Level.parse(code)
    except art.ArtRuleError as exc:
        raise ActionError(
            _("{code} is not a level (Catastrophic to Extreme).").format(code=code), field=field_name
        ) from exc


def adjusted(difficulty: Level, columns: int) -> Level:
    try:
        return art.adjust_difficulty(difficulty, columns)
    except art.ArtRuleError as exc:
        raise ActionError(_("Difficulty can be adjusted by up to 3 columns."), field="adjust") from exc


def require_adventurer(sheet: ArtSheet, *, awake: bool = True) -> None:
    if sheet.kind != "adventurer":
        raise ActionError(_("Foes never roll: the player rolls against the foe's level."), field="attribute")
    if not ready(sheet):
        raise ActionError(_("Roll or choose the attributes first."), field="attribute")
    if awake and sheet.unconscious:
        raise ActionError(_("An unconscious adventurer cannot act until a Health box is healed."), field="attribute")


def skill_uses(sheet: ArtSheet, names: list[str], *, untrained: bool = False) -> list[art.SkillUse]:
    names = [n for n in names if n]
    if len(names) > 2:
        raise ActionError(_("Add up to two skills to a roll."), field="skills")
    if len({n.lower() for n in names}) != len(names):
        raise ActionError(_("Use each skill once."), field="skills")
    if untrained and names:
        raise ActionError(_("Without the perk you roll on the 2 row: skills do not help."), field="skills")
    uses = []
    for name in names:
        found = next((s for s in sheet.skills if s.name.lower() == name.lower()), None)
        if found is None:
            raise ActionError(_("{name} is not one of your skills.").format(name=name), field="skills")
        uses.append(art.SkillUse(found.name, found.rating, found.inspiration))
    return uses


def trait_of(sheet: ArtSheet, spec: RollSpec, uses: list[art.SkillUse]) -> int:
    """Attribute + skills + modifiers − fatigue (ch. 3; "Fatigue": −1 on all rolls per point)."""
    if spec.untrained:
        return art.UNTRAINED_ROW
    return art.trait_total(spec.base, [u.rating for u in uses], spec.modifiers - sheet.fatigue)


def check_fame_before(sheet: ArtSheet, amount: int) -> None:
    if amount < 0:
        raise ActionError(_("Fame spent cannot be negative."), field="fame_before")
    if amount > fame_left(sheet):
        raise ActionError(
            _("You have {fame_left} Fame left to spend.").format(fame_left=fame_left(sheet)), field="fame_before"
        )


def item_effects(sheet: ArtSheet, spec: RollSpec, kicker: int | None) -> list[str]:
    """Items that fire on this kicker: the weapon or shield used, and trophies ready or at hand (ch. 2,
    "Trophies"; ch. 1, "Kicker Die")."""
    if kicker is None:
        return []
    fired = []
    for index, item in enumerate(sheet.gear):
        if kicker not in item.kickers or not item.effect:
            continue
        if item.type in ("weapon", "shield") and index != spec.item_index:
            continue
        if item.slot == "stowed":
            continue
        fired.append(f"{item.name}: {item.effect}")
    return fired


def perk_trigger(spec: RollSpec, succeeded: bool) -> str | None:
    if spec.roll_kind == "defense":
        return "defense"
    if spec.roll_kind in ("melee_attack", "ranged_attack"):
        return "hit" if succeeded else "attack"
    return None


@dataclass
class Rolled:
    roll: art.TraitRoll
    uses: list[art.SkillUse]
    options: art.InspirationOptions
    perks: tuple[str, ...]
    items: list[str]
    regained: int


def roll_trait(sheet: ArtSheet, spec: RollSpec, dice: Any, table: art.ArtTable) -> Rolled:
    """Roll, spend Fame before, regain Fame on Awesome; the sheet is changed in place."""
    require_adventurer(sheet, awake=spec.roll_kind != "healing")
    uses = skill_uses(sheet, spec.skills, untrained=spec.untrained)
    check_fame_before(sheet, spec.fame_before)
    trait = trait_of(sheet, spec, uses)
    roll = art.trait_roll(dice, trait, spec.difficulty, fame_before=spec.fame_before, take25=spec.take25, table=table)
    sheet.fame_spent += spec.fame_before
    regained = 0
    if roll.regains_fame:
        regained, sheet.fame_spent = sheet.fame_spent, 0
    inspired_kind = "trait" if spec.roll_kind == "healing" else spec.roll_kind
    options = art.inspiration_options(roll.roll, spec.attribute, uses, roll_kind=inspired_kind)
    trigger = perk_trigger(spec, roll.succeeded)
    perks = art.triggered_perks(list(sheet.perks), trigger, roll.kicker, roll.result) if trigger else ()
    return Rolled(roll, uses, options, perks, item_effects(sheet, spec, roll.kicker), regained)


def remember(
    sheet: ArtSheet, seq: int | None, action: str, spec: RollSpec, rolled: Rolled, **extra: Any
) -> dict[str, Any]:
    """The sheet's note of its last roll, so a follow-up (Fame after, inspiration) is checked by the server."""
    roll = rolled.roll
    memo = {
        "seq": seq,
        "action": action,
        "label": spec.label,
        "attribute": spec.attribute,
        "roll_kind": spec.roll_kind,
        "difficulty": roll.difficulty.name,
        "rolled": roll.rolled.name,
        "result": roll.result.name,
        "roll": roll.roll,
        "kicker": roll.kicker,
        "doubles": roll.doubles,
        "took25": roll.took25,
        "trait": roll.trait,
        "row": roll.row,
        "fame_before": roll.fame_before,
        "fame_after": 0,
        "successes": roll.successes,
        "skills": [u.name for u in rolled.uses],
        "options": {
            "create_skill": rolled.options.create_skill,
            "attribute": rolled.options.attribute,
            "skills": list(rolled.options.skills),
        }
        if rolled.options.any
        else None,
        "inspired": None,
        "perks": list(rolled.perks),
        "effects": rolled.items,
        **extra,
    }
    sheet.last_roll = memo
    return memo


def outcome_of(rolled: Rolled) -> dict[str, Any]:
    roll = rolled.roll
    label, meaning = art.interpret(roll.successes)
    return {
        "trait": roll.trait,
        "row": roll.row,
        "roll": roll.roll,
        "kicker": roll.kicker,
        "doubles": roll.doubles,
        "took25": roll.took25,
        "difficulty": roll.difficulty.name,
        "result": roll.result.name,
        "successes": roll.successes,
        "label": label,
        "meaning": meaning,
        "fame_before": roll.fame_before,
        "fame_regained": rolled.regained,
        "perks": list(rolled.perks),
        "effects": rolled.items,
        "inspiration": {
            "create_skill": rolled.options.create_skill,
            "attribute": rolled.options.attribute,
            "skills": list(rolled.options.skills),
        }
        if rolled.options.any
        else None,
        "total": roll.result.name,
    }


def conceal(outcome: dict[str, Any]) -> dict[str, Any]:
    """A player's roll against a foe: the foe's level stays the narrator's (ruling on foe levels), so the
    outcome keeps the roll, the result and success or failure, not the difficulty or the count of columns."""
    succeeded = (outcome.get("successes") or 0) > 0
    return {
        **outcome,
        "difficulty": None,
        "successes": None,
        "meaning": None,
        "concealed": True,
        "label": "success" if succeeded else "failure",
    }


def describe(spec: RollSpec, rolled: Rolled, *, against: Text | str | None = None) -> Text:
    """One line for the log: what was rolled, on which row, against what, and what came of it. With
    `against` (a foe whose level the roller may not know) the level and the count of columns stay out."""
    roll = rolled.roll
    parts: list[Any] = [spec.label, *(f"{u.name} +{u.rating}" for u in rolled.uses)]
    head: list[Any] = [join(parts, " + ")]
    if spec.untrained:
        head.append(msg(" (untrained: row 2)"))
    extras: list[Any] = [msg("row {row}", row=roll.row)]
    if roll.fame_before:
        extras.append(msg("{n} Fame before", n=roll.fame_before))
    if spec.modifiers:
        extras.append(f"{spec.modifiers:+d}")
    dice = (
        msg("takes 25")
        if roll.took25
        else msg("rolled {roll}", roll=f"{roll.roll:02d}")
        if roll.roll != 100
        else msg("rolled {roll}", roll="00")
    )
    label: Any = wording.outcome_words(roll.successes)
    if against is not None:
        label = msg("success") if roll.successes > 0 else msg("failure")
    text: list[Any] = [
        msg(
            "{head} ({extras}) against {against}: {dice} → {result} ({label})",
            head=join(head, ""),
            extras=join(extras),
            against=against or level_word(roll.difficulty),
            dice=dice,
            result=level_word(roll.result),
            label=label,
        )
    ]
    if rolled.regained:
        text.append(msg("; Awesome restores {n} Fame", n=rolled.regained))
    if roll.doubles:
        text.append(msg("; doubles: inspiration"))
    fired = [*(msg(p) for p in rolled.perks), *rolled.items]
    if fired:
        text.append(msg("; a kicker of {kicker} fires {fired}", kicker=roll.kicker, fired=join(fired, msg(" or "))))
    return join(text, "")


def attribute_code(code: str, field_name: str = "attribute") -> str:
    code = (code or "").upper()
    if code not in ATTRIBUTES:
        raise ActionError(_("Choose one of the ten attributes."), field=field_name)
    return code


def unmet_text(unmet: Iterable[str]) -> Text:
    """What a perk still needs (art.unmet_requirements: "DEX 5+", "the Flurry perk"), for a log line or an error
    in the reader's language: the abbreviations stay, a perk's name is translated."""
    parts: list[Any] = []
    for need in unmet:
        found = re.fullmatch(r"the (.+) perk", need)
        parts.append(msg("the {perk} perk", perk=msg(found[1])) if found else need)
    return join(parts)
