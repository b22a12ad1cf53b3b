"""The How to Play chapter's lookup tables: difficulties, what successes mean, falls and sanity.

art-engine.md, ch. 3 "Setting the Difficulty", "Interpreting Successes & Failures", "Falling
Damage", "Insanity".
"""

from __future__ import annotations

from app.rules.text import N_

from .levels import ArtRuleError, Level

# ch. 3, "Setting the Difficulty" (Difficulty table: the challenge for an average adventurer)
DIFFICULTY_CHALLENGE: dict[Level, str] = {
    Level.CT: "Boring (Automatic Success)",
    Level.PT: "Routine",
    Level.FB: "Simple",
    Level.IN: "Tricky",
    Level.PR: "Troublesome",
    Level.PS: "Hard",
    Level.GD: "Daring",
    Level.GT: "Reckless",
    Level.SP: "Foolhardy",
    Level.AW: "Desperate",
    Level.EX: "Impossible (Automatic Failure)",
}

# ch. 3, "Interpreting Success & Failures" (broad guidelines, keyed by successes > 0 / failures < 0)
INTERPRETATION: dict[int, str] = {
    -5: "Complete disaster. The worst thing possible happens.",
    -4: "Blunder. You failed completely and looked foolish, creating a new complication.",
    -3: "Setback. You made a terrible mistake that will have to be corrected.",
    -2: "Inconvenience. Something is preventing you from realizing your intentions.",
    -1: "Stymied. The action is harder than you expected; your best efforts accomplished nothing.",
    1: "Marginal success. You finish most of what you wanted, but something is left undone.",
    2: "Moderate success. Your work is adequate, but not everything or not as well as expected.",
    3: "Solid success. You accomplish everything you intended. You meet expectations.",
    4: "Complete success. You succeed completely, efficiently and look good doing it.",
    5: "Bonus. The results exceed all reasonable expectations; you gain an unexpected advantage.",
}

# ch. 3, "Falling Damage" (Falling Damage table: damage, height in feet, description)
FALLING_DAMAGE: tuple[tuple[Level, int, str], ...] = (
    (Level.IN, 10, "Short drop"),
    (Level.PR, 20, "Unfortunate tumble"),
    (Level.PS, 30, "Dangerous fall"),
    (Level.GD, 40, "Great fall"),
    (Level.GT, 50, "Dizzying plunge"),
    (Level.SP, 60, "Terrifying plummet"),
    (Level.AW, 70, "Perilous plummet"),
    (Level.EX, 80, "Deadly dive"),
)

# ch. 3, "Falling Damage" (Falling Adjustment table: columns added for the landing surface)
FALLING_SURFACES: dict[int, str] = {
    -3: N_("Deep snow, water"),
    -2: N_("Dense vegetation, sand"),
    -1: N_("Grass or mud"),
    0: N_("Dirt or wood floor"),
    1: N_("Stone floor, pavement"),
    2: N_("Rocks"),
    3: N_("Jagged rocks, spikes"),
}

MAX_BREAKFALL = 2  # ch. 6, "Breakfall": maximum of 2 ranks

# ch. 3, "Insanity" (Sanity Difficulty table: description, example)
SANITY_DIFFICULTY: dict[Level, tuple[str, str]] = {
    Level.IN: ("Disgust", "Find a mangled corpse."),
    Level.PR: ("Fright", "Touch a mangled corpse unexpectedly."),
    Level.PS: ("Shock", "Find the mangled corpse of a loved one."),
    Level.GD: ("Panic", "Attacked by a loathsome and obviously dangerous creature."),
    Level.GT: ("Fear", "Receive a visit by an IRS agent."),
    Level.SP: ("Extreme terror", "Witness a horrifying event: river runs with blood, body parts rain from the sky."),
    Level.AW: ("Mind numbing horror", "Faced by own worst fear."),
}

# ch. 3, "Insanity" (Sanity Check table, keyed by successes > 0 / failures < 0)
SANITY_CHECK: dict[int, str] = {
    2: N_("You've coughed up scarier things than this."),
    1: N_("You're disturbed but keep your cool."),
    -1: N_("You grit your teeth and swallow your rising panic."),
    -2: N_("You are paralyzed with fear for 1 round."),
    -3: N_(
        "You flee in terror. Each round, make an Inferior Intelligence roll; "
        "once you accumulate 7 successes you regain your self control."
    ),
    -4: N_(
        "You cry, whimper, scream, or huddle in a corner until slapped or shaken "
        "or until you recover by yourself after 5 minutes."
    ),
    -5: N_(
        "You faint. Each round, make an Inferior Intelligence roll; once you accumulate 7 successes "
        "you awaken. If you roll any failures you awaken with no memory of the event that frightened you."
    ),
    -6: N_("You faint for 1 minute per failure on an Extreme Intelligence roll, and are unable to speak for 12 hours."),
    -7: N_(
        "You go catatonic for 1 hour per failure on an Extreme Intelligence roll, "
        "and gain a permanent phobia related to the event once you recover."
    ),
    -8: N_("Your character goes completely insane. Each day, you may try a Great Intelligence roll to recover."),
}


def outcome_label(outcome: int) -> str:
    """The text's abbreviation for successes or failures: 2 -> "2s", -3 -> "3f" (ch. 1, "Abbreviations")."""
    if outcome == 0:
        raise ArtRuleError("outcome", N_("a roll gives at least one success or one failure, never 0"))
    return f"{outcome}s" if outcome > 0 else f"{-outcome}f"


def _clamped_entry(table: dict[int, str], outcome: int) -> tuple[str, str]:
    key = min(max(outcome, min(table)), max(table))
    return outcome_label(key), table[key]


def interpret(outcome: int) -> tuple[str, str]:
    """The guideline for a number of successes or failures, as (label, text). Beyond 5 the table's
    last line applies (ch. 3, "Interpreting Successes & Failures")."""
    return _clamped_entry(INTERPRETATION, outcome)


def sanity_check(outcome: int) -> tuple[str, str]:
    """What a Stamina roll against horror does, as (label, text) (ch. 3, "Insanity").

    The table stops at 2 successes and 8 failures; more of either reads as that last line.
    """
    return _clamped_entry(SANITY_CHECK, outcome)


def falling_damage(feet: int, surface: int = 0, *, breakfall: int = 0) -> Level | None:
    """Damage from a fall, with no Defense roll (ch. 3, "Falling Damage"; ch. 6, "Breakfall").

    Each full 10 feet is one level from Inferior; 80 feet or more is Extreme. The landing surface
    adds -3..+3 columns and each Breakfall rank takes one off. A drop of under 10 feet does no damage
    (None); an adjusted damage below Inferior is returned as it is and will usually be shrugged off.
    """
    if feet < 0:
        raise ArtRuleError("feet", N_("a fall cannot be {feet} feet"), feet=feet)
    if surface not in FALLING_SURFACES:
        raise ArtRuleError(
            "surface", N_("the landing surface adjusts damage by -3 to +3, not {surface:+d}"), surface=surface
        )
    if not 0 <= breakfall <= MAX_BREAKFALL:
        raise ArtRuleError("breakfall", N_("Breakfall has 0 to 2 ranks, not {breakfall}"), breakfall=breakfall)
    tens = min(feet // 10, len(FALLING_DAMAGE))
    if tens == 0:
        return None
    base = FALLING_DAMAGE[tens - 1][0]
    return Level(min(max(int(base) + surface - breakfall, Level.CT), Level.EX))
