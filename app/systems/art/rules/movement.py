"""Movement in combat rounds: encounter range, the movement roll, escaping foes, rough terrain,
sneaking, foe movement and stopping it.

art-engine.md, ch. 5 "Range Track", "Encounter Range", "Movement Rates", "Movement Roll", "Rough
Terrain", "Sneaking", "Foe Movement", "Stopping Foe Movement", "Escaping Foes", "Chases"; ch. 3
"Adding Difficulties", "Compounding Tasks". RULINGS.md, ART Engine rulings 4, 8, 17, 18, 19, 20,
21. The contract is ART-COMBAT.md, chapter 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.text import N_

from .levels import ArtRuleError, Level, compound_results, count


@dataclass(frozen=True)
class Movement:
    """What an Agility roll lets you move: `bands` using your action, or `free_bands` as a free
    action, keeping your action."""

    bands: int
    free_bands: int


# ch. 5, "Movement Roll" table: (bands, free bands) for each Agility result.
MOVEMENT_ROLL: dict[Level, Movement] = {
    Level.CT: Movement(0, 0),  # stumble
    Level.PT: Movement(1, 0),
    Level.FB: Movement(1, 0),
    Level.IN: Movement(1, 0),
    Level.PR: Movement(1, 1),
    Level.PS: Movement(2, 1),
    Level.GD: Movement(3, 1),
    Level.GT: Movement(4, 1),
    Level.SP: Movement(4, 2),
    Level.AW: Movement(5, 2),
}


def encounter_range(highest_initiative: Level) -> int:
    """Bands between the adventurers and the foes at the start: one per column over Catastrophic
    (ch. 5, "Encounter Range"; ruling 17: Catastrophic is the same band). A foe's Extreme counts
    one column above Awesome (ruling 5): 10."""
    return int(Level(highest_initiative))


def movement(result: Level) -> Movement:
    """The Movement Roll table (ch. 5; ruling 18: Extreme, a foe's rating only, reads Awesome)."""
    return MOVEMENT_ROLL[min(Level(result), Level.AW)]


def foe_movement(agility: Level) -> int:
    """Bands a foe moves in a round: its Agility read on the movement table (ch. 5, "Foe Movement";
    ruling 18)."""
    return movement(agility).bands


def escape_cost(foes: int, friends: int) -> int:
    """The movement it costs to leave a band: 2 when its foes outnumber the friendly characters in it
    (not counting the mover), otherwise 1 (ch. 5, "Escaping Foes"; ruling 19)."""
    if foes < 0 or friends < 0:
        raise ArtRuleError(
            "foes" if foes < 0 else "friends", N_("a band holds 0 or more, not {foes}"), foes=min(foes, friends)
        )
    return 2 if foes > friends else 1


@dataclass(frozen=True)
class Band:
    """A band of the range track along a route: its foes, its friendly characters (not counting the
    mover), and whether it holds rough terrain."""

    foes: int = 0
    friends: int = 0
    rough: bool = False

    def __post_init__(self) -> None:
        escape_cost(self.foes, self.friends)  # refuses negative counts


def bands_moved(allowance: int, route: Sequence[Band]) -> int:
    """How many bands along `route` the mover gets (ch. 5, "Movement Rates", "Rough Terrain",
    "Escaping Foes"; ruling 19).

    route[0] is the mover's band. Leaving a band costs its escape_cost, in one go or not at all;
    entering rough terrain ends the movement.
    """
    if not route:
        raise ArtRuleError("route", N_("a route starts with the mover's own band"))
    if allowance < 0:
        raise ArtRuleError("allowance", N_("movement cannot be negative ({allowance})"), allowance=allowance)
    left = allowance
    moved = 0
    for here, there in zip(route, route[1:]):
        cost = escape_cost(here.foes, here.friends)
        if cost > left:
            break
        left -= cost
        moved += 1
        if there.rough:
            break
    return moved


@dataclass(frozen=True)
class Sneak:
    """A sneaking roll: `spotted` on a failure; an Awesome success moves as a free action."""

    spotted: bool
    free_action: bool


def sneak(result: Level, difficulty: Level) -> Sneak:
    """Sneak to an adjacent band (ch. 5, "Sneaking"; ruling 20).

    `difficulty` is the foes' Alertness added (ch. 3, "Adding Difficulties": add_difficulties()).
    An Awesome roll is a free action only if it succeeds: against Extreme it still fails (ruling 4).
    """
    result = Level(result)
    succeeded = count(difficulty, result) > 0
    return Sneak(spotted=not succeeded, free_action=succeeded and result >= Level.AW)


def stop_foe(results: Sequence[Level], foe_agility: Level) -> bool:
    """Keep a foe from leaving the band: Agility against its Agility (ch. 5, "Stopping Foe Movement").

    Several adventurers make a compound action (ch. 3, "Compounding Tasks"; ruling 21): a
    Catastrophic roll among them ends it in disaster, else their results are compounded (capped at
    Awesome, ruling 8) and compared with the foe's Agility.
    """
    rolls = [Level(level) for level in results]
    if not rolls:
        raise ArtRuleError("results", N_("someone must roll to stop the foe"))
    if len(rolls) > 1 and Level.CT in rolls:
        return False
    total = rolls[0] if len(rolls) == 1 else compound_results(rolls)
    return count(foe_agility, total) > 0
