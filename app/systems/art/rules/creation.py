"""Creating an adventurer: attributes (random or balanced), starting Fame, experience and skills.

art-engine.md, ch. 1 "Abbreviations"; ch. 2 "Determining Attributes", "Random Method", "Balanced
Method", "Fame", "Starting Experience", "Starting Skills".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from app.rules.dice import Dice
from app.rules.text import N_

from .levels import ArtRuleError

# ch. 1, "Abbreviations": the ten rolled attributes. Defense (DEF) is derived from Agility and armor.
ATTRIBUTES: dict[str, str] = {
    "AGI": N_("Agility"),
    "ALE": N_("Alertness"),
    "CHA": N_("Charm"),
    "CRA": N_("Craft"),
    "CUN": N_("Cunning"),
    "DEX": N_("Dexterity"),
    "FAT": N_("Fate"),
    "INT": N_("Intelligence"),
    "STA": N_("Stamina"),
    "STR": N_("Strength"),
}
ATTRIBUTE_RANGE = range(2, 13)  # ch. 2, "Determining Attributes": 2 to 12 at creation

# ch. 2, "Balanced Method": each attribute is the sum of two of these, each used once.
BALANCED_NUMBERS: tuple[int, ...] = (1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6)

# ch. 2, "Starting Skills" (skill rating: experience point cost)
STARTING_SKILL_COSTS: dict[int, int] = {1: 1, 2: 3, 3: 6, 4: 10}

STARTING_FAME = 1  # ch. 2, "Fame": all newly created characters begin with Fame of one


def random_attributes(dice: Dice) -> tuple[int, ...]:
    """Ten scores of 2d6, in the order rolled; the player assigns each to an attribute as it comes
    (ch. 2, "Random Method")."""
    return tuple(dice.roll(6) + dice.roll(6) for _ in ATTRIBUTES)


def balanced_attributes(pairs: Mapping[str, tuple[int, int]]) -> dict[str, int]:
    """Attribute scores from the pairs of numbers struck off the balanced list (ch. 2, "Balanced
    Method"). Every attribute needs a pair, and the pairs must use each listed number exactly once."""
    missing = [code for code in ATTRIBUTES if code not in pairs]
    unknown = [code for code in pairs if code not in ATTRIBUTES]
    if unknown:
        raise ArtRuleError("pairs", N_("{unknown} is not an attribute"), unknown=", ".join(unknown))
    if missing:
        raise ArtRuleError("pairs", N_("{missing} still needs a pair of numbers"), missing=", ".join(missing))
    for code, pair in pairs.items():
        if len(pair) != 2:
            raise ArtRuleError(code, N_("an attribute is the sum of exactly two numbers, not {pair}"), pair=len(pair))
    used = Counter(number for pair in pairs.values() for number in pair)
    left = Counter(BALANCED_NUMBERS)
    left.subtract(used)
    overused = sorted(number for number, times in left.items() if times < 0)
    if overused:
        raise ArtRuleError(
            "pairs", N_("used more often than the list allows: {overused}"), overused=", ".join(map(str, overused))
        )
    return {code: sum(pairs[code]) for code in ATTRIBUTES}


def starting_experience(intelligence: int) -> int:
    """A new adventurer's experience points equal their Intelligence (ch. 2, "Starting Experience")."""
    return intelligence


def starting_skill_cost(rating: int) -> int:
    """Experience points for a skill bought before the first adventure (ch. 2, "Starting Skills")."""
    if rating not in STARTING_SKILL_COSTS:
        raise ArtRuleError("rating", N_("starting skills are +1 to +4, not {rating:+d}"), rating=rating)
    return STARTING_SKILL_COSTS[rating]
