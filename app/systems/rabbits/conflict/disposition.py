"""A team's disposition (rabbits.en.md, "Conflicts", steps 4–5; RULINGS.md, "Rabbits", ruling 7): the captain's
roll (Fate may follow it), the spread among the members for display (automatic, or by hand), and how the spread
follows the disposition as it changes. Set-up and the preview on the captain's button are in state.py.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, join, msg, render, rule_message
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import ConflictState, Team
from app.systems.rabbits.conflict.state import (
    disposition_bases,
    disposition_plan,
    disposition_skills,
    names_of,
    pair_free_teams,
    say,
    sheets_of,
    step_state,
    team_keys,
    team_of,
)
from app.systems.rabbits.play import faces_text
from app.systems.rabbits.pools import PoolChoices, breakdown, spend
from app.systems.rabbits.rules.tables import FATE_FACE
from app.systems.rabbits.sheet import (
    ABILITY_WORDS,
    RabbitSheet,
    ability_word,
    condition_word,
    start_rewards,
)


class DispositionParams(PoolChoices):
    encounter_id: int
    version: int
    skill: str = Field(default="", max_length=40, title=N_("Skill"))
    base: str = Field(default="", max_length=10, title=N_("Ability"))


def spread(total: int, members: list[int], captain: int) -> dict[str, int]:
    """Ruling 7's one disposition, spread among the members for display (the captain takes the remainder)."""
    share, rest = divmod(total, len(members))
    return {str(cid): share + (rest if cid == captain else 0) for cid in members}


def set_disposition(t: Team, value: int) -> None:
    """A team's disposition changes (an attack, a defence): its spread follows. The automatic spread is made again;
    a spread set by hand keeps its shape — a point lost comes off the largest share, a point gained goes to the
    smallest (the captain first among equals, then the members in order)."""
    t.disposition = value
    if not t.spread_by_hand or not t.spread:
        t.spread = spread(value, t.members, t.captain)
        return
    shares = {cid: t.spread.get(str(cid), 0) for cid in t.members}
    order = [t.captain] + [cid for cid in t.members if cid != t.captain]
    diff = value - sum(shares.values())
    while diff:
        if diff < 0:
            cid = max(order, key=lambda c: (shares[c], -order.index(c)))
            shares[cid] -= 1
            diff += 1
        else:
            cid = min(order, key=lambda c: (shares[c], order.index(c)))
            shares[cid] += 1
            diff -= 1
    t.spread = {str(cid): shares[cid] for cid in t.members}


def resolve_disposition(
    sheet: RabbitSheet, params: DispositionParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Steps 4–5, ruling 7: the captain tests the listed skill, every able teammate helps +1D; the successes are
    added to the listed ability; every unique condition penalty of the team applies once (Afraid −1, Angry only
    in Will conflicts); at least 1."""
    state = step_state(ctx)
    if state.phase != "disposition":
        raise ActionError(_("Disposition has been rolled."), field="encounter_id")
    team = team_of(state, ctx.character_id)
    if team is None or state.teams[team].captain != ctx.character_id:
        raise ActionError(_("The team's captain rolls its disposition."), field="character_id")
    if state.teams[team].start is not None or state.teams[team].roll is not None:
        raise ActionError(_("This team has rolled its disposition."), field="encounter_id")
    sheets = sheets_of(sheet, ctx)
    start_rewards(sheet, ctx.campaign_settings)
    skill = params.skill.strip() or disposition_skills(state)[0]
    allowed = {s.lower() for s in disposition_skills(state)}
    if skill.lower() not in allowed:
        raise ActionError(
            _("This conflict's disposition tests {skills}.").format(
                skills=_(" or ").join(_(s) for s in disposition_skills(state))
            ),
            field="skill",
        )
    base = params.base.strip().lower() or disposition_bases(state)[0]
    if base not in disposition_bases(state):
        raise ActionError(
            _("This conflict's disposition adds {bases}.").format(
                bases=_(" or ").join(_(ABILITY_WORDS.get(b, b.title())) for b in disposition_bases(state))
            ),
            field="base",
        )
    plan = disposition_plan(
        state,
        team,
        sheet,
        params.model_copy(update={"skill": skill}),
        sheets,
        ctx.session_number,
        ctx.campaign_settings,
    )
    members = state.teams[team].members
    try:
        rolled = rabbits.disposition(
            dice,
            state.conflict,
            base=base,
            base_rating=sheet.abilities[base].rating,
            pool=plan.pool.dice,
            team_conditions=[list(sheets[cid].conditions) for cid in members],
        )
    except rabbits.RabbitRuleError as exc:
        raise ActionError(rule_message(exc), field=exc.field) from exc
    spend(sheet, plan, ctx.session_number)
    t = state.teams[team]
    # Fate comes after the roll (rabbits.en.md, "Rewards"): with a 6 and Fate in hand, the disposition waits for
    # the captain's choice (fate.py) before it is final.
    waiting = FATE_FACE in rolled.faces and sheet.fate >= 1
    t.put(
        base=base,
        roll={
            "skill": plan.label,
            "dice": plan.pool.dice,
            "breakdown": breakdown(plan),
            "faces": list(rolled.faces),
            "successes": rolled.successes,
            "base_rating": rolled.base_rating,
            "penalties": [list(p) for p in rolled.penalties],
            "note": rolled.note,
            "fate": waiting,
            "total": rolled.total,
        },
    )
    line = disposition_line(t, rolled)
    if waiting:
        line = join([line, msg("{name} may spend Fate on the 6s first.", name=ctx.character_name or "?")], " — ")
    say(state, line)
    if not waiting:
        line = join([line, *settle_disposition(state, team, rolled.total)], "; ")
    return Resolution(
        request={"version": params.version, "skill": skill, "base": base},
        summary=line,
        sheet=sheet,
        outcome={
            "team": team,
            "disposition": rolled.total,
            "faces": list(rolled.faces),
            "successes": rolled.successes,
            "penalties": [list(p) for p in rolled.penalties],
            "breakdown": breakdown(plan),
            "final": not waiting,
        },
        encounter={"state": state, "over": False},
    )


def disposition_line(t: Team, rolled: rabbits.Disposition) -> Summary:
    """The log's line for a disposition roll (also after Fate)."""
    penalties = join(
        [msg(" {n:+d} {condition}", n=points, condition=condition_word(name)) for name, points in rolled.penalties], ""
    )
    line = msg(
        "{team}: disposition {total} ({skill} {dice}D {faces} {hits} + {base} {rating}{penalties})",
        team=t.name,
        total=rolled.total,
        skill=(t.roll or {}).get("skill"),
        dice=(t.roll or {}).get("dice"),
        faces=faces_text(list(rolled.faces)),
        hits=rolled.successes,
        base=ability_word(rolled.base),
        rating=rolled.base_rating,
        penalties=penalties,
    )
    if rolled.note:
        raw = rolled.successes + rolled.base_rating + sum(points for _name, points in rolled.penalties)
        line = join([line, msg("Raised from {raw} to the minimum of 1 (ruling 7).", raw=raw)], " — ")
    return line


def settle_disposition(state: ConflictState, team: str, total: int) -> list[Summary]:
    """The team's disposition is final: its start, the spread, and the first volley once every team has one."""
    t = state.teams[team]
    t.put(start=total, disposition=total, spread=spread(total, t.members, t.captain), spread_by_hand=False)
    if all(state.teams[k].start is not None for k in team_keys(state)):
        state.phase = "script"
        paired = pair_free_teams(state)
        say(state, msg("Volley {n}: each team scripts its three actions in private.", n=state.volley))
        return paired
    return []


# --- spreading disposition by hand (the team) -----------------------------------------------------------------


class SpreadParams(BaseModel):
    encounter_id: int
    version: int
    # One share per member, in the team's order (a team has at most TEAM_MAX rabbits); text, so that anything
    # typed gets this step's own message next to the field.
    spread_1: str = Field(default="", max_length=4)
    spread_2: str = Field(default="", max_length=4)
    spread_3: str = Field(default="", max_length=4)


SPREAD_PHASES = ("disposition", "script", "resolve", "maneuver")


def resolve_spread(
    sheet: RabbitSheet, params: SpreadParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Issue 13, step 2: the team may spread its one disposition among its members for display. The captain or
    any of the team's players (the narrator for a narrator-run team) sets the shares; they must add up to the
    team's current disposition. Until then (and after "automatic") the captain takes the remainder."""
    state = step_state(ctx)
    team = team_of(state, ctx.character_id)
    if team is None:
        raise ActionError(_("That rabbit is not in this conflict."), field="character_id")
    t = state.teams[team]
    if ctx.actor_is_narrator and not t.narrator:
        raise ActionError(
            _("The players of {team} spread its disposition.").format(team=render(t.name)), field="character_id"
        )
    if state.phase not in SPREAD_PHASES or t.start is None:
        raise ActionError(
            _("The disposition can be spread once it is rolled, until the conflict ends."), field="encounter_id"
        )
    shares: dict[str, int] = {}
    for n, cid in enumerate(t.members, start=1):
        raw = getattr(params, f"spread_{n}").strip()
        if not (raw.isascii() and raw.isdigit()):
            raise ActionError(_("Give each rabbit a whole number of points, 0 or more."), field="spread")
        shares[str(cid)] = int(raw)
    if sum(shares.values()) != t.disposition:
        raise ActionError(
            _("The shares add up to {sum}; they must add up to the team's disposition, {n}.").format(
                sum=sum(shares.values()), n=t.disposition
            ),
            field="spread",
        )
    t.put(spread=shares, spread_by_hand=True)
    names = names_of(ctx.encounter or {"participants": []})
    line = say(
        state,
        msg(
            "{team} spreads its disposition: {shares}",
            team=t.name,
            shares=", ".join(f"{names.get(int(cid), '?')} {n}" for cid, n in shares.items()),
        ),
    )
    return Resolution(
        request={"version": params.version, "spread": shares},
        summary=line,
        outcome={"team": team, "spread": shares},
        encounter={"state": state, "over": False},
    )
