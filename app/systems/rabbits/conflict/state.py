"""Conflicts as encounters (rabbits.en.md, "Conflicts"; RULINGS.md, "Rabbits", rulings 3–9): the narrator's
set-up, each team's starting disposition, and the conflict's campaign setting (weapons).

The conflict's state (one encounter, docs/RABBITS-CONFLICTS.md):
  conflict, other_skill, weapons, phase (disposition → script → resolve ⇄ maneuver → end → over), volley,
  index (the action of the volley, 0–2), teams {a, b (and c–f: A, C, E are one side, B, D, F the other): name,
  goal, captain, members, narrator, base, start, disposition, spread, roll, scripted, locked, script, salts,
  commitments, lock_seq, impede, position, disarmed}, fronts (the pairs of opposing teams that meet; absent in
  older states: A–B), current (the revealed exchange of the first front; the others' in current.more),
  pending (maneuvers to spend), opened (every published opening), recent, result. What a viewer reads of it is
  decided in script.view (RuleSystem.encounter_view). The typed models are in models.py (ConflictState, Team);
a step gets the model (step_state copies it), the pages' helpers take it or the stored JSON.
Scripting and the reveal are in script.py, the exchanges in exchange.py, rolling in volley.py, the end in end.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from app.i18n import N_, Summary, _, msg
from app.systems.base import ActionError, Context
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.pools import PoolChoices, breakdown, plan_pool
from app.systems.rabbits.sheet import (
    RabbitSheet,
)

TEAMS = ("a", "b")  # the two teams every conflict has; more (c–f) are optional
ALL_TEAMS = ("a", "b", "c", "d", "e", "f")
SIDES = {"a": 0, "b": 1, "c": 0, "d": 1, "e": 0, "f": 1}  # A, C, E on one side; B, D, F on the other
TEAM_MAX = 3  # ruling 8: every member acts in each volley of three actions
RECENT = 8
TEAM_LABELS = {
    "a": N_("Team A"),
    "b": N_("Team B"),
    "c": N_("Team C"),
    "d": N_("Team D"),
    "e": N_("Team E"),
    "f": N_("Team F"),
}


# --- reading the state ---------------------------------------------------------------------------------------


def other_team(team: str) -> str:
    return "b" if team == "a" else "a"


def team_keys(state: ConflictState) -> list[str]:
    return [key for key in ALL_TEAMS if key in state.teams]


def fronts_of(state: ConflictState) -> list[list[str]]:
    """The pairs of opposing teams that meet this volley (a conflict of two teams: A against B)."""
    return [list(f) for f in state.fronts] if state.fronts is not None else [["a", "b"]]


def in_front(state: ConflictState, team: str) -> bool:
    return any(team in front for front in fronts_of(state))


def side_out(state: ConflictState) -> list[int]:
    """The sides whose every team is at 0 ("Once one side is at 0")."""
    teams = state.teams
    return [side for side in (0, 1) if all(teams[k].disposition == 0 for k in team_keys(state) if SIDES[k] == side)]


def pair_free_teams(state: ConflictState) -> list[Summary]:
    """At the start of a volley, each team still in the conflict without an opponent (its opponent is out, or the
    sides had unequal numbers of teams) faces the opposing team with the most disposition — one that has no
    opponent either if there is one, else any (which then faces two); the first in the form's order among
    equals."""
    teams, fronts, lines = state.teams, fronts_of(state), []
    for key in team_keys(state):
        if teams[key].disposition == 0 or any(key in front for front in fronts):
            continue
        rivals = [k for k in team_keys(state) if SIDES[k] != SIDES[key] and teams[k].left() > 0]
        if not rivals:
            continue
        rival = max(
            rivals,
            key=lambda k: (not any(k in front for front in fronts), teams[k].disposition, -ALL_TEAMS.index(k)),
        )
        fronts.append([key, rival] if SIDES[key] == 0 else [rival, key])
        lines.append(say(state, msg("{team} now faces {other}.", team=teams[key].name, other=teams[rival].name)))
    state.fronts = fronts
    return lines


def team_of(state: ConflictState, character_id: int | None) -> str | None:
    return next((key for key, team in state.teams.items() if character_id in team.members), None)


def sheets_of(sheet: RabbitSheet, ctx: Context[RabbitSheet]) -> dict[int, RabbitSheet]:
    """Every participant's sheet: the acting character's and the others' (an encounter step loads them all)."""
    sheets = dict(ctx.others)
    if ctx.character_id is not None:
        sheets[ctx.character_id] = sheet
    return sheets


def names_of(encounter: Mapping[str, Any]) -> dict[int, str]:
    return {p["character_id"]: p["name"] for p in encounter["participants"]}


def step_state(ctx: Context[RabbitSheet]) -> ConflictState:
    """The conflict's state to change: a deep copy of the model the rules service validated (the "conflict" kind's)."""
    encounter = ctx.encounter
    if encounter is None:
        raise ActionError(_("This is a step of a conflict."), field="encounter_id")
    state = encounter["state"]
    assert isinstance(state, ConflictState), "a conflict step is handed the conflict's model"
    return state.model_copy(deep=True)


def say(state: ConflictState, line: Summary) -> Summary:
    """One line of "what happened" on the conflict page (the log has every step); language-neutral (app.i18n.msg),
    shown with `| tr`."""
    state.recent = [line, *state.recent[: RECENT - 1]]
    return line


CONFLICT_NAMES = {
    "argument": N_("Argument"),
    "speech": N_("Speech"),
    "negotiation": N_("Negotiation"),
    "fight": N_("Fight"),
    "fight_animal": N_("Fight Animal"),
    "chase": N_("Chase"),
    "war": N_("War"),
    "journey": N_("Journey"),
    "other": N_("Other"),
}


ACTION_WORDS = {"attack": N_("attack"), "defend": N_("defend"), "feint": N_("feint"), "maneuver": N_("maneuver")}
EFFECT_WORDS = {"impede": N_("impede"), "gain_position": N_("gain position"), "disarm": N_("disarm")}


def action_word(action: str) -> Summary:
    """A conflict action in a log line or on the page (`| tr`)."""
    return msg(ACTION_WORDS[action]) if action in ACTION_WORDS else action


COMPROMISE_WORDS = {"none": N_("none"), "minor": N_("minor"), "compromise": N_("compromise"), "major": N_("major")}


def compromise_word(level: str) -> Summary:
    """A compromise level ("none", "minor", "compromise", "major") in a log line or on the page (`| tr`)."""
    return msg(COMPROMISE_WORDS[level]) if level in COMPROMISE_WORDS else level


def skill_options(state: ConflictState, action: str) -> tuple[str, ...]:
    """rabbits.en.md, "Skills by conflict and action"; "other": the skill the narrator named at set-up; an
    empty tuple is the sheet's "see description" (the roller names the skill or ability)."""
    if state.conflict == "other":
        return (state.other_skill,)
    return rabbits.CONFLICT_SKILLS[state.conflict][action]


def disposition_skills(state: ConflictState) -> tuple[str, ...]:
    tests = rabbits.DISPOSITION_TABLE[state.conflict][0]
    return tests or (state.other_skill,)


def disposition_bases(state: ConflictState) -> tuple[str, ...]:
    return rabbits.DISPOSITION_TABLE[state.conflict][1] or rabbits.ABILITIES


def percent(chance: Fraction | float) -> float:
    return round(float(chance) * 100, 1)


# --- commitments and the reveal (script.py) ---------------------------------------------------------


def commitment_key(encounter_id: int, volley: int, index: int, team: str) -> str:
    return f"rabbits-conflict/{encounter_id}/{volley}/{index + 1}/{team}"


def committed_value(encounter_id: int, volley: int, index: int, team: str, step: Mapping[str, Any]) -> dict[str, Any]:
    """What one commitment fixes: the slot (conflict, volley, action, team) and its choice, so an opening cannot
    be moved to another slot."""
    value = {
        "key": commitment_key(encounter_id, volley, index, team),
        "action": step["action"],
        "member": step["member"],
    }
    if step.get("mode"):  # ruling 11: the Halberd's mode is fixed with the action and revealed with it
        value["mode"] = step["mode"]
    return value


def opening(state: ConflictState, encounter_id: int, index: int, team: str) -> dict[str, Any]:
    """Publish one scripted action: its value and salt, against the commitment logged at lock time."""
    t = state.teams[team]
    assert t.script is not None and t.commitments is not None and t.salts is not None, "opened before it was locked"
    value = committed_value(encounter_id, state.volley, index, team, t.script[index])
    found = {
        "key": value["key"],
        "seq": t.lock_seq,
        "hash": t.commitments[index],
        "salt": t.salts[index],
        "value": value,
        "team": team,
        "volley": state.volley,
        "index": index,
    }
    state.opened.append(found)
    return found


# --- disposition (the captain) -----------------------------------------------------------------------------------


def _helpers(
    state: ConflictState, team: str, captain: int, sheets: Mapping[int, RabbitSheet]
) -> tuple[list[int], list[int]]:
    """Ruling 7: every teammate helps (+1D), except those who may not (Afraid, ruling 3; retired)."""
    able: list[int] = []
    unable: list[int] = []
    for cid in state.teams[team].members:
        if cid == captain:
            continue
        sheet = sheets.get(cid)
        (unable if sheet is not None and ("afraid" in sheet.conditions or sheet.retired) else able).append(cid)
    return able, unable


def disposition_plan(
    state: ConflictState,
    team: str,
    sheet: RabbitSheet,
    choices: PoolChoices,
    sheets: Mapping[int, RabbitSheet],
    ctx_session: int | None,
    settings: Mapping[str, Any],
) -> Any:
    captain = state.teams[team].captain
    able, _unable = _helpers(state, team, captain, sheets)
    choices = choices.model_copy(update={"helpers": able})
    return plan_pool(
        sheet,
        choices,
        settings={**settings, "turn": "gm"},
        session=ctx_session,
        helper_conditions=[list(sheets[cid].conditions) for cid in able],
        actor_is_narrator=True,
    )


def disposition_preview(state: ConflictState, team: str, sheets: Mapping[int, RabbitSheet]) -> dict[str, Any] | None:
    """What the captain's button shows: the pool, the base, the penalties and the exact chance of each total."""
    captain = state.teams[team].captain
    try:
        sheet = sheets[captain]
        skill = disposition_skills(state)[0]
        plan = disposition_plan(state, team, sheet, PoolChoices(skill=skill), sheets, None, {})
    except (ActionError, KeyError):
        return None
    conditions = [list(sheets[cid].conditions) for cid in state.teams[team].members]
    return {
        "skill": skill,
        "dice": plan.pool.dice,
        "breakdown": breakdown(plan),
        "bases": [preview_base(state, sheet, base, plan.pool.dice, conditions) for base in disposition_bases(state)],
    }


def preview_base(
    state: ConflictState, sheet: RabbitSheet, base: str, dice: int, conditions: list[list[str]]
) -> dict[str, Any]:
    rating = sheet.abilities[base].rating
    penalty = sum(
        points
        for _, points in rabbits.disposition_penalties(
            frozenset().union(*map(frozenset, conditions)) if conditions else frozenset(), base
        )
    )
    merged: dict[int, Fraction] = {}
    for hits in range(dice + 1):
        chance = rabbits.exact_pass_chance(dice, hits) - (
            rabbits.exact_pass_chance(dice, hits + 1) if hits < dice else Fraction(0)
        )
        total = max(rabbits.DISPOSITION_MINIMUM, rating + hits + penalty)
        merged[total] = merged.get(total, Fraction(0)) + chance
    return {
        "base": base,
        "rating": rating,
        "penalty": penalty,
        "totals": [[total, percent(chance)] for total, chance in sorted(merged.items())],
    }
