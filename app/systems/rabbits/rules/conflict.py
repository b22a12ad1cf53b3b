"""Conflict building blocks: how actions interact, starting disposition, maneuvers, compromise.

rabbits.en.md, "Conflicts"; RULINGS.md, "Rabbits", rulings 4–7.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from app.rules.dice import Dice
from app.rules.text import N_
from app.systems.rabbits.rules.errors import MAX_POOL, RabbitRuleError, check_choice, check_count
from app.systems.rabbits.rules.pools import check_conditions
from app.systems.rabbits.rules.rolls import roll_pool, successes
from app.systems.rabbits.rules.tables import (
    ABILITIES,
    ACTION_OBSTACLES,
    ACTIONS,
    CONDITIONS,
    CONFLICTS,
    DISPOSITION_TABLE,
    INTERACTIONS,
    MANEUVER_EFFECTS,
)

DISPOSITION_MINIMUM = 1


@dataclass(frozen=True)
class ExchangePlan:
    """Who tests what when two actions meet. An ob is None in a versus test or when that side does not roll."""

    a_action: str
    b_action: str
    kind: str
    versus: bool
    a_tests: bool
    b_tests: bool
    a_ob: int | None
    b_ob: int | None
    note: str


@dataclass(frozen=True)
class Disposition:
    """A starting disposition: base rating + successes + penalties, at least 1 (ruling 7; `note` says so)."""

    conflict: str
    base: str
    base_rating: int
    faces: tuple[int, ...]
    successes: int
    penalties: tuple[tuple[str, int], ...]
    total: int
    note: str | None


def _action(action: str, field: str) -> str:
    return check_choice(action, ACTIONS, field, N_("action"))


def interaction(action_a: str, action_b: str) -> str:
    """rabbits.en.md, "Action interactions": "I" (independent), "V" (versus) or "*" (special: see Feint).

    The "*" cases are settled by `exchange_plan` (ruling 4: Feint against Defend).
    """
    return INTERACTIONS[(_action(action_a, "action_a"), _action(action_b, "action_b"))]


def _feint_plan(a: str, b: str) -> ExchangePlan:
    if "defend" in (a, b):
        note = N_(
            "Feint against Defend: the defender does not roll; the feinter tests at Ob 0 and the successes"
            " come off the defender's disposition (ruling 4)."
        )
    else:
        note = N_("Feint against Attack: the feinter may neither attack nor defend; only the attacker tests (Ob 0).")
    a_tests = a == "feint" if "defend" in (a, b) else a == "attack"
    a_ob = ACTION_OBSTACLES[a] if a_tests else None
    b_ob = None if a_tests else ACTION_OBSTACLES[b]
    return ExchangePlan(a, b, "*", False, a_tests, not a_tests, a_ob, b_ob, note)


def exchange_plan(action_a: str, action_b: str) -> ExchangePlan:
    """rabbits.en.md, "Action interactions" and "Actions"; ruling 4: which side rolls, at what Ob."""
    a, b = _action(action_a, "action_a"), _action(action_b, "action_b")
    kind = INTERACTIONS[(a, b)]
    if kind == "*":
        return _feint_plan(a, b)
    if kind == "V":
        note = N_("Versus: roll against each other; most successes wins.")
        if a == b == "feint":
            note = N_(
                "Versus: roll against each other; most successes wins. The margin of success comes off the "
                "loser's disposition."
            )
        return ExchangePlan(a, b, kind, True, True, True, None, None, note)
    note = N_("Independent: each side tests its own action; both may succeed or both fail.")
    if "feint" in (a, b) and "maneuver" in (a, b):
        note = N_(
            "Independent: each side tests its own action; both may succeed or both fail. The Feint's "
            "successes come off the opponent's disposition."
        )
    return ExchangePlan(a, b, kind, False, True, True, ACTION_OBSTACLES[a], ACTION_OBSTACLES[b], note)


def maneuver_effects(margin: int, effects: Sequence[str]) -> tuple[str, ...]:
    """rabbits.en.md, "Maneuver": buy effects with the margin of success (impede 1, gain position 2, disarm 3),
    several if affordable, none twice in one action. Returns the effects bought, as table keys.
    """
    check_count(margin, "margin", 0)
    if isinstance(effects, str):
        raise RabbitRuleError("effects", N_("Give the effects as a list, e.g. ['{effects}']."), effects=effects)
    bought = tuple(check_choice(effect, MANEUVER_EFFECTS, "effects", N_("maneuver effect")) for effect in effects)
    if len(set(bought)) != len(bought):
        raise RabbitRuleError("effects", N_("The same effect cannot be bought twice in one action."))
    cost = sum(MANEUVER_EFFECTS[effect] for effect in bought)
    if cost > margin:
        raise RabbitRuleError(
            "effects",
            N_("Those effects cost {cost}, more than the margin of success {margin}."),
            cost=cost,
            margin=margin,
        )
    return bought


def compromise(starting: int, remaining: int) -> str:
    """Ruling 6: the compromise owed by the winner with starting disposition S and remaining R, checked in
    this order: R ≥ S → "none"; R ≤ max(1, ⌊S/4⌋) → "major"; R > S/2 → "minor"; else "compromise".
    Ruling 5: both sides at 0 in the same action each owe a major compromise (R = 0 gives "major").
    """
    check_count(starting, "starting", DISPOSITION_MINIMUM)
    check_count(remaining, "remaining", 0)
    if remaining >= starting:
        return "none"
    if remaining <= max(1, starting // 4):
        return "major"
    if 2 * remaining > starting:
        return "minor"
    return "compromise"


def disposition_penalties(conditions: Collection[str], base: str) -> tuple[tuple[str, int], ...]:
    """rabbits.en.md, "Conditions" and "Starting disposition": each condition's disposition penalty, once
    (a team pays every unique penalty once). Angry counts only when the conflict's base is Will.
    """
    lines: list[tuple[str, int]] = []
    for key in sorted(check_conditions(conditions)):
        rule = CONDITIONS[key]
        if rule.disposition and (base == "will" or not rule.disposition_will_only):
            lines.append((rule.name, rule.disposition))
    return tuple(lines)


def _team_conditions(team_conditions: Sequence[Collection[str]]) -> frozenset[str]:
    if isinstance(team_conditions, str) or any(isinstance(member, str) for member in team_conditions):
        raise RabbitRuleError("team_conditions", N_("Give each member's conditions as a list, e.g. [[], ['tired']]."))
    return frozenset().union(*(check_conditions(member, "team_conditions") for member in team_conditions))


def disposition(
    dice: Dice,
    conflict: str,
    *,
    base: str,
    base_rating: int,
    pool: int,
    team_conditions: Sequence[Collection[str]] = (),
) -> Disposition:
    """rabbits.en.md, "Starting disposition"; ruling 7: the captain rolls the conflict's test skill (`pool`,
    from pool_for with the able teammates as helpers), the successes are added to the `base` ability's rating,
    and every unique condition penalty among `team_conditions` (all members) is taken once. Minimum 1.
    """
    conflict = check_choice(conflict, CONFLICTS, "conflict", N_("conflict"))
    # "Other": the base is the GM's call, so any ability will do.
    bases = DISPOSITION_TABLE[conflict][1] or ABILITIES
    key = base.strip().lower() if isinstance(base, str) else None
    if key is None or key not in bases:
        raise RabbitRuleError(
            "base",
            N_("Unknown base ability {value!r} for this conflict; choose one of: {choices}."),
            value=base,
            choices=", ".join(bases),
        )
    base = key
    check_count(base_rating, "base_rating", 0, MAX_POOL)
    penalties = disposition_penalties(_team_conditions(team_conditions), base)
    return disposition_of(conflict, base, base_rating, roll_pool(dice, pool), penalties)


def disposition_of(
    conflict: str, base: str, base_rating: int, faces: Sequence[int], penalties: Sequence[Sequence[Any]]
) -> Disposition:
    """Ruling 7's total for dice already rolled: also the total after Fate has rerolled the 6s (the new faces
    appended), so a disposition roll can be followed up like any other roll."""
    faces = tuple(faces)
    lines = tuple((str(name), int(points)) for name, points in penalties)
    hits = successes(faces)
    raw = base_rating + hits + sum(points for _, points in lines)
    note = None if raw >= DISPOSITION_MINIMUM else f"Raised from {raw} to the minimum of 1 (ruling 7)."
    total = max(DISPOSITION_MINIMUM, raw)
    return Disposition(conflict, base, base_rating, faces, hits, lines, total, note)
