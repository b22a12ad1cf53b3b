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

`state["phase"]`: begin -> sneak -> attack <-> respond -> over. `attacker` has the upper hand (in
"sneak": the cat that sneaks); "respond" waits for DEFEND or JUMP against `pending_attack`.

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

Events: dicts with a stable `kind` and `result` (EVENT_RESULTS), `rolls` ({cat, stat, base, faces,
value, critical, total, attempt}), `damage` ({cat, points, health}), `next` (`to_move` after the
step) and `round` (steps played). A step that ends the duel adds "escape"/"knockout" events.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
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
    "begin": frozenset({"starts"}), "sneak": frozenset({"sneaked_up", "noticed"}),
    "attack": frozenset({"rolled", "critical_hit", "critical_goof"}),
    "defend": frozenset({"parried", "hit", "lucky_fate", "unlucky_cat"}),
    "jump": frozenset({"dodged", "hit"}),
    "flee": frozenset({"escaped", "caught", "stumbled", "chaser_injured"}),
    "escape": frozenset({"escaped"}), "knockout": frozenset({"knocked_out"}),
}

_PHASE_MOVES: Final[dict[str, frozenset[str]]] = {
    "begin": frozenset({"begin"}), "sneak": frozenset({"sneak"}), "attack": frozenset({"attack", "flee"}),
    "respond": frozenset({"defend", "jump"}), "over": frozenset(),
}

# The moves as a person reads them (the duel page's buttons say the same; translated where shown, with the
# English name as the msgid). In the order the duel page lists them.
MOVE_NAMES: Final[dict[str, str]] = {
    "begin": N_("Roll who starts"), "sneak": N_("Sneak up"), "attack": N_("Attack"), "defend": N_("Defend"),
    "jump": N_("Jump"), "flee": N_("Flee"),
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
    "name": "Tecka", "attack": 16, "defend": 12, "jump": 15, "sneak": 15, "quickness": 12, "health": MAX_HEALTH,
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
            super().__init__("move", N_("“{move}” is not possible now (possible: {allowed})."), move=move_name(move),
                             allowed=", ".join(move_name(m) for m in moves_in_order(self.legal)))
        else:
            super().__init__("move", N_("“{move}” is not possible now: the duel is over."), move=move_name(move))


class RollBudgetError(CatfightError):
    """Ties kept coming for MAX_ATTEMPTS rolls in a row: the dice are broken."""

    def __init__(self, move: str, attempts: int) -> None:
        self.move = move
        self.attempts = attempts
        super().__init__("dice", N_("{move}: still tied after {attempts} rolls; the dice look broken."),
                         move=move_name(move), attempts=attempts)


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
        raise CatfightError("scene", N_("unknown scene {scene!r} (known: {scenes})"), scene=scene, scenes=', '.join(sorted(SCENES)))
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
            raise CatStatsError(field, N_("{name} is missing; a cat needs attack, defend, jump, sneak and quickness"), name=field)
        value = stats[field]
        if isinstance(value, bool) or not isinstance(value, int):
            raise CatStatsError(field, N_("{name} must be a whole number, not {value!r}"), name=field, value=value)
        if value < 1:
            raise CatStatsError(field, N_("{name} is {value}; every value must be at least 1"), name=field, value=value)
    total = sum(stats[field] for field in STATS)
    if total != STAT_TOTAL:
        raise CatStatsError("total", N_("the five values add up to {total}; they must add up to exactly {stat_total}"), total=total, stat_total=STAT_TOTAL)


def _new_cat(stats: Mapping[str, Any]) -> dict[str, Any]:
    validate_cat(stats)
    name = stats.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CatStatsError("name", N_("a cat needs a name"))
    health = stats.get("health", MAX_HEALTH)
    if isinstance(health, bool) or not isinstance(health, int) or not 1 <= health <= MAX_HEALTH:
        raise CatStatsError("health", N_("health must be a whole number from 1 to {max_health}, not {health!r}"), max_health=MAX_HEALTH, health=health)
    return {"name": name, **{field: stats[field] for field in STATS}, "health": health}


def start_duel(a: Mapping[str, Any], b: Mapping[str, Any]) -> State:
    """A new duel (HEALTH: 3 points unless a cat comes back with fewer, ruling 11)."""
    return {
        "a": _new_cat(a), "b": _new_cat(b), "phase": "begin", "attacker": None, "pending_attack": None,
        "over": False, "winner": None, "escaped": None, "outcome": None, "round": 0,
    }


def legal_moves(state: State) -> set[str]:
    """The moves the duel allows now; empty once it is over."""
    return set() if state["over"] else set(_PHASE_MOVES[state["phase"]])


def to_move(state: State) -> str | None:
    """Who acts next: "a" for "begin" (the server rolls for both), the defender in "respond"."""
    if state["over"]:
        return None
    return {"begin": "a", "respond": _other(state["attacker"])}.get(state["phase"], state["attacker"])


def step(state: State, move: str, dice: Dice) -> tuple[State, list[Event]]:
    """Play one move on a copy of `state`; returns the new state and its events."""
    legal = legal_moves(state)
    if move not in legal:
        raise IllegalMove(move, legal)
    new = copy.deepcopy(state)
    new["round"] += 1
    events = _HANDLERS[move](new, dice)
    if new["over"]:
        events += _closing_events(new)
    for event in events:
        event["round"] = new["round"]
    return new, events


def _other(cat: str) -> str:
    return "b" if cat == "a" else "a"


def _record(cat: str, stat: str | None, base: int, roll: PmRoll, attempt: int) -> RollRecord:
    return {
        "cat": cat, "stat": stat, "base": base, "faces": list(roll.faces), "value": roll.value,
        "critical": roll.critical, "total": base + roll.value, "attempt": attempt,
    }


def _roll_for(state: State, dice: Dice, cat: str, stat: str, scene: str, attempt: int) -> RollRecord:
    if stat == "begin":  # BEGINNING: an ordinary d6, pips compared
        face = dice.roll(6)
        return _record(cat, None, 0, PmRoll((face,), face, None), attempt)
    return _record(cat, stat, state[cat][stat], pm_roll(dice, scene), attempt)


Side = tuple[str, str, str]  # cat, stat, scene
Settle = Callable[[RollRecord, RollRecord], str | None]


def _opposed(
    state: State, dice: Dice, move: str, sides: tuple[Side, Side], settle: Settle
) -> tuple[list[RollRecord], str]:
    """Both sides roll until `settle` decides; ties roll again, both sides (rulings 1-3)."""
    rolls: list[RollRecord] = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        first, second = (_roll_for(state, dice, cat, stat, scene, attempt) for cat, stat, scene in sides)
        rolls += [first, second]
        decided = settle(first, second)
        if decided is not None:
            return rolls, decided
    raise RollBudgetError(move, MAX_ATTEMPTS)


def _higher(first: RollRecord, second: RollRecord) -> str | None:
    return None if first["total"] == second["total"] else max(first, second, key=lambda r: r["total"])["cat"]


def _settle_flight(runner: RollRecord, chaser: RollRecord) -> str | None:
    """FLEEING, ruling 9: a lone critical decides; none, or one on each side, compares values."""
    if (runner["critical"] is None) != (chaser["critical"] is None):
        return str(runner["critical"] or chaser["critical"])
    if runner["total"] == chaser["total"]:
        return None
    return "outran" if runner["total"] > chaser["total"] else "overtaken"


# outcome of a flight -> (event result, who loses a point, whether the fleeing cat gets away)
_FLIGHT: Final[dict[str, tuple[str, str | None, bool]]] = {
    "outran": ("escaped", None, True), "escape": ("escaped", None, True),
    "overtaken": ("caught", None, False), "caught": ("caught", None, False),
    "stumble": ("stumbled", "runner", False), "injured": ("chaser_injured", "chaser", True),
}


def _hurt(state: State, cat: str, points: int) -> dict[str, Any]:
    """HEALTH: lose points, never below 0; at 0 the cat is knocked out and the duel ends."""
    lost = min(points, state[cat]["health"])
    state[cat]["health"] -= lost
    if state[cat]["health"] == 0 and not state["over"]:
        state.update(over=True, phase="over", winner=_other(cat), outcome="knockout", attacker=None)
    return {"cat": cat, "points": lost, "health": state[cat]["health"]}


def _event(state: State, kind: str, result: str, rolls: list[RollRecord], damage: list[Any], **extra: Any) -> Event:
    return {"kind": kind, "result": result, "rolls": rolls, "damage": damage, "next": to_move(state), **extra}


def _closing_events(state: State) -> list[Event]:
    events: list[Event] = []
    if state["escaped"] is not None:
        events.append({"kind": "escape", "result": "escaped", "cat": state["escaped"]})
    for cat in ("a", "b"):
        if state[cat]["health"] == 0:
            events.append({"kind": "knockout", "result": "knocked_out", "cat": cat, "winner": state["winner"]})
    return events


def _begin(state: State, dice: Dice) -> list[Event]:
    """BEGINNING, ruling 1: the higher d6 starts (by sneaking); ties roll again."""
    rolls, starter = _opposed(state, dice, "begin", (("a", "begin", "plain"), ("b", "begin", "plain")), _higher)
    state.update(phase="sneak", attacker=starter)
    return [_event(state, "begin", "starts", rolls, [], starter=starter)]


def _sneak(state: State, dice: Dice) -> list[Event]:
    """SNEAK, ruling 2: the higher SNEAK value attacks next; ties roll again."""
    sneaker = state["attacker"]
    sides = ((sneaker, "sneak", "plain"), (_other(sneaker), "sneak", "plain"))
    rolls, winner = _opposed(state, dice, "sneak", sides, _higher)
    state.update(phase="attack", attacker=winner)
    result = "sneaked_up" if winner == sneaker else "noticed"
    return [_event(state, "sneak", result, rolls, [], sneaker=sneaker)]


def _attack(state: State, dice: Dice) -> list[Event]:
    """ATTACK, CRITICAL HIT (ruling 5), CRITICAL GOOF (ruling 6)."""
    attacker = state["attacker"]
    defender = _other(attacker)
    roll = _record(attacker, "attack", state[attacker]["attack"], pm_roll(dice, "attack"), 1)
    damage = []
    if roll["critical"] == "critical_hit":
        result = "critical_hit"
        damage.append(_hurt(state, defender, 1))
    elif roll["critical"] == "critical_goof":
        result = "critical_goof"
        state["attacker"] = defender
    else:
        result = "rolled"
        state.update(phase="respond", pending_attack=roll["total"])
    return [_event(state, "attack", result, [roll], damage, attacker=attacker, defender=defender)]


def _answer_attack(state: State) -> tuple[str, str, dict[str, Any]]:
    """Leaves "respond": the attacker keeps the upper hand unless the answer says otherwise."""
    attacker = state["attacker"]
    defender = _other(attacker)
    extra = {"attacker": attacker, "defender": defender, "attack_total": state["pending_attack"]}
    state.update(phase="attack", pending_attack=None)
    return attacker, defender, extra


def _defend(state: State, dice: Dice) -> list[Event]:
    """DEFEND (ties parry), LUCKY FATE and UNLUCKY CAT (ruling 7), a failed DEFEND (ruling 4)."""
    attacker, defender, extra = _answer_attack(state)
    roll = _record(defender, "defend", state[defender]["defend"], pm_roll(dice, "defend"), 1)
    damage = []
    if roll["critical"] == "lucky_fate":
        result = "lucky_fate"
        state["attacker"] = defender
    elif roll["critical"] == "unlucky_cat":
        result = "unlucky_cat"
        damage.append(_hurt(state, defender, 2))
    elif roll["total"] >= extra["attack_total"]:
        result = "parried"
    else:
        result = "hit"
        damage.append(_hurt(state, defender, 1))
    return [_event(state, "defend", result, [roll], damage, **extra)]


def _jump(state: State, dice: Dice) -> list[Event]:
    """JUMP (no criticals, ruling 8; ties roll again, ruling 3); a failed JUMP is a hit (HEALTH)."""
    attacker, defender, extra = _answer_attack(state)
    sides = ((defender, "jump", "plain"), (attacker, "jump", "plain"))
    rolls, winner = _opposed(state, dice, "jump", sides, _higher)
    damage = []
    if winner == defender:
        result = "dodged"
        state["attacker"] = defender
    else:
        result = "hit"
        damage.append(_hurt(state, defender, 1))
    return [_event(state, "jump", result, rolls, damage, **extra)]


def _flee(state: State, dice: Dice) -> list[Event]:
    """FLEEING, ruling 9: QUICKNESS against QUICKNESS, criticals first, two criticals cancel."""
    cats = {"runner": state["attacker"], "chaser": _other(state["attacker"])}
    sides = ((cats["runner"], "quickness", "flee"), (cats["chaser"], "quickness", "chase"))
    rolls, outcome = _opposed(state, dice, "flee", sides, _settle_flight)
    result, loser, gets_away = _FLIGHT[outcome]
    damage = [_hurt(state, cats[loser], 1)] if loser else []
    if gets_away:
        state["escaped"] = cats["runner"]
        if not state["over"]:
            state.update(over=True, phase="over", outcome="escape", winner=None, attacker=None)
    elif not state["over"]:
        state["attacker"] = cats["chaser"]
    cancelled = any(r["critical"] and c["critical"] for r, c in zip(rolls[::2], rolls[1::2], strict=True))
    critical = outcome if outcome not in ("outran", "overtaken") else None
    return [_event(state, "flee", result, rolls, damage, **cats, critical=critical, criticals_cancelled=cancelled)]


_HANDLERS: Final[dict[str, Callable[[State, Dice], list[Event]]]] = {
    "begin": _begin, "sneak": _sneak, "attack": _attack, "defend": _defend, "jump": _jump, "flee": _flee,
}


def exact_defend_chance(defend: int, attack_value: int) -> Fraction:
    """DEFEND: chance that DEFEND + pm d6 >= the changed ATTACK value; lucky fate parries, unlucky cat fails."""
    sixth = Fraction(1, 6)
    chance = Fraction(0)
    for face in range(1, 7):
        succeeds = Fraction(int(defend + _signed(face) >= attack_value))
        if face >= 5:  # a confirmation roll follows; only the same face again is a critical
            succeeds = sixth * int(face == 6) + (1 - sixth) * succeeds
        chance += sixth * succeeds
    return chance


def exact_jump_chance(defender_jump: int, attacker_jump: int) -> Fraction:
    """JUMP: chance the defender's JUMP + pm d6 beats the attacker's, given no tie (ties roll again)."""
    wins = ties = 0
    for mine in range(1, 7):
        for theirs in range(1, 7):
            margin = defender_jump + _signed(mine) - attacker_jump - _signed(theirs)
            wins += margin > 0
            ties += margin == 0
    return Fraction(wins, 36 - ties)


def regenerate(
    health: int, escaped_at: float, now: float, interval_seconds: int = 300, max_health: int = MAX_HEALTH
) -> int:
    """REGENERATION, ruling 11: one point per full interval since the escape, up to max_health."""
    if interval_seconds < 1:
        raise CatfightError("interval_seconds", N_("the interval must be at least 1 second, not {interval_seconds}"), interval_seconds=interval_seconds)
    if not 0 <= health <= max_health:
        raise CatfightError("health", N_("health must be between 0 and {max_health}, not {health}"), max_health=max_health, health=health)
    elapsed = max(0.0, now - escaped_at)  # a clock that went backwards heals nothing
    return min(max_health, health + math.floor(elapsed // interval_seconds))
