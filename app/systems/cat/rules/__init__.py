"""Cat: testing fate with even d6s (cat.txt), as settled by RULINGS.md, section "Cat".

How a pool is formed (cat.txt, "Testing Fate", "Advantage Dice", "Using Reputation"; ruling 9):
the Trait's rank dice (Best 5, Strong 4, Good 3, Hurt 2; a Crippled Trait cannot be used)
+ the Advantage Dice the Narrator hands out + the rank of one Reputation the Narrator agrees
fits the Risk. `pool_for` does that sum; the other functions take the finished pool.

Decided here where the texts are silent (show these to the narrator):
- Style points spent on a roll but not needed come back: all evens beyond need become Style.
- A Life spent on a Risk rolls nothing, so it gains no Style; Style cannot be spent with it.
- A Life in a fight is spent after the roll (`dodge_*_with_life`); the winner stays the same.
- Two cats both dodging: no scars and no winner. A dodge against a cat ends without scars.
- At creation Reputations take exactly 7 points; in play a Reputation at 0 is gone.

This package is the ranks, Traits and pools; a Risk is `fate`, fights are `fights`, what a sheet may hold
and how it heals is `sheet`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

from app.rules.dice import Dice
from app.rules.text import N_, RuleText

Rank = Literal["crippled", "hurt", "good", "strong", "best"]
Trait = Literal["claws", "coat", "face", "fangs", "legs", "tail"]
# Mapping is invariant in its key: K lets a sheet's dict[Trait, ...] and a form's dict[str, ...] both in (the
# functions check the keys themselves).
K = TypeVar("K", bound=str)

RANKS: tuple[Rank, ...] = ("crippled", "hurt", "good", "strong", "best")
RANK_DICE: Mapping[str, int] = {"crippled": 0, "hurt": 2, "good": 3, "strong": 4, "best": 5}
TRAITS: tuple[Trait, ...] = ("claws", "coat", "face", "fangs", "legs", "tail")
DIFFICULTIES = ("easy", "moderate", "hard")
DIFFICULTY_EVENS: Mapping[str, int] = {"easy": 1, "moderate": 2, "hard": 3}
NEW_CAT_RANKS: Mapping[str, int] = {"best": 1, "strong": 3, "good": 2}
STARTING_LIVES = 9
SCARS_PER_RANK = 3
MAX_REPUTATIONS = 5
MAX_REPUTATION_RANK = 5
CREATION_REPUTATION_POINTS = 7
CREATION_MAX_REPUTATION_RANK = 3
BASE_MAGIC_POINTS = 5
# A roll budget, so a typo ("4000 advantage dice") is a clear error instead of a slow request.
MAX_POOL = 100


class CatRuleError(RuleText, ValueError):
    """A request the Cat rules do not allow; `field` names the input at fault."""

    def __init__(self, field: str, message: str, **values: Any) -> None:
        super().__init__(self._set_text(message, values))
        self.field = field


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_count(value: object, field: str, low: int = 0, high: int | None = None) -> int:
    if not _is_count(value):
        raise CatRuleError(field, N_("{name} must be a whole number, not {value!r}."), name=field, value=value)
    assert isinstance(value, int)
    if value < low and high is None:
        raise CatRuleError(field, N_("{name} must be at least {low}, not {value}."), name=field, low=low, value=value)
    if value < low or (high is not None and value > high):
        raise CatRuleError(
            field,
            N_("{name} must be between {low} and {high}, not {value}."),
            name=field,
            low=low,
            high=high,
            value=value,
        )
    return value


def _check_rank(rank: object, field: str = "rank") -> Rank:
    if rank not in RANKS:
        raise CatRuleError(field, N_("Unknown rank {rank!r}; ranks are {ranks}."), rank=rank, ranks=", ".join(RANKS))
    assert isinstance(rank, str)
    return rank  # one of RANKS, checked above


def _check_trait(trait: object, field: str) -> Trait:
    if trait not in TRAITS:
        raise CatRuleError(
            field, N_("Unknown Trait {trait!r}; Traits are {traits}."), trait=trait, traits=", ".join(TRAITS)
        )
    assert isinstance(trait, str)
    return trait  # one of TRAITS, checked above


def _check_pool(pool: object, field: str) -> int:
    if _is_count(pool) and pool == 0:
        raise CatRuleError(field, N_("A Crippled Trait (no dice) cannot be used for Risks, fights or dodging."))
    return _check_count(pool, field, 1, MAX_POOL)


def effective_rank(base: str, scars: int) -> Rank:
    """Ruling 1 (cat.txt, "Scars"): one rank down per 3 scars in the Trait, never below Crippled."""
    _check_rank(base, "base")
    _check_count(scars, "scars")
    return RANKS[max(0, RANKS.index(base) - scars // SCARS_PER_RANK)]


def effective_ranks(base_ranks: Mapping[K, str], scars: Mapping[K, int]) -> dict[Trait, str]:
    """The sheet's ranks after scars, trait by trait (missing scar counts are 0)."""
    for trait in scars:
        _check_trait(trait, f"scars.{trait}")
    return {
        _check_trait(trait, f"ranks.{trait}"): effective_rank(rank, scars.get(trait, 0))
        for trait, rank in base_ranks.items()
    }


def pool_for(rank: str, advantage: int = 0, reputation: int = 0) -> int:
    """Dice for a Risk: rank dice + Advantage Dice + Reputation rank (cat.txt, "Testing Fate")."""
    if _check_rank(rank) == "crippled":
        raise CatRuleError("rank", N_("A Crippled Trait cannot be used for Risks, fights or dodging."))
    _check_count(advantage, "advantage")
    _check_count(reputation, "reputation", 0, MAX_REPUTATION_RANK)
    return _check_count(RANK_DICE[rank] + advantage + reputation, "pool", 1, MAX_POOL)


def _roll(dice: Dice, pool: int) -> tuple[int, ...]:
    return tuple(dice.roll(6) for _ in range(pool))


def _evens(faces: Sequence[int]) -> int:
    return sum(1 for face in faces if face % 2 == 0)


def _lowest_odd(faces: Sequence[int]) -> int:
    # Ruling 2: no odd die rolled means no scars.
    return min((face for face in faces if face % 2 == 1), default=0)
