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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any, Literal, TypeVar, cast

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
        raise CatRuleError(field, N_("{name} must be between {low} and {high}, not {value}."), name=field, low=low,
                           high=high, value=value)
    return value


def _check_rank(rank: object, field: str = "rank") -> Rank:
    if rank not in RANKS:
        raise CatRuleError(field, N_("Unknown rank {rank!r}; ranks are {ranks}."), rank=rank, ranks=', '.join(RANKS))
    assert isinstance(rank, str)
    return cast(Rank, rank)  # one of RANKS, checked above


def _check_trait(trait: object, field: str) -> Trait:
    if trait not in TRAITS:
        raise CatRuleError(field, N_("Unknown Trait {trait!r}; Traits are {traits}."), trait=trait, traits=', '.join(TRAITS))
    assert isinstance(trait, str)
    return cast(Trait, trait)  # one of TRAITS, checked above


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


def _needed(difficulty: object) -> int:
    if difficulty not in DIFFICULTY_EVENS:
        raise CatRuleError("difficulty", N_("Unknown difficulty {difficulty!r}; choose easy, moderate or hard."), difficulty=difficulty)
    assert isinstance(difficulty, str)
    return DIFFICULTY_EVENS[difficulty]


@dataclass(frozen=True)
class FateResult:
    """One Risk. `evens` includes `style_spent`; `scars` go where the player explains (cat.txt)."""

    difficulty: str
    needed: int
    faces: tuple[int, ...]
    style_spent: int
    evens: int
    success: bool
    style_gained: int
    dangerous: bool
    scars: int
    life_spent: bool


def test_fate(
    dice: Dice,
    pool: int,
    difficulty: str,
    *,
    style_points: int = 0,
    dangerous: bool = False,
    spend_life: bool = False,
) -> FateResult:
    """cat.txt, "Testing Fate", "Scars", "Lives", "Style"; rulings 2 and 3.

    Evens beyond those needed become Style (banked Style points spent on the roll count
    too, so any not needed come back). A failed dangerous Risk scars by its lowest odd
    die. A spent Life wins the Risk outright: no roll, so no Style gained and no scars.
    """
    needed = _needed(difficulty)
    _check_count(style_points, "style_points")
    if spend_life:
        if style_points:
            raise CatRuleError("style_points", N_("A Life already wins this Risk; keep the Style points for later."))
        # "Regardless of your Trait": the pool is never rolled, so even a Crippled Trait may be named.
        _check_count(pool, "pool", 0, MAX_POOL)
        return FateResult(
            difficulty=difficulty, needed=needed, faces=(), style_spent=0, evens=0, success=True,
            style_gained=0, dangerous=dangerous, scars=0, life_spent=True,
        )
    faces = _roll(dice, _check_pool(pool, "pool"))
    evens = _evens(faces) + style_points
    success = evens >= needed
    return FateResult(
        difficulty=difficulty, needed=needed, faces=faces, style_spent=style_points, evens=evens,
        success=success, style_gained=max(0, evens - needed), dangerous=dangerous,
        scars=_lowest_odd(faces) if dangerous and not success else 0, life_spent=False,
    )


# The name is the rules' own; this keeps pytest from collecting it when a test imports it.
test_fate.__test__ = False  # type: ignore[attr-defined]  # pytest's own marker attribute, set on a function


def exact_success_chance(pool: int, needed: int, style_points: int = 0) -> Fraction:
    """Exact chance that `pool` d6 plus `style_points` automatic evens reach `needed` evens."""
    _check_count(pool, "pool", 0, MAX_POOL)
    _check_count(needed, "needed")
    _check_count(style_points, "style_points")
    target = needed - style_points
    if target <= 0:
        return Fraction(1)
    ways = sum(comb(pool, k) for k in range(target, pool + 1))
    return Fraction(ways, 2**pool)


@dataclass(frozen=True)
class CatFightResult:
    """One scuffle between cats a and b (cat.txt, "Fighting Other Cats")."""

    a_faces: tuple[int, ...]
    b_faces: tuple[int, ...]
    a_evens: int
    b_evens: int
    a_scars: int
    b_scars: int
    winner: str | None
    a_dodged: bool = False
    b_dodged: bool = False
    a_life_spent: bool = False
    b_life_spent: bool = False


def _fight_winner(a_evens: int, b_evens: int, a_dodges: bool, b_dodges: bool) -> str | None:
    if a_dodges or b_dodges:
        # A dodger is "automatically considered the loser"; two dodgers leave no winner.
        return None if a_dodges and b_dodges else ("b" if a_dodges else "a")
    if a_evens == b_evens:
        return None
    return "a" if a_evens > b_evens else "b"


def cat_fight(
    dice: Dice, a_pool: int, b_pool: int, *, a_dodges: bool = False, b_dodges: bool = False
) -> CatFightResult:
    """cat.txt, "Fighting Other Cats", "Dodging"; ruling 4.

    Each cat rolls Claws or Fangs (Legs when dodging), a first. Each takes scars equal to
    the other's evens; most evens wins, a tie has no winner. A dodger takes no scars,
    inflicts none and loses, so any dodge means nobody is scarred.
    """
    a_faces = _roll(dice, _check_pool(a_pool, "a_pool"))
    b_faces = _roll(dice, _check_pool(b_pool, "b_pool"))
    a_evens, b_evens = _evens(a_faces), _evens(b_faces)
    no_scars = a_dodges or b_dodges
    return CatFightResult(
        a_faces=a_faces,
        b_faces=b_faces,
        a_evens=a_evens,
        b_evens=b_evens,
        a_scars=0 if no_scars else b_evens,
        b_scars=0 if no_scars else a_evens,
        winner=_fight_winner(a_evens, b_evens, a_dodges, b_dodges),
        a_dodged=a_dodges,
        b_dodged=b_dodges,
    )


@dataclass(frozen=True)
class FoeRoundResult:
    """One round against a dog, rat or Boggin (cat.txt, "Fighting Non-Cats")."""

    cat_faces: tuple[int, ...]
    foe_faces: tuple[int, ...]
    cat_evens: int
    foe_evens: int
    cat_scars: int
    foe_scars: int
    cat_dodged: bool = False
    scars_cancelled: int = 0
    cat_life_spent: bool = False


def foe_round(dice: Dice, cat_pool: int, foe_pool: int, *, cat_dodges: bool = False) -> FoeRoundResult:
    """cat.txt, "Fighting Non-Cats", "Dodging"; ruling 5.

    Cat rolls first, then the foe. Each takes scars equal to the other's evens. A dodging
    cat rolls Legs: each even cancels one scar it would take, and it inflicts none.
    """
    cat_faces = _roll(dice, _check_pool(cat_pool, "cat_pool"))
    foe_faces = _roll(dice, _check_pool(foe_pool, "foe_pool"))
    cat_evens, foe_evens = _evens(cat_faces), _evens(foe_faces)
    cancelled = min(cat_evens, foe_evens) if cat_dodges else 0
    return FoeRoundResult(
        cat_faces=cat_faces,
        foe_faces=foe_faces,
        cat_evens=cat_evens,
        foe_evens=foe_evens,
        cat_scars=foe_evens - cancelled,
        foe_scars=0 if cat_dodges else cat_evens,
        cat_dodged=cat_dodges,
        scars_cancelled=cancelled,
    )


def dodge_fight_scars_with_life(result: CatFightResult, side: str) -> CatFightResult:
    """cat.txt, "Fighting Other Cats": a Life dodges this fight's scars; the winner stays the winner."""
    if side not in ("a", "b"):
        raise CatRuleError("side", N_("side must be 'a' or 'b', not {side!r}."), side=side)
    spent, scars = (result.a_life_spent, result.a_scars) if side == "a" else (result.b_life_spent, result.b_scars)
    if spent:
        raise CatRuleError("side", N_("This cat already spent a Life on this fight."))
    if scars == 0:
        raise CatRuleError("side", N_("This cat takes no scars in this fight; no Life is needed."))
    if side == "a":
        return dataclasses.replace(result, a_scars=0, a_life_spent=True)
    return dataclasses.replace(result, b_scars=0, b_life_spent=True)


def dodge_round_scars_with_life(result: FoeRoundResult) -> FoeRoundResult:
    """cat.txt, "Lives"; ruling 5: a Life dodges all scars of one round against a non-cat."""
    if result.cat_life_spent:
        raise CatRuleError("side", N_("This cat already spent a Life on this round."))
    if result.cat_scars == 0:
        raise CatRuleError("side", N_("This cat takes no scars this round; no Life is needed."))
    return dataclasses.replace(result, cat_scars=0, cat_life_spent=True)


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
            raise CatRuleError(f"ranks.{trait}", N_("A new cat's Traits are Best, Strong or Good; {trait} is {rank}."),
                               trait=trait.capitalize(), rank=rank.capitalize())
    counts = {rank: sum(1 for r in ranks.values() if r == rank) for rank in NEW_CAT_RANKS}
    if counts != dict(NEW_CAT_RANKS):
        raise CatRuleError("ranks", N_("A new cat has one Best, three Strong and two Good Traits, not {best} Best, "
                                       "{strong} Strong and {good} Good."), **counts)


def validate_reputations(reps: Mapping[str, int], *, creation: bool) -> None:
    """cat.txt, "Reputation"; RULINGS.md, Cat: up to 5, ranks 1-5; at creation 7 points, none above 3."""
    if len(reps) > MAX_REPUTATIONS:
        raise CatRuleError("reputations", N_("A cat can have up to {most} Reputations, not {reps}."), most=MAX_REPUTATIONS, reps=len(reps))
    top = CREATION_MAX_REPUTATION_RANK if creation else MAX_REPUTATION_RANK
    for name, rank in reps.items():
        if not isinstance(name, str) or not name.strip():
            raise CatRuleError("reputations", N_("Every Reputation needs a name."))
        field = f"reputations.{name}"
        _check_count(rank, field, 1, MAX_REPUTATION_RANK)
        if rank > top:
            raise CatRuleError(field, N_("At creation no Reputation is above {top}; {name} is {rank}."), top=top, name=name, rank=rank)
    spent = sum(reps.values())
    if creation and spent != CREATION_REPUTATION_POINTS:
        raise CatRuleError(
            "reputations", N_("Spend exactly {points} points on Reputations (spent {spent})."), points=CREATION_REPUTATION_POINTS, spent=spent
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
        raise CatRuleError("choices", N_("{choices} choices for {weeks} weeks of healing."), choices=len(choices), weeks=weeks)
    picked: list[Trait | None] = [_check_trait(c, f"choices.{i}") for i, c in enumerate(choices)]
    return picked + [None] * (weeks - len(choices))


def heal(
    scars: Mapping[K, int], weeks: int, choices: str | Sequence[str] | None = None
) -> dict[Trait, int]:
    """cat.txt, "Healing"; ruling 1: one scar per week of game time.

    `choices` is one Trait per week (weeks beyond the list heal the most-scarred Trait,
    ties going to the first in TRAITS order); a listed Trait without scars is an error.
    A single Trait name means "that Trait first": once it is clear, the default takes over.
    Returns the scar counts for all six Traits.
    """
    _check_count(weeks, "weeks")
    left = {trait: 0 for trait in TRAITS}
    for trait, count in scars.items():
        left[_check_trait(trait, f"scars.{trait}")] = _check_count(count, f"scars.{trait}")
    prefer_one = isinstance(choices, str)
    for week, chosen in enumerate(_weekly_choices(choices, weeks)):
        if chosen is not None and left[chosen] == 0 and not prefer_one:
            raise CatRuleError(f"choices.{week}", N_("{chosen} has no scars to heal in week {week}."), chosen=chosen.capitalize(), week=week + 1)
        target = chosen if chosen is not None and left[chosen] > 0 else _most_scarred(left)
        if target is None:
            break
        left[target] -= 1
    return left


def magic_points(tail_rank: str) -> int:
    """Ruling 8 (optional magic): 5 + 1 per Tail rank above Hurt (Good 6, Strong 7, Best 8)."""
    steps = RANKS.index(_check_rank(tail_rank, "tail_rank")) - RANKS.index("hurt")
    return BASE_MAGIC_POINTS + max(0, steps)
