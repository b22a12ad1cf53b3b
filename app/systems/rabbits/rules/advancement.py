"""Between rolls: Nature tax, advancement, learning a skill by beginner's luck, recovering from conditions.

rabbits.en.md, "Nature" and "Conditions"; RULINGS.md, "Rabbits" (parent-game facts, ruling 2).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.text import N_
from app.systems.rabbits.rules.errors import RabbitRuleError, check_count
from app.systems.rabbits.rules.pools import check_conditions
from app.systems.rabbits.rules.tables import CONDITIONS, MARGIN, NATURE_MAX, NATURE_TAX


@dataclass(frozen=True)
class NatureAfterTax:
    """Nature after a tax; `retired` when it reached 0 (ruling 2: the rabbit stays on the sheet, retired)."""

    nature: int
    retired: bool


@dataclass(frozen=True)
class RecoveryTest:
    """The test that removes a condition; ability and ob are None when no test does (Afraid)."""

    condition: str
    ability: str | None
    ob: int | None
    note: str


def nature_tax(within_nature: bool, passed: bool, margin: int) -> int:
    """rabbits.en.md, "Nature": how much Nature a test that used Nature (rolled or tapped) costs.

    A failure costs the margin of failure; a success costs 1 if the action was outside the rabbit's nature
    (flee, hide, dig, breed), else nothing. `margin` is the test's margin (of success or of failure).
    """
    check_count(margin, "margin", 0)
    tax = NATURE_TAX[(bool(within_nature), bool(passed))]
    return margin if tax == MARGIN else int(tax)


def taxed_nature(nature: int, tax: int) -> NatureAfterTax:
    """Ruling 2: Nature drops by the tax, never below 0; at 0 the rabbit retires."""
    check_count(nature, "nature", 0, NATURE_MAX)
    left = max(0, nature - check_count(tax, "tax", 0))
    return NatureAfterTax(left, left == 0)


def advancement_due(rating: int, passes: int, fails: int, *, maximum: int | None = None) -> bool:
    """Parent game (RULINGS.md, "Rabbits"): a rating advances once it has as many passed tests as the rating
    and one fewer failed tests. `maximum` (e.g. 6 for skills, 7 for Nature) stops advancing at the ceiling.
    """
    check_count(rating, "rating", 1)
    check_count(passes, "passes", 0)
    check_count(fails, "fails", 0)
    if maximum is not None and rating >= check_count(maximum, "maximum", 1):
        return False
    return passes >= rating and fails >= rating - 1


def beginners_luck_learned(tests: int, nature: int) -> bool:
    """Parent game: a skill is learned after as many beginner's-luck tests (passed or failed) as the rabbit's
    Nature rating; it then opens at NEW_SKILL_RATING (2).
    """
    check_count(tests, "tests", 0)
    if check_count(nature, "nature", 0, NATURE_MAX) == 0:
        raise RabbitRuleError("nature", N_("A rabbit whose Nature is 0 has retired (ruling 2)."))
    return tests >= nature


def recovery_test(condition: str) -> RecoveryTest:
    """rabbits.en.md, "Conditions": the test (in brackets on the sheet) that gets rid of a condition."""
    (key,) = check_conditions([condition], "condition")
    rule = CONDITIONS[key]
    return RecoveryTest(key, rule.recovery_ability, rule.recovery_ob, rule.recovery_note)
