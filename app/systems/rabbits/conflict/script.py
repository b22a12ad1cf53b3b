"""Scripting a volley in private, locking it with commitments, revealing it action by action, and what each
viewer may read of a conflict (RuleSystem.encounter_view). rabbits.en.md, "Conflicts", steps 6–10;
RULINGS.md, "Rabbits", rulings 8 and 9.

Secrecy (ruling 9): a team's script and its salts are kept in the encounter's state, which no screen reads
directly (encounters.service.visible_state → `view`). Until an action is revealed, it is shown only to the
players of that team's rabbits — not to the narrator, unless the team is narrator-run (set-up's
"the narrator's team"), and then the narrator sees that team's script only. The log gets no script: saving
says "changed its script", locking logs one salted commitment per action (app/rules/commitment.py), and each
reveal publishes the action, its member and its salt, which the page and `python -m app.verify` check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, _, join, msg, render
from app.rules import commitment
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, EncounterViewer, Resolution
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.exchange import open_exchange
from app.systems.rabbits.conflict.models import ConflictState, conflict_state
from app.systems.rabbits.conflict.state import (
    SIDES,
    commitment_key,
    committed_value,
    disposition_bases,
    disposition_skills,
    fronts_of,
    in_front,
    names_of,
    pair_free_teams,
    say,
    sheets_of,
    skill_options,
    step_state,
    team_keys,
    team_of,
)
from app.systems.rabbits.conflict.weapons import has_halberd, weapon_table
from app.systems.rabbits.sheet import RabbitSheet

ACTION_COUNT = 3


class ScriptParams(BaseModel):
    encounter_id: int
    version: int
    action_1: str = Field(default="", max_length=10)
    action_2: str = Field(default="", max_length=10)
    action_3: str = Field(default="", max_length=10)
    member_1: int | None = None
    member_2: int | None = None
    member_3: int | None = None
    # Ruling 11: the Halberd's mode for each action ("axe" or "spear"; empty: no Halberd), committed with it.
    mode_1: str = Field(default="", max_length=5)
    mode_2: str = Field(default="", max_length=5)
    mode_3: str = Field(default="", max_length=5)
    lock: bool = False


def _script(params: ScriptParams, members: list[int], names: Mapping[int, str]) -> list[dict[str, Any]]:
    script = []
    for n in range(1, ACTION_COUNT + 1):
        action = getattr(params, f"action_{n}").strip().lower()
        if action not in rabbits.ACTIONS:
            raise ActionError(
                _("Action {n}: choose attack, defend, feint or maneuver.").format(n=n), field=f"action_{n}"
            )
        member = getattr(params, f"member_{n}")
        if member is None and len(members) == 1:
            member = members[0]
        if member not in members:
            raise ActionError(
                _("Action {n}: choose which of the team's rabbits acts.").format(n=n), field=f"member_{n}"
            )
        mode = getattr(params, f"mode_{n}").strip().lower()
        if mode and mode not in rabbits.HALBERD_MODES:
            raise ActionError(_("Action {n}: the Halberd's mode is axe or spear.").format(n=n), field=f"mode_{n}")
        script.append({"action": action, "member": member, **({"mode": mode} if mode else {})})
    idle = [names.get(cid, "?") for cid in members if cid not in {s["member"] for s in script}]
    if idle:
        raise ActionError(
            _("Every rabbit of the team acts at least once in each volley (ruling 8): give {names} an action.").format(
                names=", ".join(idle)
            ),
            field="member_1",
        )
    return script


def resolve_script(
    sheet: RabbitSheet, params: ScriptParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Step 6: the team chooses its three actions in private; locking fixes them (one commitment each)."""
    state = step_state(ctx)
    assert ctx.encounter is not None
    if state.phase != "script":
        raise ActionError(_("It is not the time to script actions."), field="encounter_id")
    team = team_of(state, ctx.character_id)
    if team is None:
        raise ActionError(_("That rabbit is not in this conflict."), field="character_id")
    t = state.teams[team]
    if not in_front(state, team):
        raise ActionError(
            _("{team} has no opponent this volley: it waits.").format(team=render(t.name)), field="character_id"
        )
    if ctx.actor_is_narrator and not t.narrator:
        # Ruling 9: the narrator sees no players' team's choices, so cannot make them either.
        raise ActionError(
            _("The players of {team} script its actions.").format(team=render(t.name)), field="character_id"
        )
    if t.locked:
        raise ActionError(
            _("{team} has locked its actions: a locked script cannot change.").format(team=render(t.name)),
            field="encounter_id",
        )
    script = _script(params, t.members, names_of(ctx.encounter))
    t.script, t.scripted = script, True
    opened: list[dict[str, Any]] = []
    if not params.lock:
        line = say(state, msg("{team} changed its script.", team=t.name))
        outcome: dict[str, Any] = {"team": team, "locked": False}
    else:
        volley, eid = state.volley, ctx.encounter["id"]
        t.salts = [commitment.new_salt() for _ in script]
        t.commitments = [
            commitment.commit(salt, committed_value(eid, volley, i, team, step))
            for i, (salt, step) in enumerate(zip(t.salts, script))
        ]
        t.locked, t.lock_seq = True, ctx.seq
        line = say(
            state,
            msg(
                "{team} locked its three actions (commitments {hashes}).",
                team=t.name,
                hashes=", ".join(c[:16] for c in t.commitments),
            ),
        )
        outcome = {
            "team": team,
            "locked": True,
            "commitments": [
                {"key": commitment_key(eid, volley, i, team), "hash": c, "scheme": commitment.SCHEME}
                for i, c in enumerate(t.commitments)
            ],
        }
        if all(state.teams[k].locked for k in team_keys(state) if in_front(state, k)):
            opened = open_exchange(state, ctx, sheets_of(sheet, ctx))
            outcome["openings"] = opened
    # The request holds no choice (the log is public); the script stays in the state, which `view` filters.
    return Resolution(
        request={"version": params.version, "lock": params.lock},
        summary=line,
        outcome=outcome,
        encounter={"state": state, "over": False},
    )


# --- pairing teams (the narrator; conflicts of more than two teams) -------------------------------------------


class PairParams(BaseModel):
    encounter_id: int
    version: int
    team: str = Field(max_length=1, title=N_("Team"))
    opponent: str = Field(max_length=1, title=N_("Opponent"))


def resolve_pair(
    sheet: RabbitSheet, params: PairParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Before any team locks its volley, the narrator may choose whom a team faces: the two then face each other
    only, and a team this leaves without an opponent is paired as at the start of a volley (pair_free_teams)."""
    state = step_state(ctx)
    if state.phase != "script" or any(t.locked for t in state.teams.values()):
        raise ActionError(_("Teams are paired at the start of a volley, before any team locks."), field="opponent")
    teams = state.teams
    team, faces = params.team.strip().lower(), params.opponent.strip().lower()
    if team not in teams or teams[team].disposition == 0:
        raise ActionError(_("Choose a team still in the conflict."), field="team")
    if faces not in teams or teams[faces].disposition == 0 or SIDES[faces] == SIDES[team]:
        raise ActionError(_("Choose an opposing team still in the conflict."), field="opponent")
    front = [team, faces] if SIDES[team] == 0 else [faces, team]
    state.fronts = [f for f in fronts_of(state) if not set(f) & {team, faces}] + [front]
    line = say(
        state,
        msg("{team} now faces {other} (the narrator's call).", team=teams[team].name, other=teams[faces].name),
    )
    paired = pair_free_teams(state)
    return Resolution(
        request={"version": params.version, "team": team, "opponent": faces},
        summary=join([line, *paired], "; "),
        outcome={"fronts": state.fronts},
        encounter={"state": state, "over": False},
    )


# --- what a viewer reads -----------------------------------------------------------------------------------------


def sees_script(team: Mapping[str, Any], viewer: EncounterViewer) -> bool:
    """Ruling 9: a team's unrevealed choices are its own. A narrator controls every character, so for a
    narrator only narrator-run teams count; a player sees the script of a team they play a rabbit in."""
    if viewer.is_narrator:
        return bool(team["narrator"])
    return bool(viewer.controls & set(team["members"]))


def view(state: ConflictState, viewer: EncounterViewer) -> dict[str, Any]:
    """The conflict as this viewer may read it (the "conflict" kind's view): other teams' scripts and salts taken out
    (every revealed action is in `opened` and `current`, which are public). The page reads the JSON."""
    stored = state.stored()
    shown = dict(stored)
    teams = stored.get("teams")
    if not isinstance(teams, Mapping):
        return shown
    shown["teams"] = {}
    for key, team in teams.items():
        own = sees_script(team, viewer)
        shown["teams"][key] = {
            **team,
            "own": own,
            "script": team.get("script") if own else None,
            "salts": team.get("salts") if own else None,
        }
    shown["checked"] = [
        dict(o, ok=commitment.opens(o["hash"], o["salt"], o["value"])) for o in stored.get("opened", [])
    ]
    return shown


# What templates/rabbits/encounter.html and campaign.html read as `system_data.rabbits.conflict`.
TEMPLATE_DATA: dict[str, Any] = {
    "conflicts": rabbits.CONFLICTS,
    "actions": rabbits.ACTIONS,
    "compromises": rabbits.COMPROMISES,
    "conditions": rabbits.CONDITIONS,
    "maneuver_effects": rabbits.MANEUVER_EFFECTS,
    "count": ACTION_COUNT,
    # The page holds the state as shown (JSON): each helper reads it as the model.
    "disposition_skills": lambda shown: disposition_skills(conflict_state(shown)),
    "disposition_bases": lambda shown: disposition_bases(conflict_state(shown)),
    "skill_options": lambda shown, action: skill_options(conflict_state(shown), action),
    "weapons": lambda shown: weapon_table(conflict_state(shown)),
    "has_halberd": lambda shown: has_halberd(conflict_state(shown)),
    "tiebreak_picks": rabbits.TIEBREAK_PICKS,
    "weapon_tables": rabbits.WEAPON_TABLES,
}
