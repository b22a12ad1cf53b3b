"""Combat: Defense and damage, fumbles, the Fumble table, dodging and parrying.

art-engine.md, ch. 5 "Foe Attacking Player", "Player Attacking Player", "Multiple Foes Attacking a
Player", "Fumbles", "Foe Fumbles", "Fumble Table", "Dodging", "Moving While Dodging", "Parrying";
ch. 3 "Taking Damage" (the Player Damage table). RULINGS.md, ART Engine rulings 4, 8, 9, 22, 23,
24, 25. The contract is ART-COMBAT.md, chapter 5.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.text import N_

from .damage import player_damage
from .levels import ArtRuleError, Level, count


def defense_damage(defense: Level, attack: Level, *, rating: int = 0) -> Level | None:
    """The damage an adventurer takes: the Defense roll's failures against `attack`, plus the damage
    rating, on the Player Damage table; None when the Defense roll succeeds (ch. 5, "Foe Attacking
    Player", "Player Attacking Player", "Multiple Foes Attacking a Player"; ruling 9).

    `attack` is a foe's Attack rating, another player's rolled Attack, or a group's Attack ratings
    added with add_difficulties().
    """
    if rating < 0:
        raise ArtRuleError("rating", N_("a damage rating is +0 or more, not {rating}"), rating=rating)
    outcome = count(attack, Level(defense))
    if outcome > 0:
        return None
    return player_damage(-outcome, rating)


def foe_fumbles(defense: Level) -> bool:
    """A foe fumbles when its target rolls an Awesome Defense (ch. 5, "Foe Fumbles"; ruling 22: even
    when an Extreme Attack still does damage)."""
    return Level(defense) >= Level.AW


def attack_fumble(result: Level, *, ranged: bool) -> str | None:
    """What an Attack roll sets off (ch. 5, "Fumbles"; ruling 23).

    "fumble": Catastrophic, any weapon: roll Agility on the Fumble table (a ranged weapon too, with no
    stray shot). "stray": Pathetic with a ranged weapon: the adventurers in the target's band roll
    Fate (lowest_fate) and the lowest rolls Defense against Poor (defense_damage(roll, Level.PR)).
    """
    result = Level(result)
    if result is Level.CT:
        return "fumble"
    if result is Level.PT and ranged:
        return "stray"
    return None


STRAY_SHOT_ATTACK = Level.PR  # ch. 5, "Fumbles": "The lowest roller must then roll Poor Defense"

# ch. 5, "Fumble Table", its rows read on the Agility column from CT to AW.
FUMBLE_EFFECTS: tuple[str, ...] = (
    "penalty_2",  # +2 difficulty on all rolls until the end of your next turn
    "penalty_1",  # +1 difficulty on all rolls until the end of your next turn
    "hit_friend",  # strike a fellow adventurer in your band (lowest Fate); none there: the PT row
    "free_attack",  # the target gets a free attack on you, if within range
    "drop_weapon",
    "fall_down",  # already prone: drop your weapon instead
    "no_attack",  # on your next turn
    "no_move",  # on your next turn
    "no_parry_dodge",  # on your next turn
    "recover",  # recover fully from the fumble
)


def fumble(result: Level, *, foe: bool = False, friend_in_band: bool = True, prone: bool = False) -> str:
    """The Fumble table's effect (ch. 5, "Fumble Table", "Foe Fumbles"; ruling 23).

    foe=False: `result` is the fumbler's Agility roll. foe=True: `result` is the Cunning roll of the
    player who caused a foe's fumble, read on the Cunning column (which runs AW..CT); for a foe,
    `friend_in_band` means a fellow foe in its band.
    """
    result = Level(result)
    if result is Level.EX:
        raise ArtRuleError("result", N_("the Fumble table has no Extreme row"))
    row = Level(int(Level.AW) - int(result)) if foe else result
    effect = FUMBLE_EFFECTS[row]
    if effect == "hit_friend" and not friend_in_band:
        return FUMBLE_EFFECTS[Level.PT]
    if effect == "fall_down" and prone:
        return "drop_weapon"
    return effect


DODGE_DIFFICULTY = Level.IN  # ch. 5, "Dodging": "Roll Inferior Agility"
DODGE_MOVE = Level.GT  # ch. 5, "Moving While Dodging": "Great or better"


@dataclass(frozen=True)
class Dodge:
    """A dodge until the start of your next turn: +`defense_bonus` on Defense rolls (rows), and
    `defense_difficulty` columns added to their difficulty; `fell` ends your turn; `may_move` to an
    adjacent band."""

    defense_bonus: int
    defense_difficulty: int
    fell: bool
    may_move: bool


def dodge(result: Level) -> Dodge:
    """An Inferior Agility roll to dodge (ch. 5, "Dodging", "Moving While Dodging"; ruling 24).

    Each success is +1 on Defense; Catastrophic falls down, ending the turn, with +1 difficulty on
    Defense; other failures do nothing.
    """
    result = Level(result)
    fell = result is Level.CT
    return Dodge(
        defense_bonus=max(count(DODGE_DIFFICULTY, result), 0),
        defense_difficulty=1 if fell else 0,
        fell=fell,
        may_move=result >= DODGE_MOVE,
    )


# ch. 5, "Parrying"; ruling 25: what each thing at hand can parry.
_MELEE = frozenset({"one_handed", "two_handed", "small_natural", "large_natural"})
PARRIES: dict[str, frozenset[str]] = {
    "one_handed": frozenset({"one_handed", "small_natural"}),
    "two_handed": _MELEE,
    "shield": _MELEE | {"ranged"},
    "ranged": frozenset(),
    "bare_hands": frozenset(),  # only through a perk, outside these rules
}
ATTACK_WEAPONS: frozenset[str] = _MELEE | {"ranged"}


def can_parry(
    parry_with: str, attack_with: str, *, surprised: bool = False, from_behind: bool = False, acted: bool = False
) -> bool:
    """Whether a parry is allowed at all (ch. 5, "Parrying"; ruling 25): never when attacked by
    surprise or from behind, or after taking your turn."""
    if parry_with not in PARRIES:
        raise ArtRuleError(
            "parry_with",
            N_("{parry_with!r} is not one of {parries}"),
            parry_with=parry_with,
            parries=", ".join(PARRIES),
        )
    if attack_with not in ATTACK_WEAPONS:
        raise ArtRuleError(
            "attack_with",
            N_("{attack_with!r} is not one of {attack_weapons}"),
            attack_with=attack_with,
            attack_weapons=", ".join(sorted(ATTACK_WEAPONS)),
        )
    if surprised or from_behind or acted:
        return False
    return attack_with in PARRIES[parry_with]


@dataclass(frozen=True)
class Parry:
    """A parry roll: `parried` takes no damage; `lost` is "knocked_away", "shattered" or None."""

    parried: bool
    lost: str | None


def parry(result: Level, damage: Level) -> Parry:
    """Dexterity against the attack's damage (ch. 5, "Parrying"; ruling 25: Extreme damage cannot be
    parried, ruling 4). Pathetic knocks the weapon or shield away; Catastrophic shatters it."""
    result = Level(result)
    lost = {Level.PT: "knocked_away", Level.CT: "shattered"}.get(result)
    return Parry(parried=count(damage, result) > 0, lost=lost)
