"""Rolling and reading dice: independent and versus tests, Fate, the wise rerolls, tiebreakers.

rabbits.en.md, "Tests" and "Rewards"; RULINGS.md, "Rabbits" (4–6 succeed, margins, Fate, ties).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.dice import Dice
from app.rules.text import N_
from app.systems.rabbits.rules.errors import (
    FATE_REROLL_LIMIT,
    MAX_POOL,
    FateRerollLimitError,
    RabbitRuleError,
    check_choice,
    check_count,
)
from app.systems.rabbits.rules.tables import FATE_FACE, SUCCESS_FACES, TIEBREAK


@dataclass(frozen=True)
class IndependentResult:
    """An independent test: `margin` is |successes − Ob|, of success when `passed`, of failure otherwise."""

    faces: tuple[int, ...]
    successes: int
    passed: bool
    margin: int
    ob: int


@dataclass(frozen=True)
class VersusResult:
    """A versus test: `winner` is "a", "b" or None for a tie; `margin` is the difference in successes."""

    a_faces: tuple[int, ...]
    b_faces: tuple[int, ...]
    a_successes: int
    b_successes: int
    winner: str | None
    margin: int


def _check_faces(faces: Sequence[int], field: str = "faces") -> tuple[int, ...]:
    checked = tuple(faces)
    for face in checked:
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= 6:
            raise RabbitRuleError(field, N_("A d6 shows 1 to 6, not {face!r}."), face=face)
    return checked


def successes(faces: Sequence[int]) -> int:
    """RULINGS.md, "Rabbits": a die showing 4–6 is a success."""
    return sum(1 for face in _check_faces(faces) if face in SUCCESS_FACES)


def roll_pool(dice: Dice, pool: int) -> tuple[int, ...]:
    """Roll `pool` d6 (rabbits.en.md, "Tests": as many dice as you have in the skill)."""
    check_count(pool, "pool", 0, MAX_POOL)
    return tuple(dice.roll(6) for _ in range(pool))


def judge_test(faces: Sequence[int], ob: int) -> IndependentResult:
    """rabbits.en.md, "Tests": pass with at least as many successes as the Ob. Use it again after a reroll."""
    checked = _check_faces(faces)
    check_count(ob, "ob", 0)
    hits = successes(checked)
    return IndependentResult(checked, hits, hits >= ob, abs(hits - ob), ob)


def test(dice: Dice, pool: int, ob: int) -> IndependentResult:
    """rabbits.en.md, "Tests", independent test: roll the pool against the obstacle."""
    check_count(ob, "ob", 0)
    return judge_test(roll_pool(dice, pool), ob)


def judge_versus(a_faces: Sequence[int], b_faces: Sequence[int]) -> VersusResult:
    """rabbits.en.md, "Tests", versus test: most successes wins; equal successes is a tie (winner None)."""
    a_checked = _check_faces(a_faces, "a_faces")
    b_checked = _check_faces(b_faces, "b_faces")
    a_hits, b_hits = successes(a_checked), successes(b_checked)
    winner = "a" if a_hits > b_hits else "b" if b_hits > a_hits else None
    return VersusResult(a_checked, b_checked, a_hits, b_hits, winner, abs(a_hits - b_hits))


def versus(dice: Dice, pool_a: int, pool_b: int) -> VersusResult:
    """rabbits.en.md, "Tests", versus test: side a rolls first, then side b."""
    check_count(pool_b, "pool_b", 0, MAX_POOL)
    a_faces = roll_pool(dice, check_count(pool_a, "pool_a", 0, MAX_POOL))
    return judge_versus(a_faces, roll_pool(dice, pool_b))


def fate_reroll(dice: Dice, faces: Sequence[int], *, limit: int = FATE_REROLL_LIMIT) -> tuple[int, ...]:
    """rabbits.en.md, "Rewards", Fate; RULINGS.md, "Rabbits": every 6 is rolled again as a new die and new
    6s keep rerolling; the original 6s stay. Returns the originals followed by the new dice.

    Raises FateRerollLimitError after `limit` extra dice, which only broken dice can reach.
    """
    check_count(limit, "limit", 0)
    result = list(_check_faces(faces))
    pending = result.count(FATE_FACE)
    extra = 0
    while pending:
        if extra >= limit:
            raise FateRerollLimitError(limit)
        face = dice.roll(6)
        _check_faces((face,))
        result.append(face)
        extra += 1
        pending += (face == FATE_FACE) - 1
    return tuple(result)


def _failed_positions(faces: tuple[int, ...]) -> list[int]:
    failed = [index for index, face in enumerate(faces) if face not in SUCCESS_FACES]
    if not failed:
        raise RabbitRuleError("faces", N_("Every die is already a success; there is no failed die to reroll."))
    return failed


def deeper_understanding(dice: Dice, faces: Sequence[int]) -> tuple[int, ...]:
    """Parent game, wises ("Deeper Understanding", spend a Fate point): reroll one failed die.

    The first failed die is rerolled in place (all failed dice are alike); a new 6 does not explode.
    """
    result = list(_check_faces(faces))
    index = _failed_positions(tuple(result))[0]
    result[index] = dice.roll(6)
    return _check_faces(result)


def of_course(dice: Dice, faces: Sequence[int]) -> tuple[int, ...]:
    """Parent game, wises ("Of Course!", spend a Persona point): reroll every failed die, each in place."""
    result = list(_check_faces(faces))
    for index in _failed_positions(tuple(result)):
        result[index] = dice.roll(6)
    return _check_faces(result)


def tiebreak_ability(kind: str) -> tuple[str, ...]:
    """RULINGS.md, "Rabbits", ties: a tied skill (or Resources/Circles) test is broken with Will or Health,
    a Will or Health tie with Nature. A Nature tie has no tiebreaker (empty tuple): the narrator rules.
    """
    return TIEBREAK[check_choice(kind, TIEBREAK, "kind", N_("kind of roll"))]
