"""Fortune, treasures and gear: armor, shields, weapons, throwing.

art-engine.md, ch. 2 "Fortune", "Equipping Others", "Treasures", "Armor & Defense", "Shields",
"Weapons & Attack", "Melee Weapon Features" (Thrown Range).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.text import N_

from .levels import ArtRuleError, Level

# ch. 2, "Fortune": the ranks, poorest first. Rich and Filthy Rich cannot be a starting Fortune.
FORTUNE_RANKS: tuple[str, ...] = (
    N_("Destitute"),
    N_("Impoverished"),
    N_("Poor"),
    N_("Struggling"),
    N_("Getting By"),
    N_("Middle Class"),
    N_("Comfortable"),
    N_("Well-off"),
    N_("Prosperous"),
    N_("Affluent"),
    N_("Wealthy"),
    N_("Rich"),
    N_("Filthy Rich"),
)

# ch. 2, "Armor" (cost: Defense modifier to Agility, STR required). Rank i of FORTUNE_RANKS.
ARMOR: tuple[tuple[int, int], ...] = (
    (-6, 0), (-5, 0), (-4, 0), (-3, 0), (-2, 2), (-1, 3), (0, 4),
    (1, 5), (2, 6), (3, 7), (4, 8), (5, 9), (6, 10),
)  # fmt: skip

# ch. 2, "Shields" (cost: Defense bonus, Speed)
SHIELDS: tuple[tuple[int, int], ...] = (
    (1, 0), (1, 5), (1, 10), (1, 15), (2, 0), (2, 5), (2, 10),
    (2, 15), (3, 0), (3, 5), (3, 10), (4, 0), (4, 5),
)  # fmt: skip

# ch. 2, "Shield Uses" (highest DEX + STR + Speed: uses per round)
SHIELD_USES: tuple[tuple[int, int], ...] = ((15, 0), (20, 1), (25, 2), (30, 3), (35, 4))


@dataclass(frozen=True)
class WeaponRow:
    """One cost rank of ch. 2's Weapon Attack table. Modifiers apply to the attribute in the name."""

    melee_1h_dex: int
    melee_2h_str: int
    ranged_1h_ale: int
    range_1h: int
    ranged_2h_ale: int
    ranged_2h_str_required: int
    range_2h: int
    shotgun_range: int
    aoe_damage: Level
    aoe_targets: int


_W = WeaponRow
# ch. 2, "Weapon Attack" (one row per Fortune rank, Destitute first; "-" STR required is 0)
WEAPON_ATTACK: tuple[WeaponRow, ...] = (
    _W(-6, -4, -6, 1, -5, 0, 3, 1, Level.IN, 3),
    _W(-5, -3, -5, 1, -4, 0, 3, 1, Level.IN, 4),
    _W(-4, -2, -4, 1, -3, 0, 4, 1, Level.IN, 5),
    _W(-3, -1, -3, 2, -2, 0, 4, 1, Level.PR, 3),
    _W(-2, 0, -2, 2, -1, 2, 5, 1, Level.PR, 4),
    _W(-1, 1, -1, 2, 0, 3, 5, 2, Level.PR, 5),
    _W(0, 2, 0, 3, 1, 4, 6, 2, Level.PS, 3),
    _W(1, 3, 1, 3, 2, 5, 6, 2, Level.PS, 5),
    _W(2, 4, 2, 3, 3, 6, 7, 2, Level.GD, 3),
    _W(3, 5, 3, 4, 4, 7, 7, 2, Level.GD, 5),
    _W(4, 6, 4, 4, 5, 8, 8, 3, Level.GT, 3),
    _W(5, 7, 5, 4, 6, 9, 9, 3, Level.GT, 5),
    _W(6, 8, 6, 4, 7, 10, 10, 3, Level.SP, 5),
)
del _W

# ch. 2, "Thrown Range" (lowest Strength: thrown range, grenade range), in bands
THROWN_RANGE: tuple[tuple[int, int, int], ...] = ((2, 0, 1), (4, 1, 2), (9, 2, 3), (12, 3, 4))

STARTING_FORTUNE_OFFSET = 2  # ch. 2, "Fortune": Fate 2 starts Destitute, each point one rank up


def fortune_rank(fortune: str) -> int:
    """The position of a Fortune on the ladder, Destitute = 0 (ch. 2, "Fortune")."""
    for rank, name in enumerate(FORTUNE_RANKS):
        if name.lower() == fortune.strip().lower():
            return rank
    raise ArtRuleError(
        "fortune",
        N_("{fortune!r} is not a Fortune rank ({fortune_ranks})"),
        fortune=fortune,
        fortune_ranks=", ".join(FORTUNE_RANKS),
    )


def starting_fortune(fate: int) -> str:
    """Fortune at creation from Fate 2..12 (ch. 2, "Fortune" table)."""
    if not 2 <= fate <= 12:
        raise ArtRuleError("fate", N_("starting Fortune comes from a Fate of 2 to 12, not {fate}"), fate=fate)
    return FORTUNE_RANKS[fate - STARTING_FORTUNE_OFFSET]


def equipping_fortune(fortune: str, others: int) -> str:
    """The Fortune you buy gear at when also equipping `others` characters: one rank lower per
    character (ch. 2, "Equipping Others"). Destitute is the floor."""
    if others < 0:
        raise ArtRuleError("others", N_("cannot equip {others} other characters"), others=others)
    return FORTUNE_RANKS[max(0, fortune_rank(fortune) - others)]


def fortune_after_adventure(fortune: str, treasures: Sequence[str]) -> str:
    """Fortune at the end of an adventure from the treasures kept (ch. 2, "Treasures").

    Any treasure above your Fortune: up one rank (never more). One at your rank, two no more than one
    rank below, or four no more than two ranks below: unchanged. Otherwise: down one rank.
    """
    rank = fortune_rank(fortune)
    values = [fortune_rank(treasure) for treasure in treasures]
    if any(value > rank for value in values):
        return FORTUNE_RANKS[min(rank + 1, len(FORTUNE_RANKS) - 1)]
    within = [sum(1 for value in values if value >= rank - below) for below in range(3)]
    if within[0] >= 1 or within[1] >= 2 or within[2] >= 4:
        return fortune
    return FORTUNE_RANKS[max(rank - 1, 0)]


def defense(agility: int, armor: str = "Destitute", *, strength: int | None = None) -> int:
    """Defense = Agility adjusted by the armor's cost, never below 1 (ch. 2, "Armor & Defense").

    No armor counts as destitute armor. With `strength` given, armor you are not strong enough to
    wear is refused.
    """
    modifier, required = ARMOR[fortune_rank(armor)]
    if strength is not None and strength < required:
        raise ArtRuleError(
            "armor",
            N_("{armor} armor requires Strength {required}; you have {strength}"),
            armor=armor,
            required=required,
            strength=strength,
        )
    return max(1, agility + modifier)


def shield_uses(dexterity: int, strength: int, speed: int) -> int:
    """Shield uses per round from DEX + STR + the shield's Speed (ch. 2, "Shield Uses").

    The table stops at 35; beyond it we continue its pattern of one more use per 5 points.
    """
    total = dexterity + strength + speed
    for highest, uses in SHIELD_USES:
        if total <= highest:
            return uses
    top, uses = SHIELD_USES[-1]
    return uses + (total - top + 4) // 5


def weapon_attack(attribute: int, modifier: int, *, bonus: int = 0) -> int:
    """Attack = the attribute the weapon uses + its cost modifier (+ bonuses), never below 1
    (ch. 2, "Weapons & Attack")."""
    return max(1, attribute + modifier + bonus)


def thrown_range(strength: int) -> tuple[int, int]:
    """(thrown weapon range, grenade range) in bands for a Strength (ch. 2, "Thrown Range").
    Strength above 12 throws as 12; below 2 as 2."""
    found = THROWN_RANGE[0]
    for row in THROWN_RANGE:
        if strength >= row[0]:
            found = row
    return found[1], found[2]


# ch. 2, "Weapon Class" (class: type). The class decides the hands and melee or ranged; its examples are the
# text's own ("Sword, knife", "Hatchet, fire axe", ...). A shotgun is read from the Shotgun column.
WEAPON_CLASSES: dict[str, str] = {
    N_("Blade"): "melee_1h",
    N_("Greatsword"): "melee_2h",
    N_("Axe"): "melee_1h",
    N_("Great Axe"): "melee_2h",
    N_("Club"): "melee_1h",
    N_("Staff"): "melee_2h",
    N_("Javelin"): "melee_1h",
    N_("Spear"): "melee_2h",
    N_("Hammer"): "melee_1h",
    N_("Great Hammer"): "melee_2h",
    N_("Whip"): "melee_1h",
    N_("Flail"): "melee_1h",
    N_("Pick"): "melee_2h",
    N_("Sling"): "ranged_1h",
    N_("Bow"): "ranged_2h",
    N_("Crossbow"): "ranged_2h",
    N_("Handgun"): "ranged_1h",
    N_("Rifle"): "ranged_2h",
    N_("Shotgun"): "shotgun",
    N_("Machine Pistol"): "ranged_1h",
    N_("Machine gun"): "ranged_2h",
}


def starting_weapon_cost(weapon_class: str, fortune: str, strength: int) -> str:
    """The Fortune cost of a starting weapon of this class: the best the text allows, your Fortune ("you can
    equip any gear that has a cost up to your character's Fortune", ch. 2 "Fortune"), lowered for a two-handed
    ranged weapon to the best rank whose "2h Ranged STR Req." your Strength meets ("You cannot use a weapon if
    you do not have the required Strength"; Destitute to Struggling require none)."""
    if weapon_class not in WEAPON_CLASSES:
        raise ArtRuleError("weapon_class", N_("{weapon_class!r} is not a weapon class"), weapon_class=weapon_class)
    rank = fortune_rank(fortune)
    if WEAPON_CLASSES[weapon_class] in ("ranged_2h", "shotgun"):
        while rank > 0 and WEAPON_ATTACK[rank].ranged_2h_str_required > strength:
            rank -= 1
    return FORTUNE_RANKS[rank]


def starting_armor(fortune: str, strength: int) -> str | None:
    """The best armor a new adventurer may wear: cost up to their Fortune and STR Required up to their Strength
    (ch. 2, "Armor"). None when that is Destitute armor, which is the same as wearing none."""
    rank = fortune_rank(fortune)
    while rank > 0 and ARMOR[rank][1] > strength:
        rank -= 1
    return FORTUNE_RANKS[rank] if rank > 0 else None
