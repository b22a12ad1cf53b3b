"""Setting up a conflict (steps 1–3: its type, the teams with their captains and goals) and the conflict's
campaign setting (weapons); the state it starts is described in state.py.

rabbits.en.md, "Conflicts"; RULINGS.md, "Rabbits", rulings 3–9.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, join, msg, render, rule_message
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import ConflictState, Team
from app.systems.rabbits.conflict.state import (
    ALL_TEAMS,
    CONFLICT_NAMES,
    SIDES,
    TEAM_LABELS,
    TEAM_MAX,
    TEAMS,
    disposition_preview,
    say,
)
from app.systems.rabbits.sheet import (
    RabbitSheet,
    skill_name,
)

# --- set-up (the narrator) --------------------------------------------------------------------------------------


class SetupParams(BaseModel):
    conflict: str = Field(max_length=20, title=N_("Conflict"))
    title: str = Field(default="", max_length=80)
    other_skill: str = Field(default="", max_length=40, title=N_("Skill (other conflicts)"))
    # Other conflicts: the narrator's picks (ruling 10: the weapon table; ruling 12: the tiebreaker ability).
    weapon_table: str = Field(default="", max_length=10, title=N_("Weapon table (other conflicts)"))
    tiebreak: str = Field(default="", max_length=10, title=N_("Tiebreaker (other conflicts)"))
    a_name: str = Field(default="", max_length=40)
    a_goal: str = Field(default="", max_length=300)
    a_members: list[int] = Field(default_factory=list, max_length=10)
    a_captain: int | None = None
    a_narrator: bool = False
    b_name: str = Field(default="", max_length=40)
    b_goal: str = Field(default="", max_length=300)
    b_members: list[int] = Field(default_factory=list, max_length=10)
    b_captain: int | None = None
    b_narrator: bool = False
    # More teams (two or more teams; a side of 4+ rabbits needs several): A, C, E on one side, B, D, F on the
    # other; the form's rows pair them (A faces B, C faces D, E faces F).
    c_name: str = Field(default="", max_length=40)
    c_goal: str = Field(default="", max_length=300)
    c_members: list[int] = Field(default_factory=list, max_length=10)
    c_captain: int | None = None
    c_narrator: bool = False
    d_name: str = Field(default="", max_length=40)
    d_goal: str = Field(default="", max_length=300)
    d_members: list[int] = Field(default_factory=list, max_length=10)
    d_captain: int | None = None
    d_narrator: bool = False
    e_name: str = Field(default="", max_length=40)
    e_goal: str = Field(default="", max_length=300)
    e_members: list[int] = Field(default_factory=list, max_length=10)
    e_captain: int | None = None
    e_narrator: bool = False
    f_name: str = Field(default="", max_length=40)
    f_goal: str = Field(default="", max_length=300)
    f_members: list[int] = Field(default_factory=list, max_length=10)
    f_captain: int | None = None
    f_narrator: bool = False


def _team(params: SetupParams, key: str, names: Mapping[int, str], sheets: Mapping[int, RabbitSheet]) -> Team:
    members = list(dict.fromkeys(getattr(params, f"{key}_members")))
    label = _(TEAM_LABELS[key])
    if not members:
        raise ActionError(_("{team}: choose its rabbits.").format(team=label), field=f"{key}_members")
    if len(members) > TEAM_MAX:
        raise ActionError(
            _("{team}: at most {n} rabbits, so that every one acts in each volley of three (ruling 8).").format(
                team=label, n=TEAM_MAX
            ),
            field=f"{key}_members",
        )
    for cid in members:
        if sheets[cid].retired:
            raise ActionError(_("{name} has retired.").format(name=names[cid]), field=f"{key}_members")
    captain = getattr(params, f"{key}_captain") or members[0]
    if captain not in members:
        raise ActionError(
            _("{team}: the captain must be one of its rabbits.").format(team=label), field=f"{key}_captain"
        )
    goal = getattr(params, f"{key}_goal").strip()
    if not goal:
        raise ActionError(_("{team}: write down its goal (step 3).").format(team=label), field=f"{key}_goal")
    # A name left empty is the table's (translated when read); a typed one stays as typed.
    name: str | Summary = getattr(params, f"{key}_name").strip() or msg(TEAM_LABELS[key])
    return Team(
        name=name,
        goal=goal,
        captain=captain,
        members=members,
        narrator=bool(getattr(params, f"{key}_narrator")),
        base=None,
        start=None,
        disposition=None,
        roll=None,
        scripted=False,
        locked=False,
        script=None,
        salts=None,
        commitments=None,
        lock_seq=None,
        impede=0,
        position=0,
        disarmed=[],
    )


def resolve_setup(
    sheet: RabbitSheet, params: SetupParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Steps 1–3: the type of conflict, the teams (rabbits and the narrator's opponents, a captain each) and
    each team's goal, in words."""
    conflict = params.conflict.strip().lower()
    if conflict not in rabbits.CONFLICTS:
        raise ActionError(_("Choose the type of conflict from the table."), field="conflict")
    other_skill = ""
    if conflict == "other":
        raw = params.other_skill.strip()
        other_skill = skill_name(raw) or ("Nature" if raw.lower() in ("nature", _("Nature").lower()) else "")
        if not other_skill:
            raise ActionError(
                _('An "other" conflict: name the skill its actions and disposition test.'), field="other_skill"
            )
    weapons = bool(ctx.campaign_settings.get("weapons"))
    weapon_table, tiebreak = "none", ""
    try:
        if weapons:
            weapon_table = rabbits.weapon_table_key(conflict, params.weapon_table if conflict == "other" else "")
        if conflict == "other":
            tiebreak = rabbits.conflict_tiebreak_ability(conflict, "skill", params.tiebreak or "will")
    except rabbits.RabbitRuleError as exc:
        raise ActionError(rule_message(exc), field=exc.field) from exc
    keys = [
        *TEAMS,
        *(
            k
            for k in ALL_TEAMS[2:]
            if getattr(params, f"{k}_members")
            or getattr(params, f"{k}_goal").strip()
            or getattr(params, f"{k}_name").strip()
        ),
    ]
    seen: set[int] = set()
    for key in keys:
        if seen & set(getattr(params, f"{key}_members")):
            raise ActionError(_("A rabbit can be on one team only."), field=f"{key}_members")
        seen |= set(getattr(params, f"{key}_members"))
    teams = {key: _team(params, key, ctx.other_names, ctx.others) for key in keys}
    # The form's rows pair the teams (A–B, C–D, E–F); a team left without an opponent is paired when the first
    # volley starts (pair_free_teams).
    sides = [[k for k in keys if SIDES[k] == side] for side in (0, 1)]
    fronts = [[x, y] for x, y in zip(*sides)]
    # The state keeps the title language-neutral (the page reads it with `| tr`); the encounter's own title (lists)
    # is in the narrator's language.
    shown: Summary = params.title.strip() or msg(
        "{conflict}: {a} vs {b}",
        conflict=msg(CONFLICT_NAMES[conflict]),
        a=join([teams[k].name for k in sides[0]], " & "),
        b=join([teams[k].name for k in sides[1]], " & "),
    )
    title = render(shown)
    state = ConflictState(
        conflict=conflict,
        other_skill=other_skill,
        weapons=weapons,
        weapon_table=weapon_table,
        tiebreak=tiebreak,
        phase="disposition",
        volley=1,
        index=0,
        teams=teams,
        current=None,
        pending=[],
        opened=[],
        recent=[],
        result=None,
        title=shown,
        fronts=fronts,
    )
    for key in keys:
        teams[key].preview = disposition_preview(state, key, ctx.others)
    if len(keys) == 2:
        line = say(
            state,
            msg(
                "{title} — {a}: {goal_a} / {b}: {goal_b}",
                title=shown,
                a=teams["a"].name,
                goal_a=teams["a"].goal,
                b=teams["b"].name,
                goal_b=teams["b"].goal,
            ),
        )
    else:
        goals = [msg("{team}: {goal}", team=teams[k].name, goal=teams[k].goal) for k in keys]
        line = say(state, msg("{title} — {teams}", title=shown, teams=join(goals, " / ")))
    participants = [
        {"character_id": cid, "side": key, "name": ctx.other_names[cid]} for key in keys for cid in teams[key].members
    ]
    return Resolution(
        request=params.model_dump(),
        summary=msg("set up a conflict: {line}", line=line),
        outcome={
            "conflict": conflict,
            "teams": {
                k: {"name": t.name, "goal": t.goal, "captain": t.captain, "members": t.members}
                for k, t in teams.items()
            },
        },
        encounter={"kind": "conflict", "title": title, "participants": participants, "state": state, "over": False},
    )


# --- the campaign setting ------------------------------------------------------------------------------------


class ConflictSettings(BaseModel):
    weapons: bool = False


def resolve_conflict_settings(
    sheet: RabbitSheet, params: ConflictSettings, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Sample weapons": gear is ignored in this house version unless the table chooses to use it
    (off by default); it applies to conflicts set up afterwards."""
    words = (
        msg('Rabbits: weapons and argument "weapons" are used in new conflicts')
        if params.weapons
        else msg("Rabbits: gear is ignored in new conflicts")
    )
    return Resolution(
        request=params.model_dump(),
        outcome={"weapons": params.weapons},
        summary=words,
        settings={**dict(ctx.campaign_settings), "weapons": params.weapons},
    )
