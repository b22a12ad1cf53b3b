"""From a roll dialog's choices to a pool (app.systems.rabbits.rules.pool_for), checked against the sheet and the turn.

rabbits.en.md, "Tests", "Nature", "Rewards", "Checks", "Traits"; RULINGS.md, "Rabbits" (beginner's luck,
Persona, ruling 3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Text, _, msg, ngettext, render, rule_message
from app.systems.base import ActionError
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.sheet import (
    RabbitSheet,
    ability_word,
    find_trait,
    find_wise,
    free_trait_uses,
    settings_of,
    skill_name,
    skill_word,
)

TRAIT_CHOICES = ("helps", "against_you", "aids_opponent")


class PoolChoices(BaseModel):
    """What the roll dialog asks before the dice are rolled."""

    skill: str = Field(min_length=1, max_length=40, title=N_("Skill or ability"))
    descriptor: str = Field(default="", max_length=10, title=N_("Within nature"))
    nature_instead: bool = False
    tap_nature: bool = False
    beginners_luck: str = Field(default="will", max_length=10)
    helpers: list[int] = Field(default_factory=list, max_length=20)
    wise: str = Field(default="", max_length=60)
    trait: str = Field(default="", max_length=60)
    trait_use: str = Field(default="helps", max_length=20)
    persona: int = Field(default=0, ge=0, le=rabbits.PERSONA_DICE_MAX)


@dataclass(frozen=True)
class Plan:
    """A checked pool and everything the roll must record or spend."""

    pool: rabbits.Pool
    label: str | Text  # what is tested: msg(...) of a skill, an ability or a phrase (read in the reader's language)
    rolled: str  # "skill" or an ability key
    tally: tuple[str, str]  # ("skill", name), ("ability", key) or ("learning", name)
    nature_used: bool
    within_nature: bool
    trait: str | None
    trait_use: str | None
    free_trait_use: bool
    checks_spent: int
    tiebreak_kind: str


def tested(sheet: RabbitSheet, raw: str) -> tuple[str, str]:
    """("ability", key) or ("skill", Name) for what the dialog names."""
    key = raw.strip().lower()
    if key in rabbits.ABILITIES:
        return "ability", key
    for ability in rabbits.ABILITIES:  # typed in the reader's language ("Vilje")
        if render(ability_word(ability)).lower() == key:
            return "ability", ability
    name = skill_name(raw)
    if name is None:
        raise ActionError(_("{raw!r} is neither a skill nor an ability.").format(raw=raw), field="skill")
    return "skill", name


def _base(
    sheet: RabbitSheet, choices: PoolChoices, kind: str, name: str
) -> tuple[str, int, Any, tuple[str, str], bool]:
    """(rolled, rating, label, tally, beginner's luck)."""
    nature = sheet.abilities["nature"].rating
    if choices.nature_instead:
        shown = skill_word(name) if kind == "skill" else ability_word(name)
        return "nature", nature, msg("Nature (instead of {what})", what=shown), ("ability", "nature"), False
    if kind == "ability":
        return name, sheet.abilities[name].rating, ability_word(name), ("ability", name), False
    if name in sheet.skills:
        return "skill", sheet.skills[name].rating, skill_word(name), ("skill", name), False
    ability = choices.beginners_luck.strip().lower() or "will"
    if ability not in rabbits.BEGINNERS_LUCK_ABILITIES:
        raise ActionError(_("Beginner's luck rolls Will or Health."), field="beginners_luck")
    label = msg("{ability} for {skill} (beginner's luck)", ability=ability_word(ability), skill=skill_word(name))
    return ability, sheet.abilities[ability].rating, label, ("learning", name), True


def _trait(
    sheet: RabbitSheet, choices: PoolChoices, versus: bool, turn: str, session: int | None
) -> tuple[str | None, str | None, bool]:
    """(trait name, pool_for trait key, whether it is the free once-per-session use)."""
    if not choices.trait.strip():
        return None, None, False
    trait = find_trait(sheet, choices.trait)
    use = choices.trait_use.strip().lower() or "helps"
    if use not in TRAIT_CHOICES:
        raise ActionError(
            _("Choose how the trait works: it helps, it hinders you, or it helps the opponent."), field="trait_use"
        )
    if use == "aids_opponent" and not versus:
        raise ActionError(_("A trait can give the opponent +2D only in a versus test."), field="trait_use")
    if use != "helps" and turn == "players":
        raise ActionError(_("Checks are earned in the narrator's turn only."), field="trait_use")
    if use == "helps" and free_trait_uses(trait, session) == 0:
        return trait.name, "helps_again", False
    return trait.name, use, use == "helps"


def plan_pool(
    sheet: RabbitSheet,
    choices: PoolChoices,
    *,
    settings: Mapping[str, Any],
    session: int | None,
    helper_conditions: Sequence[Sequence[str]],
    actor_is_narrator: bool,
    versus: bool = False,
    opponent_trait: bool = False,
    extra_checks: int = 0,
    helper_names: Sequence[str] = (),
) -> Plan:
    """Check the choices against the sheet, and build the pool (the breakdown the dialog shows)."""
    if sheet.retired:
        raise ActionError(_("This rabbit has retired: its Nature reached 0 (ruling 2)."), field="skill")
    turn = settings_of(settings)["turn"]
    kind, name = tested(sheet, choices.skill)
    descriptor = choices.descriptor.strip().lower()
    if descriptor and descriptor not in rabbits.NATURE_DESCRIPTORS:
        raise ActionError(_("A rabbit's nature is to flee, hide, dig or breed."), field="descriptor")
    if choices.tap_nature and name in rabbits.NO_NATURE_TAP:
        raise ActionError(
            _("Nature can never be tapped for {name}.").format(name=render(ability_word(name))), field="tap_nature"
        )
    rolled, rating, label, tally, luck = _base(sheet, choices, kind, name)
    wise = find_wise(sheet, choices.wise) if choices.wise.strip() else None
    trait, use, free = _trait(sheet, choices, versus, turn, session)
    try:
        pool = rabbits.pool_for(
            rolled,
            rating,
            label=render(label, "en"),
            beginners_luck=luck,
            helpers=[list(c) for c in helper_conditions],
            helper_names=list(helper_names),
            wise=wise is not None,
            trait=use,
            opponent_trait=opponent_trait,
            versus=versus,
            persona=choices.persona,
            tap_nature=choices.tap_nature,
            nature=sheet.abilities["nature"].rating,
            conditions=sheet.conditions,
        )
    except rabbits.RabbitRuleError as exc:
        raise ActionError(rule_message(exc), field=_FIELDS.get(exc.field, exc.field)) from exc
    if pool.persona_spent > sheet.persona:
        raise ActionError(
            _("That takes {persona_spent} Persona; this rabbit has {persona}.").format(
                persona_spent=pool.persona_spent, persona=sheet.persona
            ),
            field="persona",
        )
    checks = pool.checks_spent + extra_checks
    if turn == "players" and not actor_is_narrator:
        checks += rabbits.CHECKS_SPENT["extra_test"]
    if checks > sheet.checks:
        raise ActionError(
            ngettext(
                "That needs {checks} check; this rabbit has {has}.",
                "That needs {checks} checks; this rabbit has {has}.",
                checks,
            ).format(checks=checks, has=sheet.checks),
            field="checks",
        )
    nature_used = rolled == "nature" or choices.tap_nature
    return Plan(
        pool,
        label,
        rolled,
        tally,
        nature_used,
        bool(descriptor),
        trait,
        use,
        free,
        checks,
        "skill" if tally[0] in ("skill", "learning") and rolled != "nature" else rolled,
    )


def line_text(label: Any) -> Any:
    """A pool breakdown line's label (app.systems.rabbits.rules.Label) as a message, read in the reader's language."""
    if isinstance(label, rabbits.Label):
        return msg(label.template, **{key: line_text(value) for key, value in label.values.items()})
    return label


def breakdown(plan: Plan) -> list[list[Any]]:
    """The pool line by line, language-neutral (kept with the roll; pages print each label with `| tr`): the first
    line is what is tested (the plan's label), then help, wise, Persona, Nature, trait and condition dice."""
    return [[plan.label if i == 0 else line_text(line), dice] for i, (line, dice) in enumerate(plan.pool.breakdown)]


def breakdown_text(lines: Sequence[Sequence[Any]]) -> str:
    """The breakdown in the reader's language, for the odds line: "Scout 3; Help +1; Wise +1"."""
    return "; ".join(
        f"{render(line)} {dice:+d}" if i else f"{render(line)} {dice}" for i, (line, dice) in enumerate(lines)
    )


_FIELDS = {
    "rating": "skill",
    "rolled": "skill",
    "nature": "nature_instead",
    "helpers": "helpers",
    "opponent_trait": "trait_use",
}


def spend(sheet: RabbitSheet, plan: Plan, session: int | None) -> None:
    """Pay for the roll: Persona, checks, the trait's free use."""
    sheet.persona -= plan.pool.persona_spent
    sheet.persona_spent += plan.pool.persona_spent
    sheet.checks -= plan.checks_spent
    if plan.pool.checks_earned:
        sheet.checks += plan.pool.checks_earned
    if plan.free_trait_use and plan.trait:
        trait = find_trait(sheet, plan.trait)
        if trait.session != session:
            trait.session, trait.used = session, 0
        trait.used += 1


def helper_names(helpers: Sequence[int], names: Mapping[int, str]) -> list[str]:
    """The helpers' names, in the order helper_conditions gives their conditions (the log names each helper)."""
    return [names.get(helper, "?") for helper in dict.fromkeys(helpers)]


def helper_conditions(
    helpers: Sequence[int],
    others: Mapping[int, RabbitSheet],
    names: Mapping[int, str],
    exclude: int | None = None,
) -> list[list[str]]:
    """Each helper's conditions; ruling 3 (Afraid cannot help), and retired rabbits help no one."""
    out: list[list[str]] = []
    for helper in dict.fromkeys(helpers):
        if helper == exclude:
            raise ActionError(_("The opponent cannot help."), field="helpers")
        sheet = others.get(helper)
        name = names.get(helper, "That rabbit")
        conditions = list(sheet.conditions) if sheet is not None else []
        if "afraid" in conditions:
            raise ActionError(_("{name} is Afraid and cannot help (ruling 3).").format(name=name), field="helpers")
        if sheet is not None and sheet.retired:
            raise ActionError(_("{name} has retired and cannot help.").format(name=name), field="helpers")
        out.append(conditions)
    return out
