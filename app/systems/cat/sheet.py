"""The Cat sheet: its schema, what a new cat's form becomes, what others may see, and the derived numbers
(effective ranks, dice, death) every page and action reads. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from app.errors import InvalidValue, validation_message
from app.i18n import N_, Text, _, msg, rule_message
from app.systems.base import ActionError
from app.systems.cat import rules as rules
from app.systems.cat.rules import sheet as growth

Trait = rules.Trait
# The names a person reads (English msgids, translated where shown: `_()` on a page, msg() in a log line). The
# stored sheet, forms and log bodies keep the ids (claws, best, easy).
TRAIT_NAMES: Mapping[str, str] = {
    "claws": N_("Claws"),
    "coat": N_("Coat"),
    "face": N_("Face"),
    "fangs": N_("Fangs"),
    "legs": N_("Legs"),
    "tail": N_("Tail"),
}
RANK_NAMES: Mapping[str, str] = {
    "crippled": N_("Crippled"),
    "hurt": N_("Hurt"),
    "good": N_("Good"),
    "strong": N_("Strong"),
    "best": N_("Best"),
}
DIFFICULTY_NAMES: Mapping[str, str] = {"easy": N_("Easy"), "moderate": N_("Moderate"), "hard": N_("Hard")}
# What a fighting cat rolls (fights: Claws, Fangs, or a dodge with Legs).
WEAPON_NAMES: Mapping[str, str] = {"claws": N_("Claws"), "fangs": N_("Fangs"), "legs": N_("Dodge (Legs)")}
# The Traits as a log line names them (translated when read).
TRAIT_WORDS: dict[str, Text] = {t: msg(name) for t, name in TRAIT_NAMES.items()}
Rank = rules.Rank
TRAIT_HELP: Mapping[str, str] = {
    "claws": N_("fighting, climbing"),
    "coat": N_("protection, impressing, persuading"),
    "face": N_("senses"),
    "fangs": N_("fighting, carrying"),
    "legs": N_("jumping, balance, running"),
    "tail": N_("magic"),
}
# The words of a rule error (app/systems/cat/rules/) that name a Trait or a rank: translated with its template.
_RULE_WORDS = {"Claws", "Coat", "Face", "Fangs", "Legs", "Tail", "Crippled", "Hurt", "Good", "Strong", "Best"}


def trait_name(trait: str) -> str:
    """A Trait in the reader's language ("" and unknown ids as they are)."""
    return _(TRAIT_NAMES[trait]) if trait in TRAIT_NAMES else trait


def cat_rule_message(exc: rules.CatRuleError) -> str:
    """A Cat rule error in the reader's language, with the Trait and rank names in it translated too
    (app.i18n.rule_message translates the template only)."""
    values = {
        key: _(value) if isinstance(value, str) and value in _RULE_WORDS else value for key, value in exc.values.items()
    }
    try:
        return _(exc.template).format(**values)
    except (KeyError, IndexError, ValueError, AttributeError):
        return rule_message(exc)


MAX_FOE_DICE = 12
MAX_FOE_LIVES = 20

# Ruling 6: example foes, narrator-editable, not canon. Dice per Trait (0 = the foe cannot use it). The name and
# notes are English msgids: the Cat page offers them in the narrator's language, and a foe created from one keeps
# the words it was created with (they are the narrator's to change).
FOE_TEMPLATES: dict[str, dict[str, Any]] = {
    "dog": {
        "name": N_("Ship dog"),
        "lives": 7,
        "dice": {"claws": 2, "coat": 3, "face": 4, "fangs": 5, "legs": 4, "tail": 0},
        "notes": N_("Example foe (not canon): a big ship's dog, loud and slow to turn."),
    },
    "rat": {
        "name": N_("Rat"),
        "lives": 1,
        "dice": {"claws": 2, "coat": 1, "face": 3, "fangs": 3, "legs": 3, "tail": 0},
        "notes": N_("Example foe (not canon): one bilge rat."),
    },
    "rat_swarm": {
        "name": N_("Rat swarm"),
        "lives": 3,
        "dice": {"claws": 4, "coat": 2, "face": 4, "fangs": 6, "legs": 3, "tail": 0},
        "notes": N_("Example foe (not canon): a tide of rats; scars thin the swarm."),
    },
    "boggin": {
        "name": N_("Boggin"),
        "lives": 5,
        "dice": {"claws": 5, "coat": 4, "face": 4, "fangs": 5, "legs": 3, "tail": 4},
        "notes": N_("Example foe (not canon): a Boggin, a nightmare thing that hunts cats."),
    },
}


class Reputation(BaseModel):
    name: str = Field(min_length=1, max_length=60)
    rank: int = Field(ge=1, le=rules.MAX_REPUTATION_RANK)


class ScarBatch(BaseModel):
    """Scars taken but not yet placed among the Traits (one failed Risk, one fight round)."""

    scars: int = Field(ge=1, le=100)
    # Where they came from: msg(...) (read in the reader's language), or a plain string (older sheets).
    source: str | dict[str, Any] = Field(default="")
    fight: bool = False


class Approval(BaseModel):
    """The narrator agreed that a Reputation fits Risks in this scene (ruling 9); valid in its session only."""

    reputation: str
    session: int | None = None


class Docked(BaseModel):
    """A Reputation point the narrator docked; restoring it in the same session undoes the loss."""

    reputation: str
    rank_before: int
    session: int | None = None
    reason: str = ""


def _all_good() -> dict[Trait, Rank]:
    return dict.fromkeys(rules.TRAITS, "good")


class CatSheet(BaseModel):
    human_name: str = Field(default="", max_length=80)
    cat_name: str = Field(default="", max_length=80)
    secret_name: str = Field(default="", max_length=80)
    ranks: dict[Trait, Rank] = Field(default_factory=_all_good)
    scars: dict[Trait, int] = Field(default_factory=lambda: dict.fromkeys(rules.TRAITS, 0))
    lives: int = Field(default=rules.STARTING_LIVES, ge=0, le=MAX_FOE_LIVES)
    reputations: list[Reputation] = Field(default_factory=list, max_length=rules.MAX_REPUTATIONS)
    style: int = Field(default=0, ge=0, le=1000)
    advantage: int = Field(default=0, ge=0, le=100)
    magic: int = Field(default=0, ge=0, le=100)
    notes: str = Field(default="", max_length=5000)
    approvals: list[Approval] = Field(default_factory=list)
    proposal: str = Field(default="", max_length=60)
    pending: list[ScarBatch] = Field(default_factory=list)
    fresh_style: int = Field(default=0, ge=0)
    heal_first: Trait | Literal[""] = ""
    docked: list[Docked] = Field(default_factory=list)
    # Foes (ruling 6): any dice per Trait instead of ranks; `example` marks a shipped template's copy.
    foe: bool = False
    example: bool = False
    foe_dice: dict[Trait, int] = Field(default_factory=dict)

    @field_validator("scars")
    @classmethod
    def _scars_not_negative(cls, value: dict[str, int]) -> dict[str, int]:
        if any(v < 0 for v in value.values()):
            raise InvalidValue(N_("Scars cannot be negative."))
        return {t: value.get(t, 0) for t in rules.TRAITS}

    @field_validator("foe_dice")
    @classmethod
    def _foe_dice_range(cls, value: dict[str, int]) -> dict[str, int]:
        if any(not 0 <= v <= MAX_FOE_DICE for v in value.values()):
            raise InvalidValue(N_("A foe has 0 to {high} dice per Trait."), high=MAX_FOE_DICE)
        return value


def load(sheet: Mapping[str, Any]) -> CatSheet:
    try:
        return CatSheet.model_validate(dict(sheet))
    except ValidationError as exc:  # a sheet the narrator broke by hand: say so instead of a 500
        raise ActionError(
            _("This sheet is not a valid cat sheet ({error}).").format(error=validation_message(exc, CatSheet)[0])
        ) from exc


def dump(cat: CatSheet) -> dict[str, Any]:
    return cat.model_dump(mode="json")


# --- derived numbers ---------------------------------------------------------------------------------------


def effective(cat: CatSheet) -> dict[Trait, str]:
    """Each Trait's rank after scars (ruling 1); for a foe, "crippled" marks a Trait scarred down to 0 dice."""
    if cat.foe:
        return {t: "crippled" if cat.foe_dice.get(t, 0) and not trait_dice(cat, t) else "foe" for t in rules.TRAITS}
    return rules.effective_ranks(cat.ranks, cat.scars)


def trait_dice(cat: CatSheet, trait: Trait) -> int:
    """Dice for a Trait now. A foe loses one die per 3 scars in a Trait (decided here: foes have no ranks)."""
    if cat.foe:
        return max(0, cat.foe_dice.get(trait, 0) - cat.scars.get(trait, 0) // rules.SCARS_PER_RANK)
    return rules.RANK_DICE[rules.effective_rank(cat.ranks[trait], cat.scars[trait])]


def crippled_traits(cat: CatSheet) -> list[str]:
    return [t for t, r in effective(cat).items() if r == "crippled"]


def is_dead(cat: CatSheet) -> bool:
    crippled = {t: ("crippled" if t in crippled_traits(cat) else "good") for t in rules.TRAITS}
    return growth.is_dead(crippled, cat.lives)


def warning(cat: CatSheet) -> str | None:
    if is_dead(cat):
        return None
    return growth.crippled_warning({t: ("crippled" if t in crippled_traits(cat) else "good") for t in rules.TRAITS})


def reputation(cat: CatSheet, name: str) -> Reputation | None:
    return next((r for r in cat.reputations if r.name == name), None)


def approved(cat: CatSheet, name: str, session: int | None) -> bool:
    return any(a.reputation == name and a.session == session for a in cat.approvals)


def view(sheet: Mapping[str, Any], session: int | None = None) -> dict[str, Any]:
    """What the sheet page shows: the stored sheet plus derived numbers (ranks, dice, death, warning)."""
    try:
        cat = CatSheet.model_validate(dict(sheet))
    except ValidationError:
        return {"broken": True}
    ranks = effective(cat)
    return {
        "broken": False,
        "ranks": ranks,
        "dice": {t: trait_dice(cat, t) for t in rules.TRAITS},
        "dead": is_dead(cat),
        "warning": warning(cat),
        "pending": sum(b.scars for b in cat.pending),
        "approved": [a.reputation for a in cat.approvals if a.session == session],
        "approved_names": [a.reputation for a in cat.approvals],
        "traits": rules.TRAITS,
        "total_scars": sum(cat.scars.values()),
    }


def public_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """What other players see: no secret name, and of a narrator's foe nothing but that it is a foe."""
    if sheet.get("foe"):
        return {"foe": True, "example": bool(sheet.get("example")), "public": True}
    return {k: v for k, v in sheet.items() if k not in ("secret_name", "heal_first")} | {"public": True}


# --- creation ----------------------------------------------------------------------------------------------


def _text(fields: Mapping[str, Any], name: str, limit: int = 80) -> str:
    value = str(fields.get(name) or "").strip()
    if len(value) > limit:
        raise ActionError(_("Keep it under {limit} characters.").format(limit=limit), field=name)
    return value


def _count(fields: Mapping[str, Any], name: str, low: int, high: int, default: int) -> int:
    raw = fields.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(str(raw))
    except ValueError:
        raise ActionError(
            _("Enter a whole number from {low} to {high}.").format(low=low, high=high), field=name
        ) from None
    if not low <= value <= high:
        raise ActionError(_("Enter a whole number from {low} to {high}.").format(low=low, high=high), field=name)
    return value


def _creation_reputations(fields: Mapping[str, Any]) -> list[Reputation]:
    """Form rows rep_name_1..5 / rep_rank_1..5, or an API list [{name, rank}]."""
    rows: list[tuple[str, Any, str]] = []
    given = fields.get("reputations")
    if isinstance(given, list):
        for i, r in enumerate(given, 1):
            rows.append((str((r or {}).get("name", "")).strip(), (r or {}).get("rank"), f"rep_rank_{i}"))
    else:
        for i in range(1, rules.MAX_REPUTATIONS + 1):
            name = str(fields.get(f"rep_name_{i}") or "").strip()
            rank = fields.get(f"rep_rank_{i}")
            if name or (rank not in (None, "", "0")):
                if not name:
                    raise ActionError(_("Name this Reputation (or clear its rank)."), field=f"rep_name_{i}")
                rows.append((name, rank, f"rep_rank_{i}"))
    reps: dict[str, int] = {}
    for name, rank, field in rows:
        if len(name) > 60:
            raise ActionError(_("Keep a Reputation's name under 60 characters."), field=field.replace("rank", "name"))
        if name in reps:
            raise ActionError(_("“{name}” is listed twice.").format(name=name), field=field.replace("rank", "name"))
        try:
            reps[name] = int(str(rank))
        except ValueError:
            raise ActionError(_("Give this Reputation a rank from 1 to 3."), field=field) from None
        if not 1 <= reps[name] <= rules.CREATION_MAX_REPUTATION_RANK:
            raise ActionError(
                _("At creation a Reputation is ranked 1 to {creation_max_reputation_rank}.").format(
                    creation_max_reputation_rank=rules.CREATION_MAX_REPUTATION_RANK
                ),
                field=field,
            )
    try:
        growth.validate_reputations(reps, creation=True)
    except rules.CatRuleError as exc:
        raise ActionError(cat_rule_message(exc), field="reputations") from exc
    return [Reputation(name=n, rank=r) for n, r in reps.items()]


def create(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A new cat from the creation form (or the API): three names, one Best, three Strong, two Good Traits,
    Reputations worth exactly 7 points (none above 3). With `foe_template` (narrator): a foe sheet."""
    if fields.get("foe") or fields.get("foe_template"):
        return create_foe(fields)
    names = {n: _text(fields, n) for n in ("human_name", "cat_name", "secret_name")}
    if not names["cat_name"]:
        raise ActionError(_("Every cat has a cat name."), field="cat_name")
    if not names["secret_name"]:
        raise ActionError(_("Every cat has a secret name."), field="secret_name")
    given = fields.get("ranks")
    if not isinstance(given, Mapping):
        given = {}
    ranks: dict[str, str] = {t: str(given.get(t) or fields.get(f"rank_{t}") or "") for t in rules.TRAITS}
    for t in rules.TRAITS:
        if not ranks[t]:
            raise ActionError(_("Choose a rank for {trait}.").format(trait=trait_name(t)), field=f"rank_{t}")
    try:
        growth.validate_new_cat(ranks)
    except rules.CatRuleError as exc:
        field = exc.field.replace("ranks.", "rank_") if exc.field.startswith("ranks.") else _rank_field(ranks)
        raise ActionError(cat_rule_message(exc), field=field) from exc
    cat = CatSheet.model_validate(
        {
            **names,
            "ranks": ranks,
            "reputations": _creation_reputations(fields),
            "magic": growth.magic_points(ranks["tail"]),
            "notes": _text(fields, "notes", 5000),
        }
    )
    return dump(cat)


def _rank_field(ranks: Mapping[str, str]) -> str:
    """Blame the first Trait that makes the count wrong: the first rank used more often than allowed."""
    seen: dict[str, int] = {}
    for t in rules.TRAITS:
        seen[ranks[t]] = seen.get(ranks[t], 0) + 1
        if seen[ranks[t]] > rules.NEW_CAT_RANKS.get(ranks[t], 0):
            return f"rank_{t}"
    return "ranks"


def create_foe(fields: Mapping[str, Any]) -> dict[str, Any]:
    key = str(fields.get("foe_template") or "")
    base = FOE_TEMPLATES.get(key)
    if key and base is None:
        raise ActionError(_("Choose one of the example foes."), field="foe_template")
    base = base or {"lives": 1, "dice": dict.fromkeys(rules.TRAITS, 0), "notes": ""}
    example_notes = str(base["notes"])  # an English msgid: the foe keeps it in its creator's language
    dice = {t: _count(fields, f"dice_{t}", 0, MAX_FOE_DICE, base["dice"][t]) for t in rules.TRAITS}
    if not any(dice.values()):
        raise ActionError(_("A foe needs dice in at least one Trait."), field="dice_claws")
    cat = CatSheet(
        foe=True,
        example=bool(key),
        foe_dice=dice,
        lives=_count(fields, "lives", 1, MAX_FOE_LIVES, base["lives"]),
        notes=_text(fields, "notes", 5000) or (_(example_notes) if example_notes else ""),
        ranks=dict.fromkeys(rules.TRAITS, "good"),
    )
    return dump(cat)
