"""Trait rolls: the row, the percentile roll and its kicker, Fame before and after, taking 25.

art-engine.md, ch. 1 "Using the Dice", "Kicker Die"; ch. 3 "Summary of a Trait Roll", "Trait
Modifiers", "Using Skills", "Using the ART", "Using Fame Before Rolling", "Taking 25", "Using Fame
After Rolling", "Regaining Fame", "Specialized Actions"; RULINGS.md, ART Engine rulings 2, 3, 4, 6, 7.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from app.rules.dice import Dice
from app.rules.text import N_

from .levels import ArtRuleError, Level, count
from .results_table import DEFAULT_TABLE, ArtTable, read_table, result_odds

ADVENTURER_ROWS = (1, 25)  # ch. 3, "Trait Modifiers": never above 25 or below 1
UNTRAINED_ROW = 2  # ch. 3, "Specialized Actions": without the perk you roll on the 2 row
TAKE_25 = 25  # ch. 3, "Taking 25"
FAME_PER_ROW = 2  # ch. 3, "Using Fame Before Rolling": +2 on the trait per point
FAME_PER_COLUMN = 2  # ch. 3, "Using Fame After Rolling": 2 Fame per column
MAX_SKILLS = 2  # ch. 3, "Using Skills"
SKILL_RATINGS = range(1, 9)  # ch. 1, "Abilities": skills range from +1 to +8


def percentile(tens: int, ones: int) -> int:
    """Two d10 faces (0..9) read high die first; 0 and 0 is 100 (ch. 1, "Using the Dice")."""
    for name, digit in (("tens", tens), ("ones", ones)):
        if not 0 <= digit <= 9:
            raise ArtRuleError(name, N_("a ten-sided die shows 0 to 9, not {digit}"), digit=digit)
    return 100 if tens == ones == 0 else tens * 10 + ones


def kicker(roll: int) -> int:
    """The ones digit of a percentile roll; 00 (100) has kicker 0 (ch. 1, "Kicker Die"; ruling 2)."""
    return roll % 10


def is_doubles(roll: int) -> bool:
    """11, 22, ..., 99 and 00 (ch. 6, "Inspiration Points"; ruling 2)."""
    return roll % 11 == 0 or roll == 100


def trait_total(attribute: int, skills: Sequence[int] = (), modifiers: int = 0) -> int:
    """Attribute + up to two skills + modifiers, before clamping (ch. 3, "Using Skills"; ruling 3)."""
    if len(skills) > MAX_SKILLS:
        raise ArtRuleError(
            "skills", N_("you can add up to two skills to a trait roll, not {skills}"), skills=len(skills)
        )
    for skill in skills:
        if skill not in SKILL_RATINGS:
            raise ArtRuleError("skills", N_("a skill is rated +1 to +8, not {skill:+d}"), skill=skill)
    return attribute + sum(skills) + modifiers


def effective_row(trait: int, *, fame_before: int = 0, henchman: bool = False) -> int:
    """The ART row a roll is read on (ruling 3).

    Adventurers add +2 per point of Fame spent before rolling and are clamped to rows 1..25 (ch. 3,
    "Trait Modifiers"). Henchmen roll their converted trait 0..30 as it is, and have no Fame.
    """
    if fame_before < 0:
        raise ArtRuleError("fame_before", N_("Fame spent cannot be negative ({fame_before})"), fame_before=fame_before)
    if henchman:
        if fame_before:
            raise ArtRuleError("fame_before", N_("henchmen have no Fame to spend"))
        if not 0 <= trait <= 30:
            raise ArtRuleError("trait", N_("a henchman's converted trait is 0 to 30, not {trait}"), trait=trait)
        return trait
    low, high = ADVENTURER_ROWS
    return min(max(trait + FAME_PER_ROW * fame_before, low), high)


@dataclass(frozen=True)
class TraitRoll:
    """One trait roll, as logged. `rolled` is the column the dice gave; `result` is after Fame."""

    trait: int
    fame_before: int
    row: int
    difficulty: Level
    took25: bool
    roll: int | None
    kicker: int | None
    doubles: bool
    rolled: Level
    result: Level
    successes: int
    fame_after: int = 0

    @property
    def succeeded(self) -> bool:
        return self.successes > 0

    @property
    def failures(self) -> int:
        return max(0, -self.successes)

    @property
    def fame_spent(self) -> int:
        return self.fame_before + self.fame_after

    @property
    def regains_fame(self) -> bool:
        """An Awesome roll erases expended Fame, unless Fame improved it or 25 was taken (rulings 6, 7)."""
        return self.result is Level.AW and not self.took25 and self.fame_spent == 0


def trait_roll(
    dice: Dice,
    trait: int,
    difficulty: Level,
    *,
    fame_before: int = 0,
    take25: bool = False,
    henchman: bool = False,
    table: ArtTable = DEFAULT_TABLE,
) -> TraitRoll:
    """Roll a trait against a difficulty (ch. 3, "Summary of a Trait Roll"; rulings 2, 3, 4, 7).

    Catastrophic difficulty always succeeds and Extreme always fails; both are still read for degree.
    Taking 25 reads the row at 25 without rolling: no kicker, no doubles, no Fame regained.
    """
    difficulty = Level(difficulty)
    row = effective_row(trait, fame_before=fame_before, henchman=henchman)
    roll = None if take25 else dice.roll(100)
    rolled = read_table(row, TAKE_25 if roll is None else roll, table)
    return TraitRoll(
        trait=trait,
        fame_before=fame_before,
        row=row,
        difficulty=difficulty,
        took25=take25,
        roll=roll,
        kicker=None if roll is None else kicker(roll),
        doubles=roll is not None and is_doubles(roll),
        rolled=rolled,
        result=rolled,
        successes=count(difficulty, rolled),
    )


def fame_after(
    result: Level, difficulty: Level, fame_available: int, *, columns: int | None = None
) -> tuple[Level, int]:
    """Spend Fame after rolling: 2 per column, only below the difficulty, up to it and not beyond
    (ch. 3, "Using Fame After Rolling"; ruling 6). Returns (new result, Fame cost).

    `columns` None buys as many columns as the Fame allows. Against Extreme, a result can be raised
    to Awesome at most -- Extreme is not a column of the ART -- which still fails, with fewer failures.
    """
    result, difficulty = Level(result), Level(difficulty)
    if fame_available < 0:
        raise ArtRuleError(
            "fame_available", N_("available Fame cannot be negative ({fame_available})"), fame_available=fame_available
        )
    room = max(0, min(int(difficulty), int(Level.AW)) - int(result))
    affordable = min(room, fame_available // FAME_PER_COLUMN)
    if columns is None:
        columns = affordable
    elif columns < 0 or columns > room:
        raise ArtRuleError(
            "columns",
            N_("Fame can raise this result by 0 to {room} columns, not {columns}"),
            room=room,
            columns=columns,
        )
    elif columns > affordable:
        cost = columns * FAME_PER_COLUMN
        raise ArtRuleError(
            "columns",
            N_("{columns} columns cost {cost} Fame; only {fame_available} is available"),
            columns=columns,
            cost=cost,
            fame_available=fame_available,
        )
    return Level(result + columns), columns * FAME_PER_COLUMN


def improve_with_fame(roll: TraitRoll, fame_available: int, *, columns: int | None = None) -> TraitRoll:
    """The trait roll after spending Fame on its result (see fame_after). Taking 25 counts as a roll here."""
    result, cost = fame_after(roll.result, roll.difficulty, fame_available, columns=columns)
    return replace(roll, result=result, successes=count(roll.difficulty, result), fame_after=roll.fame_after + cost)


def exact_chance(
    trait: int,
    difficulty: Level,
    table: ArtTable = DEFAULT_TABLE,
    *,
    fame_before: int = 0,
    henchman: bool = False,
) -> Fraction:
    """The exact chance that a rolled trait gets at least one success against `difficulty`."""
    row = effective_row(trait, fame_before=fame_before, henchman=henchman)
    odds = result_odds(row, table)
    return sum((chance for level, chance in odds.items() if count(difficulty, level) > 0), Fraction(0))
