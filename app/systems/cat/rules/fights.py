"""Cat: fights against cats and non-cats, and a Life spent on their scars (cat.txt, "Fighting Other Cats",
"Fighting Non-Cats", "Dodging", "Lives"; rulings 4 and 5)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from app.rules.dice import Dice
from app.rules.text import N_
from app.systems.cat.rules import CatRuleError, _check_pool, _evens, _roll


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
