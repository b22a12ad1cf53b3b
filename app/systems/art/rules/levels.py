"""The eleven ART levels and the arithmetic on them: successes, adding difficulties, time in phases.

art-engine.md, ch. 1 "Abbreviations" and ch. 3 "Setting the Difficulty", "Adding Difficulties",
"Adjusting Difficulty", "Successes & Failures"; RULINGS.md, ART Engine rulings 4, 5, 8 and 12.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

from app.rules.text import N_, RuleText


class ArtRuleError(RuleText, ValueError):
    """A rules call got something the ART Engine does not allow; `field` names the offending input."""

    def __init__(self, field: str, message: str, **values: Any) -> None:
        super().__init__(f"{field}: {self._set_text(message, values)}")
        self.field = field


class Level(IntEnum):
    """A column of the ART, a foe attribute, a difficulty or a wound level (ch. 1, "Abbreviations").

    Listed worst to best (results), least to most (foe traits), easiest to hardest (difficulties).
    """

    CT = 0
    PT = 1
    FB = 2
    IN = 3
    PR = 4
    PS = 5
    GD = 6
    GT = 7
    SP = 8
    AW = 9
    EX = 10

    @property
    def display_name(self) -> str:
        """The level's full name as the rules text spells it ("Super", not "Superb")."""
        return _DISPLAY_NAMES[self]

    @classmethod
    def parse(cls, text: str) -> Level:
        """Read "GD", "gd" or "Good" as Level.GD; raise ArtRuleError for anything else."""
        key = text.strip().upper()
        if key in cls.__members__:
            return cls[key]
        for level, name in _DISPLAY_NAMES.items():
            if name.upper() == key:
                return level
        raise ArtRuleError(
            "level", N_("{text!r} is not an ART level (CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX)"), text=text
        )


# ch. 1, "Abbreviations" (two-letter codes and their names)
_DISPLAY_NAMES: dict[Level, str] = {
    Level.CT: N_("Catastrophic"),
    Level.PT: N_("Pathetic"),
    Level.FB: N_("Feeble"),
    Level.IN: N_("Inferior"),
    Level.PR: N_("Poor"),
    Level.PS: N_("Passable"),
    Level.GD: N_("Good"),
    Level.GT: N_("Great"),
    Level.SP: N_("Super"),
    Level.AW: N_("Awesome"),
    Level.EX: N_("Extreme"),
}

# The ART's columns: a roll can land from Catastrophic to Awesome, never Extreme (ch. 3, "Using the ART").
RESULT_LEVELS: tuple[Level, ...] = tuple(Level)[: Level.AW + 1]

MAX_DIFFICULTY_ADJUSTMENT = 3  # ch. 3, "Adjusting Difficulty": "adjusted by up to 3 columns"


def count(difficulty: Level, result: Level) -> int:
    """Successes (> 0) or failures (< 0) of `result` against `difficulty` (ch. 3, "Successes & Failures").

    Rolled the difficulty or more: columns between plus one. Rolled under it: columns between, as
    failures (ruling 5). Extreme sits one column above Awesome, and an Extreme difficulty always fails
    (ruling 4) -- even for a foe whose attribute, used as a result, is itself Extreme.
    """
    difficulty, result = Level(difficulty), Level(result)
    if difficulty is Level.EX:
        return -max(1, difficulty - result)
    if result >= difficulty:
        return result - difficulty + 1
    return -(difficulty - result)


def combine(levels: Iterable[Level], *, cap: Level = Level.EX) -> Level:
    """Add difficulties together, or compound results (ch. 3, "Adding Difficulties", "Compounding Tasks").

    Ruling 8: sort ascending, repeatedly replace the lowest pair no more than one rank apart with one
    rank above the higher of the two, stop when no pair combines, take the highest. `cap` is Extreme
    for difficulties (the default) and Awesome for results -- see add_difficulties/compound_results.
    """
    ranks = sorted(int(Level(level)) for level in levels)
    if not ranks:
        raise ArtRuleError("levels", N_("there is nothing to combine"))
    # Ranks may climb past Extreme while combining; capping at the end gives the same answer as
    # capping each step, because the highest rank only ever grows.
    while (pair := _lowest_combinable_pair(ranks)) is not None:
        higher = ranks.pop(pair + 1)
        ranks.pop(pair)
        ranks.append(higher + 1)
        ranks.sort()
    return Level(min(ranks[-1], int(cap)))


def _lowest_combinable_pair(ranks: list[int]) -> int | None:
    for index in range(len(ranks) - 1):
        if ranks[index + 1] - ranks[index] <= 1:
            return index
    return None


def add_difficulties(difficulties: Iterable[Level]) -> Level:
    """Several foes as one difficulty (ch. 3, "Adding Difficulties"), capped at Extreme."""
    return combine(difficulties, cap=Level.EX)


def compound_results(results: Iterable[Level]) -> Level:
    """A group's compounded result (ch. 3, "Compounding Tasks"), capped at Awesome."""
    return combine(results, cap=Level.AW)


def adjust_difficulty(difficulty: Level, columns: int) -> Level:
    """Raise (+) or lower (-) a difficulty by up to 3 columns, within Catastrophic..Extreme.

    ch. 3, "Adjusting Difficulty".
    """
    if abs(columns) > MAX_DIFFICULTY_ADJUSTMENT:
        raise ArtRuleError(
            "columns", N_("difficulty can be adjusted by up to 3 columns, not {columns}"), columns=columns
        )
    return Level(min(max(int(difficulty) + columns, Level.CT), Level.EX))


def phases(result: Level, difficulty: Level) -> int:
    """Exploration phases an action takes (ch. 4, "How Long Did It Take?"; ruling 12).

    A success takes one phase per column below Awesome; 0 means Awesome: less than one phase, and the
    player may attempt another action in the same phase. A failure takes one phase per failure.
    """
    outcome = count(difficulty, result)
    if outcome < 0:
        return -outcome
    return int(Level.AW) - min(int(result), int(Level.AW))


# ch. 1, "Comparison of Foe Attributes to Traits" = ch. 3, "Henchman Traits": the adventurer traits
# (lowest, highest) that a foe attribute stands for.
HENCHMAN_TRAITS: dict[Level, tuple[int, int]] = {
    Level.CT: (0, 0),
    Level.PT: (1, 1),
    Level.FB: (2, 5),
    Level.IN: (6, 8),
    Level.PR: (9, 12),
    Level.PS: (13, 16),
    Level.GD: (17, 20),
    Level.GT: (21, 24),
    Level.SP: (25, 27),
    Level.AW: (28, 29),
    Level.EX: (30, 30),
}


def henchman_trait(attribute: Level) -> int:
    """The adventurer trait (ART row) a henchman rolls for a foe attribute (ch. 3, "Henchman").

    The table gives a band; the text does not say which number in it to use. We take the middle of
    the band, rounding down (Feeble 2-5 rolls on row 3, Passable 13-16 on row 14).
    """
    low, high = HENCHMAN_TRAITS[Level(attribute)]
    return (low + high) // 2


def foe_level(trait: int) -> Level:
    """The foe attribute an adventurer trait compares to (ch. 1, "Comparison of Foe Attributes to Traits").

    Traits below 0 read as Catastrophic and above 30 as Extreme, the table's ends.
    """
    for level, (_low, high) in HENCHMAN_TRAITS.items():
        if trait <= high:
            return level
    return Level.EX
