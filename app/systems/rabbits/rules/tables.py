"""Every table of the Rabbits sheet (rabbits.da.txt / rabbits.en.md) as data, plus the parent-game facts and
rulings (RULINGS.md, "Rabbits") the code relies on. Each block names the section it comes from.

Keys are lower-case identifiers (actions, conditions, abilities, conflicts); display names are the values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from app.rules.text import N_

# --- RULINGS.md, "Rabbits", facts from the parent game -------------------------------------------------
SUCCESS_FACES = frozenset({4, 5, 6})
FATE_FACE = 6
ABILITIES = ("nature", "will", "health", "resources", "circles")
ROLLABLE = ("skill",) + ABILITIES
# Highest ratings the texts name; other ratings have no stated ceiling.
SKILL_MAX = 6
NATURE_MAX = 7
PERSONA_DICE_MAX = 3
TAP_NATURE_PERSONA = 1
# Tapping Nature is never allowed for these (the sheet says Circles; RULINGS adds Resources).
NO_NATURE_TAP = frozenset({"resources", "circles"})
BEGINNERS_LUCK_ABILITIES = ("will", "health")
# Parent game (Mouse Guard) learning rule, not in the sheet or RULINGS: a skill is learned after as many
# beginner's-luck tests (passed or failed) as the rabbit's Nature rating, and opens at rating 2.
NEW_SKILL_RATING = 2

# Parent game (Mouse Guard): the skill list the sheet's conflict tables draw on (Persuader, Orator, Scout, …).
SKILLS = (
    N_("Administrator"),
    N_("Apiarist"),
    N_("Archivist"),
    N_("Armorer"),
    N_("Baker"),
    N_("Boatcrafter"),
    N_("Brewer"),
    N_("Carpenter"),
    N_("Cartographer"),
    N_("Cook"),
    N_("Deceiver"),
    N_("Fighter"),
    N_("Glazier"),
    N_("Haggler"),
    N_("Harvester"),
    N_("Healer"),
    N_("Hunter"),
    N_("Insectrist"),
    N_("Instructor"),
    N_("Laborer"),
    N_("Loremouse"),
    N_("Militarist"),
    N_("Miller"),
    N_("Orator"),
    N_("Pathfinder"),
    N_("Persuader"),
    N_("Potter"),
    N_("Scientist"),
    N_("Scout"),
    N_("Smith"),
    N_("Stonemason"),
    N_("Survivalist"),
    N_("Weather Watcher"),
    N_("Weaver"),
)

# --- rabbits.en.md, "Nature" -----------------------------------------------------------------------------
NATURE_DESCRIPTORS = (N_("flee"), N_("hide"), N_("dig"), N_("breed"))
# The sheet's closing rule of "Nature": (within nature, passed) -> Nature lost. "margin" = margin of failure.
MARGIN = "margin"
NATURE_TAX: Mapping[tuple[bool, bool], int | str] = MappingProxyType(
    {
        (True, True): 0,
        (True, False): MARGIN,
        (False, True): 1,
        (False, False): MARGIN,
    }
)


# --- rabbits.en.md, "Conditions" (+ RULINGS ruling 3 for Afraid) -------------------------------------------
@dataclass(frozen=True)
class ConditionRule:
    """One row of the conditions table. recovery_ability/recovery_ob are None when no test removes it."""

    name: str
    danish: str
    recovery_ability: str | None
    recovery_ob: int | None
    recovery_note: str
    disposition: int
    disposition_will_only: bool
    dice: int
    blocks_help_and_beginners_luck: bool


CONDITIONS: Mapping[str, ConditionRule] = MappingProxyType(
    {
        "afraid": ConditionRule(N_("Afraid"), "Bange", None, None, N_("needs rest and safety"), -1, False, 0, True),
        "angry": ConditionRule(N_("Angry"), "Vred", "will", 2, N_("Ob 2 Will"), -1, True, 0, False),
        "tired": ConditionRule(N_("Tired"), "Træt", "health", 3, N_("Ob 3 Health"), -1, False, 0, False),
        "injured": ConditionRule(N_("Injured"), "Såret", "health", 4, N_("Ob 4 Health"), 0, False, -1, False),
        "sick": ConditionRule(N_("Sick"), "Syg", "will", 4, N_("Ob 4 Will"), 0, False, -1, False),
    }
)

# --- rabbits.en.md, "Rewards" (+ ruling 1: the starting amounts are a campaign setting) --------------------
REWARDS: Mapping[str, str] = MappingProxyType(
    {
        "fate": "Reroll all 6s in a roll after it was rolled.",
        "persona": "+1D to a test, or tap your nature.",
    }
)
STARTING_REWARDS: Mapping[str, int] = MappingProxyType({"fate": 2, "persona": 1})

# --- rabbits.en.md, "Checks" ------------------------------------------------------------------------------
CHECKS_EARNED: Mapping[str, int] = MappingProxyType(
    {
        "trait_against_you": 1,  # take -1D on a test
        "trait_aids_opponent": 2,  # a fitting trait gives the opponent +2D in a versus test
        "concede_tie": 2,  # let the opponent win a tied versus test
    }
)
CHECKS_SPENT: Mapping[str, int] = MappingProxyType(
    {
        "extra_test": 1,  # a test in the players' turn (the main use)
        "recovery_in_gm_turn": 2,
        "trait_again": 2,  # +1D from a trait once more
    }
)


# --- rabbits.en.md, "Traits" and "Checks": what each way of using a trait does to a roll -------------------
@dataclass(frozen=True)
class TraitUse:
    label: str
    own_dice: int
    opponent_dice: int
    checks_earned: int
    checks_spent: int
    versus_only: bool


TRAIT_USES: Mapping[str, TraitUse] = MappingProxyType(
    {
        "helps": TraitUse(N_("Trait helps (once per session)"), 1, 0, 0, 0, False),
        "helps_again": TraitUse(N_("Trait helps again (2 checks)"), 1, 0, 0, CHECKS_SPENT["trait_again"], False),
        "against_you": TraitUse(
            N_("Trait against you (earns 1 check)"), -1, 0, CHECKS_EARNED["trait_against_you"], 0, False
        ),
        "aids_opponent": TraitUse(
            N_("Trait gives the opponent +2D (earns 2 checks)"), 0, 2, CHECKS_EARNED["trait_aids_opponent"], 0, True
        ),
    }
)

# --- RULINGS.md, "Rabbits": ties in versus tests, in this order ----------------------------------------------
TIE_STEPS = (
    "A player may give the tie away with a trait (earns 2 checks).",
    "Either side may spend Fate, if not yet used on that roll.",
    "A tiebreaker roll: a skill tie rolls Will or Health; a Will or Health tie rolls Nature.",
)
TIEBREAK: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "skill": ("will", "health"),
        # Not named by the texts: Resources and Circles are rolled for a task like a skill.
        "resources": ("will", "health"),
        "circles": ("will", "health"),
        "will": ("nature",),
        "health": ("nature",),
        # No tiebreaker after Nature is named: the narrator rules.
        "nature": (),
    }
)

# --- rabbits.en.md, "Conflicts": action interactions (row = one side, column = the other) -------------------
ACTIONS = ("attack", "defend", "feint", "maneuver")
INTERACTIONS: Mapping[tuple[str, str], str] = MappingProxyType(
    {
        ("attack", "attack"): "I",
        ("attack", "defend"): "V",
        ("attack", "feint"): "*",
        ("attack", "maneuver"): "V",
        ("defend", "attack"): "V",
        ("defend", "defend"): "I",
        ("defend", "feint"): "*",
        ("defend", "maneuver"): "V",
        ("feint", "attack"): "*",
        ("feint", "defend"): "*",
        ("feint", "feint"): "V",
        ("feint", "maneuver"): "I",
        ("maneuver", "attack"): "V",
        ("maneuver", "defend"): "V",
        ("maneuver", "feint"): "I",
        ("maneuver", "maneuver"): "I",
    }
)

# --- rabbits.en.md, "Conflicts", Actions: the independent obstacle of each action ----------------------------
ACTION_OBSTACLES: Mapping[str, int] = MappingProxyType({"attack": 0, "defend": 3, "feint": 0, "maneuver": 0})

# --- rabbits.en.md, "Conflicts", Maneuver: margin of success each effect costs --------------------------------
MANEUVER_EFFECTS: Mapping[str, int] = MappingProxyType({"impede": 1, "gain_position": 2, "disarm": 3})
MANEUVER_EFFECT_DICE: Mapping[str, int] = MappingProxyType({"impede": -1, "gain_position": 2})

# --- rabbits.en.md, "Conflicts", Starting disposition: conflict -> (test skills, abilities added to base) ----
CONFLICTS = ("argument", "speech", "negotiation", "fight", "fight_animal", "chase", "war", "journey", "other")
# "other": the test skill is the conflict's attack skill and the base is the GM's call, so both are open.
DISPOSITION_TABLE: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        "argument": (("Persuader",), ("will",)),
        "speech": (("Orator",), ("will",)),
        "negotiation": (("Haggler",), ("will",)),
        "fight": (("Fighter",), ("health", "nature")),
        "fight_animal": (("Fighter", "Hunter"), ("health", "nature")),
        "chase": (("Scout",), ("nature",)),
        "war": (("Militarist",), ("will",)),
        "journey": (("Pathfinder",), ("health",)),
        "other": ((), ()),
    }
)

# --- rabbits.en.md, "Conflicts", Skills by conflict and action ----------------------------------------------
# An empty tuple is the sheet's "see description": the narrator names the skill.
_CONFLICT_SKILLS: dict[str, dict[str, tuple[str, ...]]] = {
    "argument": {
        "attack": ("Persuader",),
        "defend": ("Persuader",),
        "feint": ("Persuader", "Deceiver"),
        "maneuver": ("Persuader", "Deceiver"),
    },
    "chase": {"attack": ("Scout",), "defend": ("Pathfinder",), "feint": ("Pathfinder",), "maneuver": ("Scout",)},
    "fight": {"attack": ("Fighter",), "defend": ("Nature",), "feint": ("Fighter",), "maneuver": ("Nature",)},
    "fight_animal": {
        "attack": ("Fighter", "Hunter"),
        "defend": ("Loremouse", "Nature"),
        "feint": ("Fighter", "Hunter"),
        "maneuver": ("Loremouse", "Nature"),
    },
    "negotiation": {
        "attack": ("Haggler",),
        "defend": ("Haggler",),
        "feint": ("Deceiver",),
        "maneuver": ("Deceiver",),
    },
    "journey": {"attack": ("Pathfinder",), "defend": (), "feint": ("Pathfinder",), "maneuver": ()},
    "speech": {
        "attack": ("Orator",),
        "defend": ("Orator",),
        "feint": ("Orator", "Deceiver"),
        "maneuver": ("Orator", "Deceiver"),
    },
    "war": {
        "attack": ("Militarist",),
        "defend": ("Militarist", "Orator"),
        "feint": ("Militarist",),
        "maneuver": ("Militarist",),
    },
}
CONFLICT_SKILLS: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {conflict: MappingProxyType(skills) for conflict, skills in _CONFLICT_SKILLS.items()}
)

# --- rabbits.en.md, "Conflicts", Steps ------------------------------------------------------------------------
CONFLICT_STEPS = (
    "Decide the type of conflict.",
    "Decide participants and teams.",
    "State goals; write them down.",
    "Roll starting disposition.",
    "Check participants' conditions; modify dispositions.",
    "Choose three actions in private. The GM chooses first.",
    "Reveal the first action, GM first. Consult the interaction table.",
    "Test the action, add modifiers, change disposition. If a disposition reaches 0, stop.",
    "Reveal and test actions 2 and 3 the same way.",
    "After action 3, every team with disposition 1+ privately chooses three more actions.",
    "Once one side is at 0, work out a compromise that fits the damage done to the winning side.",
)

# --- rabbits.en.md, "Sample weapons" and the argument "weapons" (gear is ignored in this house version) ----
# Rows: (name, attack, defend, feint, maneuver, special, length); "—" is the sheet's "no effect".
WEAPON_COLUMNS = ("weapon", "attack", "defend", "feint", "maneuver", "special", "length")
WEAPONS: tuple[tuple[str, ...], ...] = (
    (N_("Axe"), "+1s", "-1D", "-1D", "—", "—", "normal"),
    (N_("Bow"), "+1D*", "—", "—", "+2D", "*vs Defend only", "missile"),
    (N_("Halberd"), "+1s (axe)", "-1D (axe)", "-1D (axe)", "+1D (spear)", "choose mode", "spear"),
    (N_("Hook and line"), "-1D", "—", "—", "+1D, +1s", "—", "normal"),
    (N_("Knife"), "—", "—", "—", "see special", "as disarm against spear or bow", "normal or thrown"),
    (N_("Shield"), "—", "+2D", "—", "—", "-1D Health", "normal"),
    (N_("Sling"), "—", "—", "—", "+1D", "—", "missile"),
    (N_("Spear"), "—", "—", "—", "+1D", "—", "spear"),
    (N_("Staff"), "—", "—", "+1D", "—", "—", "normal or thrown"),
    (N_("Sword"), "—", "—", "—", "—", "+1D to one action type", "normal"),
)
ARGUMENT_WEAPON_COLUMNS = ("weapon", "attack", "defend", "feint", "maneuver", "special")
ARGUMENT_WEAPONS: tuple[tuple[str, ...], ...] = (
    (N_("Intimidation"), "—", "—", "+1s", "+1s", "—"),
    (N_("Deception"), "—", "—", "+1s", "+1s", "—"),
    (N_("Evidence"), "+1s", "—", "—", "—", "must have evidence"),
    (N_("Roleplay"), "—", "—", "—", "—", "+1D to one action type"),
    (N_("Promises"), "—", "+1D", "—", "—", "—"),
    (N_("Repeating"), "-1D", "-1D", "-1D", "-1D", "—"),
)

# --- RULINGS.md, "Rabbits", ruling 6: compromise owed by the winner, mildest first --------------------------
COMPROMISES = ("none", "minor", "compromise", "major")
