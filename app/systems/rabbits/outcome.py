"""What a finished roll does to the sheet: tallies, advancement, learning by beginner's luck, Nature tax.

A roll can still change after it is made (Fate, the wise rerolls, a tie given away or broken), so the sheet
keeps, with its last test, the entries the roll touched as they were before it; each change restores them and
applies the roll's new result. rabbits.en.md, "Nature"; RULINGS.md, "Rabbits" (advancement, learning,
ruling 2).
"""

from __future__ import annotations

from typing import Any

from app.i18n import Text, msg
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.sheet import ABILITY_CEILING, RabbitSheet, Tally, ability_word, skill_word


def snapshot(sheet: RabbitSheet, tally: tuple[str, str]) -> dict[str, Any]:
    """The entries a roll may change, as they are before it."""
    kind, name = tally
    skill = name if kind in ("skill", "learning") else None
    return {
        "abilities": {key: value.model_dump() for key, value in sheet.abilities.items()},
        "skill": skill,
        "skill_tally": sheet.skills[skill].model_dump() if skill and skill in sheet.skills else None,
        "learning": sheet.learning.get(skill) if skill else None,
        "retired": sheet.retired,
    }


def _restore(sheet: RabbitSheet, before: dict[str, Any]) -> None:
    sheet.abilities = {key: Tally(**value) for key, value in before["abilities"].items()}
    skill = before["skill"]
    if skill:
        if before["skill_tally"] is None:
            sheet.skills.pop(skill, None)
        else:
            sheet.skills[skill] = Tally(**before["skill_tally"])
        if before["learning"] is None:
            sheet.learning.pop(skill, None)
        else:
            sheet.learning[skill] = before["learning"]
    sheet.retired = before["retired"]


def _mark(tally: Tally, passed: bool, ceiling: int, label: str | Text) -> list[Text]:
    if passed:
        tally.passes += 1
    else:
        tally.fails += 1
    if tally.rating >= 1 and rabbits.advancement_due(tally.rating, tally.passes, tally.fails, maximum=ceiling):
        tally.rating += 1
        tally.passes = tally.fails = 0
        return [msg("{name} advances to {rating}", name=label, rating=tally.rating)]
    return []


def _tally(sheet: RabbitSheet, kind: str, name: str, passed: bool) -> list[Text]:
    if kind == "skill":
        return _mark(sheet.skills[name], passed, rabbits.SKILL_MAX, skill_word(name))
    if kind == "ability":
        return _mark(sheet.abilities[name], passed, ABILITY_CEILING[name], ability_word(name))
    tests = sheet.learning.get(name, 0) + 1
    if rabbits.beginners_luck_learned(tests, sheet.abilities["nature"].rating):
        sheet.learning.pop(name, None)
        sheet.skills[name] = Tally(rating=rabbits.NEW_SKILL_RATING)
        return [msg("learned {name} at {rating}", name=skill_word(name), rating=rabbits.NEW_SKILL_RATING)]
    sheet.learning[name] = tests
    return []


def apply(sheet: RabbitSheet, last: dict[str, Any]) -> list[Text]:
    """Restore what the roll touched and apply its current result; returns what happened, in words."""
    _restore(sheet, last["before"])
    passed = last.get("passed")
    if passed is None:  # an unsettled tie: nothing is marked until it is settled
        return []
    notes = _tally(sheet, last["tally"][0], last["tally"][1], passed)
    if last.get("nature_used"):
        tax = rabbits.nature_tax(last.get("within_nature", False), passed, last.get("margin", 0))
        if tax:
            after = rabbits.taxed_nature(sheet.abilities["nature"].rating, tax)
            sheet.abilities["nature"].rating = after.nature
            notes.append(msg("Nature taxed {tax} to {nature}", tax=tax, nature=after.nature))
            if after.retired:
                sheet.retired = True
                notes.append(msg("the rabbit retires (ruling 2)"))
    last["effects"] = notes
    return notes
