"""Turn-based cat fight: the plus-minus d6 duel of two cats (catfight.en.md, catfight.de.md).

"Ruling N" cites RULINGS.md, "Turn-based cat fight"; where the English is vague, the German decides.

The plus-minus d6 ("Preliminary" / "Sonderregeln"): even faces add, odd faces subtract. In a
scene with criticals a first face of 6 or 5 brings a confirmation roll; only the same face again
confirms. A value that is not confirmed "simply counts": 6 & 1 = +6, 5 & 2 = -5.

    scene    confirmed 6-6   confirmed 5-5   text section
    attack   critical_hit    critical_goof   CRITICAL HIT, CRITICAL GOOF (rulings 5, 6)
    defend   lucky_fate      unlucky_cat     LUCKY FATE, UNLUCKY CAT (ruling 7)
    flee     escape          stumble         FLEEING, the fleeing cat (ruling 9)
    chase    caught          injured         FLEEING, the chasing cat (ruling 9)
    plain    -               -               BEGINNING, SNEAK, JUMP (ruling 8: no criticals)

Decisions the texts leave open (each visible on the events):
- A confirmed critical carries its first face's value (6-6 -> +6, 5-5 -> -5), as if unconfirmed;
  it only counts when two fleeing criticals cancel and the values are compared.
- BEGINNING compares the pips of an ordinary d6 ("die höhere Augenzahl", ruling 1 "a plain d6"):
  a 5 beats a 2. `to_move` names "a" for "begin"; the server rolls for both cats.
- A failed JUMP is a hit (HEALTH: "If a DEFEND or a JUMP fails"): the defender loses 1 point.
- FLEEING: any two criticals, one on each side, cancel (ruling 9, "both sides roll deciding
  criticals"), point losses included; the values are then compared and a tie rolls again.
- An escape ends the duel: `outcome` "escape", `winner` None. A chaser injured to 0 makes it a
  "knockout" won by the fleeing cat, which `escaped` still names (it regenerates, ruling 11).
- Health never goes below 0 (unlucky cat at 1 point loses 1); events record points actually lost.
- Ties roll again inside one step; MAX_ATTEMPTS ties in a row (broken dice) raise RollBudgetError.

The duel itself (a state, a move, its events) is `duel`; the exact chances of a DEFEND and a JUMP are `odds`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from app.rules.dice import Dice
from app.rules.text import N_, RuleText

State = dict[str, Any]
Event = dict[str, Any]
RollRecord = dict[str, Any]

STATS: Final = ("attack", "defend", "jump", "sneak", "quickness")
STAT_TOTAL: Final = 70
MAX_HEALTH: Final = 3
MAX_ATTEMPTS: Final = 1000
MOVES: Final = frozenset({"begin", "sneak", "attack", "defend", "jump", "flee"})
SCENES: Final = frozenset({"plain", "attack", "defend", "flee", "chase"})

_CRITICALS: Final[dict[str, tuple[str, str]]] = {  # scene -> (confirmed 6-6, confirmed 5-5)
    "attack": ("critical_hit", "critical_goof"),
    "defend": ("lucky_fate", "unlucky_cat"),
    "flee": ("escape", "stumble"),
    "chase": ("caught", "injured"),
}

EVENT_RESULTS: Final[dict[str, frozenset[str]]] = {  # event kind -> its results (stable ids)
    "begin": frozenset({"starts"}),
    "sneak": frozenset({"sneaked_up", "noticed"}),
    "attack": frozenset({"rolled", "critical_hit", "critical_goof"}),
    "defend": frozenset({"parried", "hit", "lucky_fate", "unlucky_cat"}),
    "jump": frozenset({"dodged", "hit"}),
    "flee": frozenset({"escaped", "caught", "stumbled", "chaser_injured"}),
    "escape": frozenset({"escaped"}),
    "knockout": frozenset({"knocked_out"}),
}

# The moves as a person reads them (the duel page's buttons say the same; translated where shown, with the
# English name as the msgid). In the order the duel page lists them.
MOVE_NAMES: Final[dict[str, str]] = {
    "begin": N_("Roll who starts"),
    "sneak": N_("Sneak up"),
    "attack": N_("Attack"),
    "defend": N_("Defend"),
    "jump": N_("Jump"),
    "flee": N_("Flee"),
}


def move_name(move: str) -> str:
    """A move's English name (a msgid), or the move as given when there is no such move."""
    return MOVE_NAMES.get(move, move)


def moves_in_order(moves: Iterable[str]) -> list[str]:
    """Moves in the duel page's order (unknown ones last, sorted)."""
    order = list(MOVE_NAMES)
    return sorted(moves, key=lambda m: (order.index(m) if m in order else len(order), m))


# The example cat ("EXAMPLE CAT" / "BEISPIELKATZE"); copy it before changing it.
TECKA: Final[dict[str, Any]] = {
    "name": "Tecka",
    "attack": 16,
    "defend": 12,
    "jump": 15,
    "sneak": 15,
    "quickness": 12,
    "health": MAX_HEALTH,
}


class CatfightError(RuleText, ValueError):
    """A duel rule was broken; `field` names what was wrong."""

    def __init__(self, field: str, message: str, **values: Any) -> None:
        super().__init__(self._set_text(message, values))
        self.field = field


class CatStatsError(CatfightError):
    """A cat's values break ruling 12 (or its name or health is unusable)."""


class IllegalMove(CatfightError):
    """The move is not one the duel allows now; `legal` holds the ones it does."""

    def __init__(self, move: str, legal: Iterable[str]) -> None:
        self.move = move
        self.legal = frozenset(legal)
        if self.legal:
            super().__init__(
                "move",
                N_("“{move}” is not possible now (possible: {allowed})."),
                move=move_name(move),
                allowed=", ".join(move_name(m) for m in moves_in_order(self.legal)),
            )
        else:
            super().__init__("move", N_("“{move}” is not possible now: the duel is over."), move=move_name(move))


class RollBudgetError(CatfightError):
    """Ties kept coming for MAX_ATTEMPTS rolls in a row: the dice are broken."""

    def __init__(self, move: str, attempts: int) -> None:
        self.move = move
        self.attempts = attempts
        super().__init__(
            "dice",
            N_("{move}: still tied after {attempts} rolls; the dice look broken."),
            move=move_name(move),
            attempts=attempts,
        )


@dataclass(frozen=True)
class PmRoll:
    """One plus-minus d6: the faces rolled (with the confirmation roll), the signed value, the critical."""

    faces: tuple[int, ...]
    value: int
    critical: str | None


def _signed(face: int) -> int:
    return face if face % 2 == 0 else -face


def pm_roll(dice: Dice, scene: str) -> PmRoll:
    """The plus-minus d6 with confirmation rolls (Preliminary, SPECIAL RULES, FLEEING)."""
    if scene not in SCENES:
        raise CatfightError(
            "scene", N_("unknown scene {scene!r} (known: {scenes})"), scene=scene, scenes=", ".join(sorted(SCENES))
        )
    first = dice.roll(6)
    if scene == "plain" or first < 5:
        return PmRoll((first,), _signed(first), None)
    second = dice.roll(6)
    critical = None
    if second == first:
        on_six, on_five = _CRITICALS[scene]
        critical = on_six if first == 6 else on_five
    return PmRoll((first, second), _signed(first), critical)


def validate_cat(stats: Mapping[str, Any]) -> None:
    """EXAMPLE CAT and ruling 12: five whole values of at least 1 that sum to exactly 70."""
    for field in STATS:
        if field not in stats:
            raise CatStatsError(
                field, N_("{name} is missing; a cat needs attack, defend, jump, sneak and quickness"), name=field
            )
        value = stats[field]
        if isinstance(value, bool) or not isinstance(value, int):
            raise CatStatsError(field, N_("{name} must be a whole number, not {value!r}"), name=field, value=value)
        if value < 1:
            raise CatStatsError(field, N_("{name} is {value}; every value must be at least 1"), name=field, value=value)
    total = sum(stats[field] for field in STATS)
    if total != STAT_TOTAL:
        raise CatStatsError(
            "total",
            N_("the five values add up to {total}; they must add up to exactly {stat_total}"),
            total=total,
            stat_total=STAT_TOTAL,
        )


def _new_cat(stats: Mapping[str, Any]) -> dict[str, Any]:
    validate_cat(stats)
    name = stats.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CatStatsError("name", N_("a cat needs a name"))
    health = stats.get("health", MAX_HEALTH)
    if isinstance(health, bool) or not isinstance(health, int) or not 1 <= health <= MAX_HEALTH:
        raise CatStatsError(
            "health",
            N_("health must be a whole number from 1 to {max_health}, not {health!r}"),
            max_health=MAX_HEALTH,
            health=health,
        )
    return {"name": name, **{field: stats[field] for field in STATS}, "health": health}


def regenerate(
    health: int, escaped_at: float, now: float, interval_seconds: int = 300, max_health: int = MAX_HEALTH
) -> int:
    """REGENERATION, ruling 11: one point per full interval since the escape, up to max_health."""
    if interval_seconds < 1:
        raise CatfightError(
            "interval_seconds",
            N_("the interval must be at least 1 second, not {interval_seconds}"),
            interval_seconds=interval_seconds,
        )
    if not 0 <= health <= max_health:
        raise CatfightError(
            "health",
            N_("health must be between 0 and {max_health}, not {health}"),
            max_health=max_health,
            health=health,
        )
    elapsed = max(0.0, now - escaped_at)  # a clock that went backwards heals nothing
    return min(max_health, health + math.floor(elapsed // interval_seconds))
