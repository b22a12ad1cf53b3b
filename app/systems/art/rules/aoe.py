"""Area of effect: the difficulty, the AOE Attack table (both columns), who is hit and how hard.

art-engine.md, ch. 5 "Area of Effect", "AOE Attack", "Foe AOE Attacks", "Fumbles" (stray shots),
"Fighting in a Grapple" (attacks into a grapple), "Fumble Table" (striking a friend). RULINGS.md,
ART Engine rulings 4, 23, 26, 27, 28. The contract is ART-COMBAT.md, chapter 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.text import N_

from ._inputs import unique_names
from .levels import ArtRuleError, Level, count

AOE_MAX_RANGE_DIFFICULTY = Level.GD  # "The difficulty at the maximum range of your weapon is Good"
MIRROR = int(Level.AW)  # ruling 27: an Attack result A reads as the Fate result 9 - A


@dataclass(frozen=True)
class AoeHit:
    """Where an AOE attack lands. `band`: bands from the attacker (0 = its own band), None when
    nothing is hit; `extra_damage` and `extra_targets` come from the AW/SP rows (CT/PT on Fate)."""

    difficulty: Level
    band: int | None
    extra_damage: int
    extra_targets: int
    out_of_ammo: bool


def aoe_difficulty(max_range: int, distance: int) -> Level:
    """Good at the weapon's maximum range, one column lower per band under it, never below
    Catastrophic (ch. 5, "Area of Effect"; ruling 26)."""
    if distance < 0 or distance > max_range:
        raise ArtRuleError(
            "distance",
            N_("the target band must be 0 to {max_range} bands away, not {distance}"),
            max_range=max_range,
            distance=distance,
        )
    return Level(max(int(AOE_MAX_RANGE_DIFFICULTY) - (max_range - distance), Level.CT))


def _scatter(failures: int) -> int:
    """The AOE Attack table's scatter rows: 1f one band over, 2f one under, 3f two over ... 6f three
    under. Over (+) is away from the attacker, under (-) towards it."""
    bands = (failures + 1) // 2
    return bands if failures % 2 else -bands


def _attack_column(result: Level, difficulty: Level, distance: int, autofire: bool) -> AoeHit:
    if autofire and result is Level.CT:
        return AoeHit(difficulty, None, 0, 0, out_of_ammo=True)
    if result is Level.AW:
        return AoeHit(difficulty, distance, 1, 1, out_of_ammo=False)
    if result is Level.SP:
        return AoeHit(difficulty, distance, 1, 0, out_of_ammo=False)
    outcome = count(difficulty, result)
    if outcome > 0:
        return AoeHit(difficulty, distance, 0, 0, out_of_ammo=False)
    # a shot short by the distance or more lands in the attacker's own band, never behind it
    return AoeHit(difficulty, max(0, distance + _scatter(-outcome)), 0, 0, out_of_ammo=False)


def aoe_attack(result: Level, *, max_range: int, distance: int, foe: bool = False, autofire: bool = False) -> AoeHit:
    """Read the AOE Attack table (ch. 5, "Area of Effect", "AOE Attack", "Foe AOE Attacks"; rulings
    26, 27).

    foe=False: `result` is the attack (or Dexterity) roll against aoe_difficulty(). foe=True: `result`
    is the targeted player's Fate roll, the foe's weapon range and distance counted from the foe; its
    difficulty is the mirror, 10 columns minus aoe_difficulty() (Poor at maximum range, Extreme from
    6 bands under), and the Fate result F reads as the Attack result 9 - F.
    """
    result = min(Level(result), Level.AW)  # Extreme (a rating, never rolled) reads the Awesome row
    difficulty = aoe_difficulty(max_range, distance)
    if not foe:
        return _attack_column(result, difficulty, distance, autofire)
    hit = _attack_column(Level(MIRROR - result), difficulty, distance, autofire)
    return AoeHit(
        difficulty=Level(MIRROR + 1 - difficulty),
        band=hit.band,
        extra_damage=hit.extra_damage,
        extra_targets=hit.extra_targets,
        out_of_ammo=hit.out_of_ammo,
    )


def lowest_fate(fates: Sequence[tuple[str, Level]], count: int = 1) -> tuple[str, ...]:
    """Who is hit when the targets roll Fate: the `count` lowest results, lowest first; ties keep
    the given order, which the caller sets to the attacker's choice (ch. 5, "Area of Effect",
    "Fighting in a Grapple", "Fumbles", "Fumble Table"; ruling 23). Fewer characters: all of them."""
    unique_names("fates", [name for name, _ in fates])
    if count < 0:
        raise ArtRuleError("count", N_("an attack hits 0 or more characters, not {count}"), count=count)
    ranked = sorted(fates, key=lambda entry: Level(entry[1]))  # stable: ties keep order
    return tuple(name for name, _ in ranked[:count])


def aoe_damage(damage: Level, *, extra: int = 0, prone: bool = False) -> Level:
    """The AOE damage one character takes: the weapon's AOE damage, `extra` columns more
    (AoeHit.extra_damage), one column less for a character who fell prone (ch. 5, "Area of Effect";
    ruling 28: Passable -> Poor). The net shift is applied, then kept within CT..EX."""
    shifted = int(Level(damage)) + extra - int(prone)
    return Level(min(max(shifted, Level.CT), Level.EX))
