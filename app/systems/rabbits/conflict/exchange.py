"""One exchange of a volley: the revealed actions meet (the interaction table), the acting rabbits roll from
their phones (volley.py), and the result moves disposition; a maneuver's margin buys its effects. rabbits.en.md,
"Conflicts" (Actions, Action interactions, Skills by conflict and action); RULINGS.md, "Rabbits", ruling 4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import Summary, join, msg
from app.systems.base import ActionError, Context
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.end import finish, open_rest
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.result import opponent, settle
from app.systems.rabbits.conflict.state import (
    action_word,
    fronts_of,
    in_front,
    opening,
    pair_free_teams,
    percent,
    say,
    side_out,
    skill_options,
    team_keys,
)
from app.systems.rabbits.pools import (
    PoolChoices,
    plan_pool,
)
from app.systems.rabbits.sheet import RabbitSheet
from app.systems.rabbits.versus import _versus_chances

ACTIONS_PER_VOLLEY = 3


def _base_pool(sheet: RabbitSheet | None, skill: str) -> int | None:
    if sheet is None or not skill:
        return None
    try:
        return plan_pool(
            sheet,
            PoolChoices(skill=skill),
            settings={"turn": "gm"},
            session=None,
            helper_conditions=[],
            actor_is_narrator=True,
        ).pool.dice
    except ActionError:
        return None


def exchanges(current: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The exchanges of the current action, one per front: `current` itself (so a conflict of two teams reads as
    it always has) and, with more fronts, the others in current["more"]."""
    return [current, *current.get("more", [])]


def _exchange(
    state: ConflictState,
    pair: list[str],
    index: int,
    sheets: Mapping[int, RabbitSheet],
    mods: Mapping[str, dict[str, int]],
) -> dict[str, Any]:
    """Two opposing teams' revealed actions meet: the interaction table, who tests what, at what Ob."""
    x, y = pair
    steps = {key: (state.teams[key].script or [])[index] for key in pair}
    plan = rabbits.exchange_plan(steps[x]["action"], steps[y]["action"])
    sides: dict[str, Any] = {}
    for key, tests, ob in ((x, plan.a_tests, plan.a_ob), (y, plan.b_tests, plan.b_ob)):
        skills = list(skill_options(state, steps[key]["action"]))
        base = _base_pool(sheets.get(steps[key]["member"]), skills[0] if skills else "")
        dice = None if base is None else max(0, base + mods[key]["impede"] + mods[key]["position"])
        sides[key] = {**steps[key], "tests": tests, "ob": ob, "skills": skills, "mods": dict(mods[key]), "dice": dice}
    ex = {
        "teams": [x, y],
        "kind": plan.kind,
        "versus": plan.versus,
        "note": msg(plan.note),
        "sides": sides,
        "rolls": {},
        "result": None,
    }
    chances(ex)
    return ex


def chances(ex: dict[str, Any]) -> None:
    sides = ex["sides"]
    for key in ex["teams"]:
        side, other = sides[key], sides[opponent(ex, key)]
        if not side["tests"] or side["dice"] is None:
            continue
        if ex["versus"] and other["dice"] is not None:
            win, tie = _versus_chances(side["dice"], other["dice"])
            side["chance"] = {"win": percent(win), "tie": percent(tie)}
        elif not ex["versus"]:
            ob = side["ob"] or 0
            side["chance"] = {
                "pass": percent(rabbits.exact_pass_chance(side["dice"], ob)),
                "fate": percent(rabbits.exact_pass_chance(side["dice"], ob, with_fate=True)),
            }


def open_exchange(
    state: ConflictState, ctx: Context[RabbitSheet], sheets: Mapping[int, RabbitSheet]
) -> list[dict[str, Any]]:
    """Step 7: reveal the next action of every team that has an opponent and look up, front by front, how they
    meet, who tests what, at what Ob. `sheets`: every participant's sheet as it is now (pools and chances)."""
    assert ctx.encounter is not None
    index = state.index
    fronts = fronts_of(state)
    acting = [key for key in team_keys(state) if in_front(state, key)]
    found = [opening(state, ctx.encounter["id"], index, key) for key in acting]
    # Impede and gain position apply to the team's next action (in each of its fronts).
    mods = {
        key: {
            "impede": -1 if state.teams[key].impede else 0,
            "position": 2 if state.teams[key].position else 0,
        }
        for key in acting
    }
    for key in acting:
        state.teams[key].put(impede=0, position=0)
    found_exchanges = [_exchange(state, pair, index, sheets, mods) for pair in fronts]
    current = {**found_exchanges[0], "volley": state.volley, "index": index}
    if len(found_exchanges) > 1:
        current["more"] = found_exchanges[1:]
    state.current = current
    state.phase = "resolve"
    for ex in exchanges(current):
        (x, y), sides = ex["teams"], ex["sides"]
        say(
            state,
            msg(
                "Volley {volley}, action {n}: {a} {action_a}, {b} {action_b} — {note}",
                volley=state.volley,
                n=index + 1,
                a=state.teams[x].name,
                action_a=action_word(sides[x]["action"]),
                b=state.teams[y].name,
                action_b=action_word(sides[y]["action"]),
                note=ex["note"],
            ),
        )
    return found


def advance(
    state: ConflictState,
    ctx: Context[RabbitSheet],
    sheets: Mapping[int, RabbitSheet],
    notes: list[Summary] | None = None,
) -> list[dict[str, Any]]:
    """After an exchange: the next action, or (after the third, or when no front is left) a new volley to script
    (step 10); a team whose opponent is out faces another (pair_free_teams)."""
    state.index += 1
    if state.index < ACTIONS_PER_VOLLEY and fronts_of(state):
        return open_exchange(state, ctx, sheets)
    found: list[dict[str, Any]] = []
    if state.index < ACTIONS_PER_VOLLEY:
        assert ctx.encounter is not None
        found = open_rest(state, ctx.encounter["id"])
    state.put(index=0, volley=state.volley + 1, phase="script", current=None)
    for t in state.teams.values():
        t.put(scripted=False, locked=False, script=None, salts=None, commitments=None, lock_seq=None)
    paired = pair_free_teams(state)
    if notes is not None:
        notes += paired
    say(state, msg("Volley {n}: each team scripts its three actions in private.", n=state.volley))
    return found


def settle_if_ready(
    state: ConflictState,
    ctx: Context[RabbitSheet],
    sheets: dict[int, RabbitSheet],
) -> tuple[list[Summary], set[int], list[dict[str, Any]]]:
    """Each exchange whose testing sides have all rolled (and chosen about Fate and the wises) is settled; once
    every exchange of the action is, the next step."""
    current = state.current
    assert current is not None, "settled outside an action"
    notes: list[Summary] = []
    changed: set[int] = set()
    for ex in exchanges(current):
        if ex["result"] is not None or ex.get("tie"):
            continue  # settled, or a tie waiting for ruling 12's choices (tie.py)
        rolled = all(key in ex["rolls"] for key, side in ex["sides"].items() if side["tests"])
        if not rolled or any(roll.get("fate") for roll in ex["rolls"].values()):
            continue
        found, touched = settle(state, ex, sheets)
        say(state, msg("Action {n}: {notes}", n=current["index"] + 1, notes=join(found, "; ")))
        notes += found
        changed |= touched
    if any(ex["result"] is None for ex in exchanges(current)):
        return notes, changed, []
    return notes, changed, after_exchange(state, ctx, sheets, notes)


def public_exchange(current: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": current["kind"], "result": current.get("result")}


def after_exchange(
    state: ConflictState,
    ctx: Context[RabbitSheet],
    sheets: Mapping[int, RabbitSheet],
    notes: list[Summary] | None = None,
) -> list[dict[str, Any]]:
    """Step 8's stop: a side at 0 ends the conflict; a team at 0 ends its front (its unplayed actions, and those
    of an opponent left alone, are opened); else the maneuvers are spent, or the next action comes."""
    assert ctx.encounter is not None
    if side_out(state):
        return finish(state, ctx)
    found: list[dict[str, Any]] = []
    teams = state.teams
    out = [key for key in team_keys(state) if teams[key].disposition == 0]
    if any(key in front for front in fronts_of(state) for key in out):
        state.fronts = [front for front in fronts_of(state) if not set(front) & set(out)]
        idle = [key for key in team_keys(state) if not in_front(state, key)]
        found = open_rest(state, ctx.encounter["id"], idle)
        for key in out:
            if teams[key].out is None:
                teams[key].out = state.volley
                line = say(state, msg("{team} is at 0 and out of the conflict.", team=teams[key].name))
                if notes is not None:
                    notes.append(line)
    if state.pending:
        state.phase = "maneuver"
        return found
    return found + advance(state, ctx, sheets, notes)
