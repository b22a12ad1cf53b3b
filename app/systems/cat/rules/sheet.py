"""Cat: what a sheet may hold and how it changes: death, a new cat's ranks, Reputations, healing, magic
(cat.txt, "Death", "Reputation", "Healing"; RULINGS.md, Cat; rulings 1, 7, 8 and 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.rules.text import N_
from app.systems.cat.rules import (
    BASE_MAGIC_POINTS,
    CREATION_MAX_REPUTATION_RANK,
    CREATION_REPUTATION_POINTS,
    MAX_REPUTATION_RANK,
    MAX_REPUTATIONS,
    NEW_CAT_RANKS,
    RANKS,
    TRAITS,
    CatRuleError,
    K,
    Trait,
    _check_count,
    _check_rank,
    _check_trait,
)


def _crippled_count(ranks: Mapping[K, str]) -> int:
    return sum(1 for trait, rank in ranks.items() if _check_rank(rank, f"ranks.{trait}") == "crippled")


def is_dead(ranks: Mapping[K, str], lives: int) -> bool:
    """cat.txt, "Death"; ruling 7: dead with four Traits Crippled (effective ranks) or no Lives left."""
    _check_count(lives, "lives")
    return _crippled_count(ranks) >= 4 or lives == 0


def crippled_warning(ranks: Mapping[K, str]) -> str | None:
    """Ruling 7: the sheet's warning when exactly three Traits are Crippled, else None."""
    if _crippled_count(ranks) == 3:
        return N_("Three Traits are Crippled: this cat is in real danger. One more and he dies.")
    return None


def validate_new_cat(ranks: Mapping[str, str]) -> None:
    """RULINGS.md, Cat: a new cat has one Best, three Strong and two Good Traits."""
    for trait in ranks:
        _check_trait(trait, f"ranks.{trait}")
    for trait in TRAITS:
        if trait not in ranks:
            raise CatRuleError(f"ranks.{trait}", N_("Choose a rank for {trait}."), trait=trait.capitalize())
        rank = _check_rank(ranks[trait], f"ranks.{trait}")
        if rank not in NEW_CAT_RANKS:
            raise CatRuleError(
                f"ranks.{trait}",
                N_("A new cat's Traits are Best, Strong or Good; {trait} is {rank}."),
                trait=trait.capitalize(),
                rank=rank.capitalize(),
            )
    counts = {rank: sum(1 for r in ranks.values() if r == rank) for rank in NEW_CAT_RANKS}
    if counts != dict(NEW_CAT_RANKS):
        raise CatRuleError(
            "ranks",
            N_(
                "A new cat has one Best, three Strong and two Good Traits, not {best} Best, "
                "{strong} Strong and {good} Good."
            ),
            **counts,
        )


def validate_reputations(reps: Mapping[str, int], *, creation: bool) -> None:
    """cat.txt, "Reputation"; RULINGS.md, Cat: up to 5, ranks 1-5; at creation 7 points, none above 3."""
    if len(reps) > MAX_REPUTATIONS:
        raise CatRuleError(
            "reputations",
            N_("A cat can have up to {most} Reputations, not {reps}."),
            most=MAX_REPUTATIONS,
            reps=len(reps),
        )
    top = CREATION_MAX_REPUTATION_RANK if creation else MAX_REPUTATION_RANK
    for name, rank in reps.items():
        if not isinstance(name, str) or not name.strip():
            raise CatRuleError("reputations", N_("Every Reputation needs a name."))
        field = f"reputations.{name}"
        _check_count(rank, field, 1, MAX_REPUTATION_RANK)
        if rank > top:
            raise CatRuleError(
                field, N_("At creation no Reputation is above {top}; {name} is {rank}."), top=top, name=name, rank=rank
            )
    spent = sum(reps.values())
    if creation and spent != CREATION_REPUTATION_POINTS:
        raise CatRuleError(
            "reputations",
            N_("Spend exactly {points} points on Reputations (spent {spent})."),
            points=CREATION_REPUTATION_POINTS,
            spent=spent,
        )


def gift_reputation_rank(giver_rank: int) -> int:
    """cat.txt, "Getting a New Reputation"; ruling 9: half the giver's rank, rounded down, minimum 1."""
    _check_count(giver_rank, "giver_rank", 1, MAX_REPUTATION_RANK)
    return max(1, giver_rank // 2)


def _most_scarred(scars: Mapping[Trait, int]) -> Trait | None:
    top = max(scars.values())
    return None if top == 0 else next(trait for trait in TRAITS if scars[trait] == top)


def _weekly_choices(choices: str | Sequence[str] | None, weeks: int) -> list[Trait | None]:
    if choices is None:
        return [None] * weeks
    if isinstance(choices, str):
        return [_check_trait(choices, "choices")] * weeks
    if len(choices) > weeks:
        raise CatRuleError(
            "choices",
            N_("More choices ({choices}) than weeks of healing ({weeks})."),
            choices=len(choices),
            weeks=weeks,
        )
    picked: list[Trait | None] = [_check_trait(c, f"choices.{i}") for i, c in enumerate(choices)]
    return picked + [None] * (weeks - len(choices))


def heal(scars: Mapping[K, int], weeks: int, choices: str | Sequence[str] | None = None) -> dict[Trait, int]:
    """cat.txt, "Healing"; ruling 1: one scar per week of game time.

    `choices` is one Trait per week (weeks beyond the list heal the most-scarred Trait,
    ties going to the first in TRAITS order); a listed Trait without scars is an error.
    A single Trait name means "that Trait first": once it is clear, the default takes over.
    Returns the scar counts for all six Traits.
    """
    _check_count(weeks, "weeks")
    left = dict.fromkeys(TRAITS, 0)
    for trait, count in scars.items():
        left[_check_trait(trait, f"scars.{trait}")] = _check_count(count, f"scars.{trait}")
    prefer_one = isinstance(choices, str)
    for week, chosen in enumerate(_weekly_choices(choices, weeks)):
        if chosen is not None and left[chosen] == 0 and not prefer_one:
            raise CatRuleError(
                f"choices.{week}",
                N_("{chosen} has no scars to heal in week {week}."),
                chosen=chosen.capitalize(),
                week=week + 1,
            )
        target = chosen if chosen is not None and left[chosen] > 0 else _most_scarred(left)
        if target is None:
            break
        left[target] -= 1
    return left


def magic_points(tail_rank: str) -> int:
    """Ruling 8 (optional magic): 5 + 1 per Tail rank above Hurt (Good 6, Strong 7, Best 8)."""
    steps = RANKS.index(_check_rank(tail_rank, "tail_rank")) - RANKS.index("hurt")
    return BASE_MAGIC_POINTS + max(0, steps)
