"""Combat options and grappling: maneuver difficulties, knock down, disarm, grapple, protecting,
playing dead, and the suggested combat modifiers.

art-engine.md, ch. 5 "Combat Options", "Force Back", "Knock Down", "Protecting", "Playing Dead",
"Aimed Attack", "Disarm", "Combat Modifiers", "Grappling", "Takedown", "Fighting in a Grapple",
"Pinning a Foe", "Taking a Weapon". RULINGS.md, ART Engine rulings 4, 33. The contract is
ART-COMBAT.md, chapter 5.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.text import N_

from .levels import ArtRuleError, Level, count

# The opponent's levels each maneuver reads, and the options it takes (ch. 5, "Combat Options",
# "Grappling"). "alertness" is needed by a grapple only with surprise.
MANEUVERS: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "force_back": (("strength", "agility"), frozenset()),
    "knock_down": (("strength", "agility"), frozenset()),
    "pin": (("strength", "agility"), frozenset()),
    "takedown": (("strength", "agility"), frozenset()),
    "take_weapon": (("strength",), frozenset()),
    "disarm": (("strength", "dexterity"), frozenset({"one_vs_two_handed", "ranged"})),
    "grapple": (("strength", "agility"), frozenset({"surprise", "both_hands", "silent"})),
}
DISARM_ONE_VS_TWO_HANDED = 2  # ch. 5, "Disarm": +2; ruling 33: columns, capped at Extreme
DISARM_RANGED = 5  # ch. 5, "Disarm": +5

# ch. 5, "Combat Modifiers" (suggested): the Attack modifier and its condition.
COMBAT_MODIFIERS: tuple[tuple[int, str], ...] = (
    (+4, "Attack a prone opponent with a melee weapon"),
    (-2, "Shooting a prone opponent with a ranged weapon"),
    (-2, "Attacking from a prone position (except rifles)"),
    (+2, "Firing a rifle from a prone position"),
    (-10, "Attacking an opponent you cannot see"),
    (+4, "Taking a complete turn to aim"),
    (+2, "Firing a handgun two handed, but suffer -1 on Defense rolls until your next turn"),
    (-4, "Defending in a grapple"),
)
AIMED_ATTACK = 4  # ch. 5, "Aimed Attack": +4 to attack on your next round
GRAPPLE_ATTACK = 4  # ch. 5, "Fighting in a Grapple": +4 on all Attack rolls against foes
GRAPPLE_DEFENSE = -4  # ... and -4 on all Defense rolls


def _checked_maneuver(maneuver: str, levels: dict[str, Level | None], options: dict[str, bool]) -> None:
    if maneuver not in MANEUVERS:
        raise ArtRuleError(
            "maneuver", N_("{maneuver!r} is not one of {maneuvers}"), maneuver=maneuver, maneuvers=", ".join(MANEUVERS)
        )
    needed, allowed = MANEUVERS[maneuver]
    if maneuver == "grapple" and options["surprise"]:
        needed = (*needed, "alertness")
    for name in needed:
        if levels[name] is None:
            raise ArtRuleError(name, N_("{maneuver} needs the opponent's {name}"), maneuver=maneuver, name=name)
    for name, chosen in options.items():
        if chosen and name not in allowed:
            raise ArtRuleError(name, N_("{name} is not an option of {maneuver}"), name=name, maneuver=maneuver)


def _clamped(level: Level, columns: int) -> Level:
    return Level(min(max(int(level) + columns, Level.CT), Level.EX))


def maneuver_difficulty(
    maneuver: str,
    *,
    strength: Level,
    agility: Level | None = None,
    dexterity: Level | None = None,
    alertness: Level | None = None,
    surprise: bool = False,
    both_hands: bool = False,
    silent: bool = False,
    one_vs_two_handed: bool = False,
    ranged: bool = False,
) -> Level:
    """The difficulty of a combat maneuver, from the opponent's levels (ch. 5, "Force Back", "Knock
    Down", "Disarm", "Grappling", "Takedown", "Pinning a Foe", "Taking a Weapon"; ruling 33).

    The columns an option adds are summed first, then the level is kept within Catastrophic..Extreme.
    """
    levels = {"strength": strength, "agility": agility, "dexterity": dexterity, "alertness": alertness}
    options = {
        "surprise": surprise,
        "both_hands": both_hands,
        "silent": silent,
        "one_vs_two_handed": one_vs_two_handed,
        "ranged": ranged,
    }
    _checked_maneuver(maneuver, levels, options)
    known = {name: Level(level) for name, level in levels.items() if level is not None}
    if maneuver == "take_weapon":
        return known["strength"]
    if maneuver == "takedown":
        return min(known["strength"], known["agility"])
    if maneuver == "disarm":
        columns = DISARM_ONE_VS_TWO_HANDED * one_vs_two_handed + DISARM_RANGED * ranged
        return _clamped(max(known["dexterity"], known["strength"]), columns)
    if maneuver == "grapple":
        if surprise:
            base = min(known["strength"], known["agility"], known["alertness"])
        else:
            base = max(known["strength"], known["agility"])
        return _clamped(base, int(silent) - int(both_hands))
    return max(known["strength"], known["agility"])  # force_back, knock_down, pin


def knock_down(result: Level, difficulty: Level, *, agility: int) -> str:
    """A Strength roll to knock a foe down (ch. 5, "Knock Down"; ruling 33): "foe_down" on a success;
    "you_down" when the failures reach your Agility (the attribute number); otherwise "none"."""
    if agility < 1:
        raise ArtRuleError("agility", N_("Agility is an attribute of 1 or more, not {agility}"), agility=agility)
    outcome = count(difficulty, Level(result))
    if outcome > 0:
        return "foe_down"
    return "you_down" if -outcome >= agility else "none"


@dataclass(frozen=True)
class Disarm:
    """A disarm attempt: their weapon lands five feet away; or, on a fumble, yours does."""

    disarmed: bool
    own_weapon_away: bool


def disarm(result: Level, difficulty: Level, *, ranged: bool = False) -> Disarm:
    """An Attack roll to disarm (ch. 5, "Disarm"): success knocks the opponent's weapon five feet
    away; a Catastrophic roll with a melee weapon knocks your own weapon away."""
    result = Level(result)
    return Disarm(disarmed=count(difficulty, result) > 0, own_weapon_away=result is Level.CT and not ranged)


@dataclass(frozen=True)
class Grapple:
    """A grapple attempt: `held` with `bonus` on every action in the grapple; on a failure,
    `defense_modifier` on your Defense against the foe's free attack."""

    held: bool
    bonus: int
    defense_modifier: int


def grapple(result: Level, difficulty: Level) -> Grapple:
    """An Agility roll to grapple (ch. 5, "Grappling"): the successes are a bonus on all actions in
    the grapple; each failure is -1 on your Defense against the foe's free attack."""
    outcome = count(difficulty, Level(result))
    if outcome > 0:
        return Grapple(held=True, bonus=outcome, defense_modifier=0)
    return Grapple(held=False, bonus=0, defense_modifier=outcome)


PROTECT_AT = Level.PS  # ch. 5, "Protecting": "If you roll Passable or better"


def protect(result: Level) -> bool:
    """An Agility roll to jump in front of a companion (ch. 5, "Protecting")."""
    return Level(result) >= PROTECT_AT


def sees_through(result: Level, foe_intelligence: Level, foe_alertness: Level) -> bool:
    """Whether a foe sees through your playing dead: its Intelligence or Alertness is greater than
    your Cunning roll (ch. 5, "Playing Dead")."""
    return max(Level(foe_intelligence), Level(foe_alertness)) > Level(result)
