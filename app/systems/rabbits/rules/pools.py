"""Building a dice pool, with a breakdown the page can show line by line.

rabbits.en.md, "Tests" (help, wise), "Conditions", "Nature" (tapping), "Rewards" (Persona), "Traits", "Checks";
RULINGS.md, "Rabbits" (beginner's luck, Persona limits, ruling 3 for Afraid).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from app.rules.text import N_
from app.systems.rabbits.rules.errors import MAX_POOL, RabbitRuleError, check_choice, check_count
from app.systems.rabbits.rules.tables import (
    BEGINNERS_LUCK_ABILITIES,
    CONDITIONS,
    NATURE_MAX,
    NO_NATURE_TAP,
    PERSONA_DICE_MAX,
    ROLLABLE,
    SKILL_MAX,
    TAP_NATURE_PERSONA,
    TRAIT_USES,
    TraitUse,
)

_DANISH_CONDITIONS = {rule.danish.lower(): key for key, rule in CONDITIONS.items()}
_NO_TRAIT = TraitUse("", 0, 0, 0, 0, False)


class Label(str):
    """A breakdown line's English text that keeps its template (marked N_) and values, so the app can show it in
    the reader's language (app.systems.rabbits.pools.line_text); it is, and compares as, the English text."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any) -> Label:
        label = super().__new__(cls, template.format(**values) if values else template)
        label.template, label.values = template, values
        return label


Line = tuple[str, int]
_ROLLED_WORDS = {
    "skill": N_("Skill"),
    "nature": N_("Nature"),
    "will": N_("Will"),
    "health": N_("Health"),
    "resources": N_("Resources"),
    "circles": N_("Circles"),
}


@dataclass(frozen=True)
class Pool:
    """A pool ready to roll. The breakdown's dice always add up to `dice`.

    opponent_dice: dice this side's trait hands the opponent (pass opponent_trait=True to their pool_for).
    """

    dice: int
    breakdown: tuple[Line, ...]
    persona_spent: int
    checks_earned: int
    checks_spent: int
    beginners_luck: bool
    opponent_dice: int


def _half_rounded_up(dice: int) -> int:
    return -(-dice // 2)


def beginners_luck(ability: int, extra_dice: int) -> int:
    """RULINGS.md, "Rabbits", beginner's luck: (ability + help + wise) halved, rounding up.

    `extra_dice` is the help and wise dice; Persona dice and tapped Nature are added after this.
    """
    ability = check_count(ability, "ability", 0, MAX_POOL)
    return _half_rounded_up(ability + check_count(extra_dice, "extra_dice", 0, MAX_POOL))


def check_conditions(conditions: Collection[str], field: str = "conditions") -> frozenset[str]:
    """The conditions as table keys (English or the sheet's Danish names, any case)."""
    if isinstance(conditions, str):
        raise RabbitRuleError(
            field, N_("Give the conditions as a list, e.g. ['{conditions}'], not a bare string."), conditions=conditions
        )
    keys: set[str] = set()
    for name in conditions:
        english = _DANISH_CONDITIONS.get(name.strip().lower(), name) if isinstance(name, str) else name
        keys.add(check_choice(english, CONDITIONS, field, N_("condition")))
    return frozenset(keys)


def _blocked_by_afraid(conditions: frozenset[str]) -> bool:
    return any(CONDITIONS[key].blocks_help_and_beginners_luck for key in conditions)


def check_helper(conditions: Collection[str]) -> None:
    """Ruling 3: an Afraid rabbit cannot help."""
    if _blocked_by_afraid(check_conditions(conditions, "helpers")):
        raise RabbitRuleError("helpers", N_("An Afraid rabbit cannot help (ruling 3)."))


def able_to_help(members: Sequence[Collection[str]]) -> tuple[Collection[str], ...]:
    """Ruling 3 for teams (ruling 7): the members who may help, given each member's conditions (Afraid cannot)."""
    return tuple(member for member in members if not _blocked_by_afraid(check_conditions(member, "helpers")))


def _check_rating(rolled: str, rating: int, beginners_luck: bool) -> None:
    if rolled == "skill":
        check_count(rating, "rating", 0, SKILL_MAX)
        if beginners_luck:
            raise RabbitRuleError("beginners_luck", N_("Beginner's luck rolls Will or Health in place of the skill."))
        if rating == 0:
            raise RabbitRuleError("rating", N_("No rating in this skill: roll beginner's luck on Will or Health."))
    elif rolled == "nature":
        check_count(rating, "rating", 0, NATURE_MAX)
        if rating == 0:
            raise RabbitRuleError("rating", N_("A rabbit whose Nature is 0 has retired (ruling 2)."))
    else:
        check_count(rating, "rating", 0, MAX_POOL)
    if beginners_luck and rolled not in BEGINNERS_LUCK_ABILITIES:
        raise RabbitRuleError(
            "beginners_luck", N_("Beginner's luck rolls Will or Health, not {rolled}."), rolled=rolled.title()
        )


def _help_lines(helpers: Sequence[Collection[str]], wise: bool, names: Sequence[str] = ()) -> list[Line]:
    if isinstance(helpers, str) or any(isinstance(helper, str) for helper in helpers):
        raise RabbitRuleError("helpers", N_("Give each helper's conditions as a list, e.g. [[], ['tired']]."))
    check_count(len(helpers), "helpers", 0, MAX_POOL)
    for helper in helpers:
        check_helper(helper)
    if names and (isinstance(names, str) or len(names) != len(helpers)):
        raise RabbitRuleError("helpers", N_("Give one name for each helper."))
    lines: list[Line]
    if names:  # each helper named on their own line: "Help from Moss +1"
        lines = [(Label(N_("Help from {name}"), name=name), 1) for name in names]
    else:
        lines = [(Label(N_("Help")), len(helpers))] if helpers else []
    return lines + [(Label(N_("Wise")), 1)] if wise else lines


def _base_lines(rolled: str, rating: int, label: str | None, lines: list[Line], luck: bool) -> list[Line]:
    base = [(Label(label) if label else Label(_ROLLED_WORDS[rolled]), rating)] + lines
    if not luck:
        return base
    total = sum(dice for _, dice in base)
    return base + [(Label(N_("Beginner's luck: halved, rounding up")), _half_rounded_up(total) - total)]


def _nature_tap_lines(rolled: str, rating: int, tap_nature: bool, nature: int | None) -> list[Line]:
    if rolled == "nature":
        if nature is not None and nature != rating:
            raise RabbitRuleError("nature", N_("Rolling Nature: the Nature rating is the rating rolled."))
        nature = rating
    if not tap_nature:
        return []
    if rolled in NO_NATURE_TAP:
        raise RabbitRuleError("tap_nature", N_("Nature can never be tapped for {rolled}."), rolled=rolled.title())
    if nature is None:
        raise RabbitRuleError("nature", N_("Tapping Nature needs the rabbit's Nature rating."))
    if check_count(nature, "nature", 0, NATURE_MAX) == 0:
        raise RabbitRuleError("nature", N_("A rabbit whose Nature is 0 has retired (ruling 2)."))
    return [(Label(N_("Tapped Nature (1 Persona)")), nature)]


def _persona_lines(persona: int) -> list[Line]:
    if not isinstance(persona, int) or isinstance(persona, bool) or not 0 <= persona <= PERSONA_DICE_MAX:
        raise RabbitRuleError(
            "persona",
            N_("0 to {most} Persona points can add dice to one roll, not {persona!r}."),
            most=PERSONA_DICE_MAX,
            persona=persona,
        )
    return [(Label(N_("Persona ({n})"), n=persona), persona)] if persona else []


def _trait(trait: str | None, opponent_trait: bool, versus: bool) -> tuple[TraitUse, list[Line]]:
    use = _NO_TRAIT if trait is None else TRAIT_USES[check_choice(trait, TRAIT_USES, "trait", N_("trait use"))]
    if use.versus_only and not versus:
        raise RabbitRuleError("trait", N_("A trait can give the opponent +2D only in a versus test."))
    if opponent_trait and not versus:
        raise RabbitRuleError("opponent_trait", N_("The opponent's trait can give +2D only in a versus test."))
    lines: list[Line] = [(Label(use.label), use.own_dice)] if use.own_dice else []
    if opponent_trait:
        lines.append((Label(N_("Opponent's trait works for you")), TRAIT_USES["aids_opponent"].opponent_dice))
    return use, lines


def _condition_lines(conditions: frozenset[str]) -> list[Line]:
    rules = [CONDITIONS[key] for key in sorted(conditions)]
    return [
        (Label(N_("{condition} ({dice}D)"), condition=Label(rule.name), dice=rule.dice), rule.dice)
        for rule in rules
        if rule.dice
    ]


def _total(lines: list[Line]) -> tuple[int, list[Line]]:
    total = sum(dice for _, dice in lines)
    if total < 0:
        # Penalties cannot take dice away that are not there; the line keeps the breakdown's sum honest.
        lines = lines + [(Label(N_("No fewer than 0 dice")), -total)]
        total = 0
    if total > MAX_POOL:
        raise RabbitRuleError(
            "pool", N_("A pool of {total} dice is past the limit of {most}."), total=total, most=MAX_POOL
        )
    return total, lines


def pool_for(
    rolled: str,
    rating: int,
    *,
    label: str | None = None,
    beginners_luck: bool = False,
    helpers: Sequence[Collection[str]] = (),
    helper_names: Sequence[str] = (),
    wise: bool = False,
    trait: str | None = None,
    opponent_trait: bool = False,
    versus: bool = False,
    persona: int = 0,
    tap_nature: bool = False,
    nature: int | None = None,
    conditions: Collection[str] = (),
) -> Pool:
    """The pool for one roll, before it is rolled (Persona is declared before rolling).

    rolled: "skill" or an ability ("nature", "will", "health", "resources", "circles"); rating: its rating.
    beginners_luck: no rating in the skill, so roll Will or Health (ability + help + wise halved, rounding up;
    Persona, tapped Nature, trait and condition dice are added after halving). helpers: each helper's
    conditions ([] for a healthy helper); helper_names: their names, in the same order (each gets its own
    breakdown line, "Help from Moss"; without names one line "Help" counts them all). trait: None, "helps",
    "helps_again", "against_you" or
    "aids_opponent" (versus only). opponent_trait: the opponent's trait gives this side +2D.
    persona: 0–3 Persona points for +1D each. tap_nature: 1 Persona point adds the Nature rating `nature`.
    conditions: the roller's conditions; Injured and Sick each take 1D.
    """
    rolled = check_choice(rolled, ROLLABLE, "rolled", N_("thing to roll"))
    _check_rating(rolled, rating, beginners_luck)
    own = check_conditions(conditions)
    if beginners_luck and _blocked_by_afraid(own):
        raise RabbitRuleError("beginners_luck", N_("An Afraid rabbit cannot use beginner's luck (ruling 3)."))
    lines = _base_lines(rolled, rating, label, _help_lines(helpers, wise, helper_names), beginners_luck)
    lines += _persona_lines(persona) + _nature_tap_lines(rolled, rating, tap_nature, nature)
    use, trait_lines = _trait(trait, opponent_trait, versus)
    total, lines = _total(lines + trait_lines + _condition_lines(own))
    persona_spent = persona + (TAP_NATURE_PERSONA if tap_nature else 0)
    return Pool(
        total, tuple(lines), persona_spent, use.checks_earned, use.checks_spent, beginners_luck, use.opponent_dice
    )
