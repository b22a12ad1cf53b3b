"""The duel: a state, the moves it allows, and one move played on a copy of it (catfight.en.md, catfight.de.md;
rulings 1-11).

`state["phase"]`: begin -> sneak -> attack <-> respond -> over. `attacker` has the upper hand (in
"sneak": the cat that sneaks); "respond" waits for DEFEND or JUMP against `pending_attack`.

Events: dicts with a stable `kind` and `result` (EVENT_RESULTS), `rolls` ({cat, stat, base, faces,
value, critical, total, attempt}), `damage` ({cat, points, health}), `next` (`to_move` after the
step) and `round` (steps played). A step that ends the duel adds "escape"/"knockout" events.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Final

from app.rules.dice import Dice
from app.systems.catfight.rules import (
    MAX_ATTEMPTS,
    Event,
    IllegalMove,
    PmRoll,
    RollBudgetError,
    RollRecord,
    State,
    _new_cat,
    pm_roll,
)

_PHASE_MOVES: Final[dict[str, frozenset[str]]] = {
    "begin": frozenset({"begin"}),
    "sneak": frozenset({"sneak"}),
    "attack": frozenset({"attack", "flee"}),
    "respond": frozenset({"defend", "jump"}),
    "over": frozenset(),
}


def start_duel(a: Mapping[str, Any], b: Mapping[str, Any]) -> State:
    """A new duel (HEALTH: 3 points unless a cat comes back with fewer, ruling 11)."""
    return {
        "a": _new_cat(a),
        "b": _new_cat(b),
        "phase": "begin",
        "attacker": None,
        "pending_attack": None,
        "over": False,
        "winner": None,
        "escaped": None,
        "outcome": None,
        "round": 0,
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
        "cat": cat,
        "stat": stat,
        "base": base,
        "faces": list(roll.faces),
        "value": roll.value,
        "critical": roll.critical,
        "total": base + roll.value,
        "attempt": attempt,
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
    "outran": ("escaped", None, True),
    "escape": ("escaped", None, True),
    "overtaken": ("caught", None, False),
    "caught": ("caught", None, False),
    "stumble": ("stumbled", "runner", False),
    "injured": ("chaser_injured", "chaser", True),
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
    "begin": _begin,
    "sneak": _sneak,
    "attack": _attack,
    "defend": _defend,
    "jump": _jump,
    "flee": _flee,
}
