"""The rabbit's sheet (rabbits.en.md; RULINGS.md, "Rabbits"), its creation form, and what others may see."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from app.errors import InvalidValue, validation_message
from app.i18n import N_, Text, _, msg
from app.rules.text import Word
from app.systems.base import ActionError
from app.systems.rabbits import rules as rabbits

# Abilities and conditions as a log line names them (translated when read).
ABILITY_WORDS: dict[str, str] = {
    "nature": N_("Nature"),
    "will": N_("Will"),
    "health": N_("Health"),
    "resources": N_("Resources"),
    "circles": N_("Circles"),
}


def ability_word(key: str) -> Text:
    return msg(ABILITY_WORDS.get(key, key.title()))


def skill_word(name: str) -> Text | str:
    """A skill (or, in the conflict tables, Nature) named in a log line or on a page (`| tr`); else as it is."""
    return msg(name) if name in rabbits.SKILLS or name in ABILITY_WORDS.values() else name


def condition_word(key: str) -> Text:
    rule = rabbits.CONDITIONS.get(key)
    return msg(rule.name if rule else key.title())


# Parent game: Will and Health (and Resources, Circles) stop at 10; Nature at 7 (NATURE_MAX), skills at 6.
ABILITY_MAX = 10
ABILITY_CEILING = {
    "nature": rabbits.NATURE_MAX,
    "will": ABILITY_MAX,
    "health": ABILITY_MAX,
    "resources": ABILITY_MAX,
    "circles": ABILITY_MAX,
}
# What a new rabbit may start with (the creation form's bounds).
CREATION_BOUNDS = {
    "nature": (1, rabbits.NATURE_MAX),
    "will": (1, 6),
    "health": (1, 6),
    "resources": (0, 6),
    "circles": (1, 6),
}
CREATION_DEFAULTS = {"nature": 3, "will": 3, "health": 3, "resources": 1, "circles": 1}
TRAIT_LEVEL_MAX = 3
FORM_ROWS = 4  # wise and trait rows on the creation form
TURNS = ("gm", "players")
SKILL_BY_KEY = {name.lower(): name for name in rabbits.SKILLS}


class Tally(BaseModel):
    """A rating with its pass and fail tallies toward advancement."""

    rating: int = Field(ge=0, le=ABILITY_MAX)
    passes: int = Field(default=0, ge=0)
    fails: int = Field(default=0, ge=0)


class Trait(BaseModel):
    name: str = Field(min_length=1, max_length=60)
    level: int = Field(default=1, ge=1, le=TRAIT_LEVEL_MAX)
    used: int = Field(default=0, ge=0)  # free uses spent in `session`
    session: int | None = None


def _default_abilities() -> dict[str, Tally]:
    return {key: Tally(rating=CREATION_DEFAULTS[key]) for key in rabbits.ABILITIES}


# The tables the pages draw on (RuleSystem.template_data: `system_data.rabbits.tables` in templates).
TABLES: dict[str, Any] = {
    "abilities": rabbits.ABILITIES,
    "skills": rabbits.SKILLS,
    "descriptors": rabbits.NATURE_DESCRIPTORS,
    "conditions": rabbits.CONDITIONS,
    "checks_earned": rabbits.CHECKS_EARNED,
    "checks_spent": rabbits.CHECKS_SPENT,
    "conflict_skills": rabbits.CONFLICT_SKILLS,
    "disposition": rabbits.DISPOSITION_TABLE,
    "tie_steps": rabbits.TIE_STEPS,
    "ceiling": ABILITY_CEILING,
    "skill_max": rabbits.SKILL_MAX,
}


class RabbitSheet(BaseModel):
    abilities: dict[str, Tally] = Field(default_factory=_default_abilities)
    skills: dict[str, Tally] = Field(default_factory=dict)
    learning: dict[str, int] = Field(default_factory=dict)  # beginner's-luck tests toward learning a skill
    wises: list[str] = Field(default_factory=list)
    traits: list[Trait] = Field(default_factory=list)
    conditions: list[str] = Field(default_factory=list)
    fate: int = Field(default=0, ge=0)
    persona: int = Field(default=0, ge=0)
    fate_spent: int = Field(default=0, ge=0)
    persona_spent: int = Field(default=0, ge=0)
    rewards_started: bool = False  # ruling 1: the campaign's starting amounts arrive with the first action
    checks: int = Field(default=0, ge=0)
    belief: str = Field(default="", max_length=500)
    goal: str = Field(default="", max_length=500)
    instinct: str = Field(default="", max_length=500)
    retired: bool = False
    last_test: dict[str, Any] | None = None

    @field_validator("abilities")
    @classmethod
    def _five_abilities(cls, value: dict[str, Tally]) -> dict[str, Tally]:
        if set(value) != set(rabbits.ABILITIES):
            raise InvalidValue(N_("The abilities are exactly Nature, Will, Health, Resources and Circles."))
        if value["nature"].rating > rabbits.NATURE_MAX:
            raise InvalidValue(N_("Nature is at most {high}."), high=rabbits.NATURE_MAX)
        return value

    @field_validator("skills")
    @classmethod
    def _known_skills(cls, value: dict[str, Tally]) -> dict[str, Tally]:
        for name, tally in value.items():
            if name not in rabbits.SKILLS:
                raise InvalidValue(N_("Unknown skill {name!r}."), name=name)
            if not 1 <= tally.rating <= rabbits.SKILL_MAX:
                raise InvalidValue(N_("{name} must be rated 1 to {high}."), name=Word(name), high=rabbits.SKILL_MAX)
        return value

    @field_validator("conditions")
    @classmethod
    def _known_conditions(cls, value: list[str]) -> list[str]:
        try:
            keys = rabbits.check_conditions(value)
        except rabbits.RabbitRuleError as exc:
            raise InvalidValue(exc.template, **exc.values) from exc  # translated where it is shown
        return [key for key in rabbits.CONDITIONS if key in keys]


# --- reading a sheet ------------------------------------------------------------------------------------


def load(sheet: Mapping[str, Any]) -> RabbitSheet:
    try:
        return RabbitSheet.model_validate(dict(sheet))
    except ValidationError as exc:
        raise ActionError(
            _("This sheet is damaged: {error}").format(error=validation_message(exc, RabbitSheet)[0]), field="sheet"
        ) from exc


def dump(sheet: RabbitSheet) -> dict[str, Any]:
    return sheet.model_dump(mode="json")


def settings_of(settings: Mapping[str, Any]) -> dict[str, Any]:
    """This system's campaign settings with their defaults (ruling 1: 2 Fate and 1 Persona; the narrator's
    turn first)."""
    return {
        "starting_fate": int(settings.get("starting_fate", rabbits.STARTING_REWARDS["fate"])),
        "starting_persona": int(settings.get("starting_persona", rabbits.STARTING_REWARDS["persona"])),
        "turn": settings.get("turn") if settings.get("turn") in TURNS else "gm",
    }


def start_rewards(sheet: RabbitSheet, settings: Mapping[str, Any]) -> None:
    """Ruling 1: a new rabbit's Fate and Persona are the campaign's starting amounts."""
    if not sheet.rewards_started:
        chosen = settings_of(settings)
        sheet.fate, sheet.persona = chosen["starting_fate"], chosen["starting_persona"]
        sheet.rewards_started = True


def skill_name(value: str) -> str | None:
    """The skill (its English name, the key the sheet keeps) typed in English or in the reader's language."""
    key = value.strip().lower()
    return SKILL_BY_KEY.get(key) or next((name for name in rabbits.SKILLS if _(name).lower() == key), None)


def find_wise(sheet: RabbitSheet, name: str) -> str:
    for wise in sheet.wises:
        if wise.lower() == name.strip().lower():
            return wise
    raise ActionError(_("{name!r} is not one of this rabbit's wises.").format(name=name), field="wise")


def find_trait(sheet: RabbitSheet, name: str, field: str = "trait") -> Trait:
    for trait in sheet.traits:
        if trait.name.lower() == name.strip().lower():
            return trait
    raise ActionError(_("{name!r} is not one of this rabbit's traits.").format(name=name), field=field)


def free_trait_uses(trait: Trait, session: int | None) -> int:
    """rabbits.en.md, "Traits": once per session; a level-2 trait twice, level 3 three times (parent game)."""
    return max(0, trait.level - (trait.used if trait.session == session else 0))


def public_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """What other players see: ratings, wises, traits and conditions — not rewards, checks or beliefs."""
    keys = ("abilities", "skills", "wises", "traits", "conditions", "retired")
    return {key: sheet[key] for key in keys if key in sheet}


# --- the creation form ------------------------------------------------------------------------------------


def _whole(value: Any, field: str, low: int, high: int, what: str) -> int:
    text = str(value).strip() if value is not None else ""
    if isinstance(value, bool) or not (isinstance(value, int) or text.lstrip("-").isdigit()):
        raise ActionError(
            _("{what}: give a whole number from {low} to {high}.").format(what=what, low=low, high=high), field=field
        )
    number = int(value) if isinstance(value, int) else int(text)
    if not low <= number <= high:
        raise ActionError(
            _("{what} must be from {low} to {high}, not {number}.").format(
                what=what, low=low, high=high, number=number
            ),
            field=field,
        )
    return number


def _text(fields: Mapping[str, Any], key: str, limit: int) -> str:
    value = fields.get(key, "")
    value = "" if value is None else str(value).strip()
    if len(value) > limit:
        raise ActionError(_("Keep it under {limit} characters.").format(limit=limit), field=key)
    return value


def _skills(fields: Mapping[str, Any]) -> dict[str, Tally]:
    given: dict[str, Any] = {}
    if isinstance(fields.get("skills"), Mapping):
        given.update(fields["skills"])
    for key, value in fields.items():
        if key.startswith("skill.") and str(value).strip() not in ("", "0"):
            given[key[len("skill.") :]] = value
    skills: dict[str, Tally] = {}
    for raw, value in given.items():
        name = skill_name(str(raw))
        if name is None:
            raise ActionError(_("{raw!r} is not a skill of the game.").format(raw=raw), field=f"skill.{raw}")
        skills[name] = Tally(rating=_whole(value, f"skill.{name}", 1, rabbits.SKILL_MAX, _(name)))
    return skills


def _rows(fields: Mapping[str, Any], listed: str, row: str) -> list[tuple[str, Any]]:
    """Form rows (wise_1…, trait_1…) or a JSON list, as (field, value) pairs."""
    out: list[tuple[str, Any]] = []
    value = fields.get(listed)
    if isinstance(value, list):
        out += [(listed, item) for item in value]
    elif isinstance(value, str) and value.strip():
        out += [(listed, line) for line in value.splitlines()]
    out += [(f"{row}_{n}", fields[f"{row}_{n}"]) for n in range(1, FORM_ROWS + 1) if fields.get(f"{row}_{n}")]
    return out


def _wises(fields: Mapping[str, Any]) -> list[str]:
    wises: list[str] = []
    for field, value in _rows(fields, "wises", "wise"):
        name = str(value).strip()
        if not name:
            continue
        if len(name) > 60:
            raise ActionError(_("Keep a wise's name under 60 characters."), field=field)
        if name.lower() in (w.lower() for w in wises):
            raise ActionError(_("{name} is listed twice.").format(name=name), field=field)
        wises.append(name)
    return wises


def _traits(fields: Mapping[str, Any]) -> list[Trait]:
    traits: list[Trait] = []
    for field, value in _rows(fields, "traits", "trait"):
        name, level = (value.get("name", ""), value.get("level", 1)) if isinstance(value, Mapping) else (value, None)
        name = str(name).strip()
        if not name:
            continue
        if level is None:
            level = fields.get(f"{field.replace('trait_', 'trait_level_')}", 1) if field.startswith("trait_") else 1
        if len(name) > 60:
            raise ActionError(_("Keep a trait's name under 60 characters."), field=field)
        if name.lower() in (t.name.lower() for t in traits):
            raise ActionError(_("{name} is listed twice.").format(name=name), field=field)
        level_field = field.replace("trait_", "trait_level_") if field.startswith("trait_") else field
        traits.append(
            Trait(
                name=name, level=_whole(level, level_field, 1, TRAIT_LEVEL_MAX, _("Level of {name}").format(name=name))
            )
        )
    return traits


def create(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The creation form (or the API's JSON) → a new sheet; ActionError(field=…) names the field at fault."""
    abilities = {}
    for key in rabbits.ABILITIES:
        low, high = CREATION_BOUNDS[key]
        value = fields.get(key)
        if isinstance(value, Mapping):
            value = value.get("rating")
        rating = CREATION_DEFAULTS[key] if value in (None, "") else _whole(value, key, low, high, _(ABILITY_WORDS[key]))
        abilities[key] = Tally(rating=rating)
    sheet = RabbitSheet(
        abilities=abilities,
        skills=_skills(fields),
        wises=_wises(fields),
        traits=_traits(fields),
        belief=_text(fields, "belief", 500),
        goal=_text(fields, "goal", 500),
        instinct=_text(fields, "instinct", 500),
    )
    return dump(sheet)
