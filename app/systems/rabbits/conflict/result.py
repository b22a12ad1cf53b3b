"""The result of an exchange (rabbits.en.md, "Actions"; ruling 4): the two sides' rolls against each other (versus)
or their Obs (independent), and what each successful action does with its margin — disposition off the
opponent (attack, feint), back up to the start (defend), or a maneuver to spend (maneuver.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import Summary, msg
from app.systems.rabbits import outcome
from app.systems.rabbits.conflict.disposition import set_disposition
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.sheet import RabbitSheet


def opponent(ex: Mapping[str, Any], team: str) -> str:
    teams: list[str] = ex.get("teams") or ["a", "b"]
    return teams[1] if teams[0] == team else teams[0]


def _effect(state: ConflictState, ex: dict[str, Any], team: str, margin: int, notes: list[Summary]) -> None:
    """What a successful action does with its margin (rabbits.en.md, "Actions")."""
    side = ex["sides"][team]
    other = opponent(ex, team)
    own, opp = state.teams[team], state.teams[other]
    if margin <= 0:
        return
    if side["action"] in ("attack", "feint"):
        set_disposition(opp, max(0, opp.left() - margin))
        notes.append(msg("{team} −{n} → {left}", team=opp.name, n=margin, left=opp.disposition))
    elif side["action"] == "defend":
        gained = min(own.started(), own.left() + margin) - own.left()
        set_disposition(own, own.left() + gained)
        notes.append(
            msg(
                "{team} +{n} → {now} (at most its starting {start})",
                team=own.name,
                n=gained,
                now=own.disposition,
                start=own.start,
            )
        )
    else:
        state.pending.append({"team": team, "member": side["member"], "margin": margin, "opponent": other})
        notes.append(msg("{team} maneuvers with a margin of {n}", team=own.name, n=margin))


def settle(
    state: ConflictState,
    ex: dict[str, Any],
    sheets: dict[int, RabbitSheet],
    decided: tuple[str | None, int] | None = None,
) -> tuple[list[Summary], set[int]]:
    """Both sides of an exchange have rolled: versus (most successes wins, the margin to the winner's action) or
    independent (each action against its Ob). A tied versus action waits for ruling 12 (tie.py: a trait,
    then Fate, then a tiebreaker): `ex["tie"]` is opened and the result stays None until `decided` (the winner,
    or None when the tiebreaker tied too, and the margin) comes back here."""
    rolls = ex["rolls"]
    x, y = ex["teams"]
    notes: list[Summary] = []
    results: dict[str, dict[str, Any]] = {}
    if ex["versus"]:
        a, b = rolls[x]["successes"], rolls[y]["successes"]
        if decided is None and a == b:
            ex["tie"] = {"step": "trait", "declined": [], "fate": {}, "tiebreak": None}
            return [
                msg("a tie, {n} to {n}: a trait may give it away, then Fate, then a tiebreaker roll (ruling 12)", n=a)
            ], set()
        winner, margin = decided if decided is not None else (x if a > b else y, abs(a - b))
        for key in (x, y):
            results[key] = {"passed": None if winner is None else winner == key, "margin": margin}
        if winner is None:
            notes.append(msg("the tiebreaker tied too: no disposition changes"))
        else:
            _effect(state, ex, winner, margin, notes)
    else:
        for key in (x, y):
            if key in rolls:
                ob = ex["sides"][key]["ob"] or 0
                hits = rolls[key]["successes"]
                results[key] = {"passed": hits >= ob, "margin": abs(hits - ob)}
                if hits >= ob:
                    _effect(state, ex, key, hits - ob, notes)
                else:
                    notes.append(msg("{team} failed Ob {ob}", team=state.teams[key].name, ob=ob))
    ex["result"] = results
    changed: set[int] = set()
    for key, roll in rolls.items():
        last = {**roll["last"], "passed": results[key]["passed"], "margin": results[key]["margin"]}
        cid = roll["member"]
        notes += outcome.apply(sheets[cid], last)  # the model in the map: the one the action returns
        changed.add(cid)
        roll.pop("last", None)
    return notes or [msg("no change")], changed
