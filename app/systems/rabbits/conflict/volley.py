"""Rolling an action of an exchange (exchange.py opens the exchanges): the acting rabbit's pool from its phone
(helpers, wises, traits, Persona, Nature as in ordinary tests; pools.py), the weapon's dice, a trait given to
the opponent, and the roll's record. rabbits.en.md, "Conflicts" (Actions, Skills by conflict and action, Sample
weapons); RULINGS.md, "Rabbits", ruling 4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg, render
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import counts
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.exchange import chances, exchanges, public_exchange, settle_if_ready
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.result import opponent
from app.systems.rabbits.conflict.state import (
    action_word,
    say,
    step_state,
    team_of,
)
from app.systems.rabbits.conflict.weapons import weapon_mods
from app.systems.rabbits.followups import open_follow_ups
from app.systems.rabbits.play import faces_text, record
from app.systems.rabbits.pools import (
    PoolChoices,
    breakdown,
    helper_conditions,
    helper_names,
    plan_pool,
    spend,
)
from app.systems.rabbits.sheet import RabbitSheet, start_rewards


class RollParams(PoolChoices):
    encounter_id: int
    version: int
    skill: str = Field(default="", max_length=40, title=N_("Skill"))
    weapon: str = Field(default="", max_length=30)
    front: int | None = Field(default=None, ge=0, le=9)  # which exchange, for a team facing two
    # Shown with the odds only (the roll reads the state): the Ob or the opposing pool, and the dice the
    # state adds (impede, gain position).
    ob: int | None = Field(default=None, ge=0, le=20)
    against: int | None = Field(default=None, ge=0, le=40)
    mods: int = Field(default=0, ge=-5, le=5)
    conflict_action: str = Field(default="", max_length=10)
    mode: str = Field(default="", max_length=5)  # the Halberd's scripted mode, for the odds (ruling 11)


def _skill(side: Mapping[str, Any], raw: str) -> str:
    options = side["skills"]
    chosen = raw.strip() or (options[0] if options else "")
    if not chosen:
        raise ActionError(_('The sheet says "see description": name the skill or ability.'), field="skill")
    if options and chosen.lower() not in {o.lower() for o in options}:
        raise ActionError(
            _("This action tests {skills}.").format(skills=_(" or ").join(_(o) for o in options)), field="skill"
        )
    return chosen


def _pool_lines(plan: Any, side: Mapping[str, Any], weapon: tuple[int, int, str]) -> tuple[int, list[list[Any]]]:
    lines = breakdown(plan)
    if side["mods"]["impede"]:
        lines.append([msg(N_("Impeded")), side["mods"]["impede"]])
    if side["mods"]["position"]:
        lines.append([msg(N_("Gained position")), side["mods"]["position"]])
    if weapon[0]:
        lines.append([msg(weapon[2]), weapon[0]])
    total = sum(dice for _, dice in lines)
    if total < 0:
        lines.append([msg(N_("No fewer than 0 dice")), -total])
    return max(0, total), lines


def resolve_roll(
    sheet: RabbitSheet, params: RollParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Step 8: the acting rabbit tests its action with the skill for the conflict and action."""
    state = step_state(ctx)
    current = state.current
    if state.phase != "resolve" or current is None:
        raise ActionError(_("No action is waiting for a roll."), field="encounter_id")
    team = team_of(state, ctx.character_id)
    if team is None:
        raise ActionError(_("That rabbit is not in this conflict."), field="character_id")
    mine = [ex for ex in exchanges(current) if team in ex["sides"]]
    if not mine:
        raise ActionError(
            _("{team} has no opponent this volley: it waits.").format(team=render(state.teams[team].name)),
            field="character_id",
        )
    # A team facing two opposing teams meets each with the same action and rolls it in each (`front`).
    if params.front is not None:
        if params.front >= len(exchanges(current)) or team not in exchanges(current)[params.front]["sides"]:
            raise ActionError(_("That team is not in that exchange."), field="front")
        ex = exchanges(current)[params.front]
    else:
        ex = next((e for e in mine if team not in e["rolls"] and e["sides"][team]["tests"]), mine[0])
    side = ex["sides"][team]
    other = opponent(ex, team)
    if side["member"] != ctx.character_id:
        raise ActionError(_("This action is another rabbit's to roll."), field="character_id")
    if not side["tests"]:
        raise ActionError(_("This action does not test (see Feint)."), field="encounter_id")
    if team in ex["rolls"]:
        raise ActionError(_("This action has been rolled."), field="encounter_id")
    t = state.teams[team]
    helpers = list(dict.fromkeys(params.helpers))
    if any(h not in t.members for h in helpers):
        raise ActionError(_("Only teammates can help."), field="helpers")
    if params.trait.strip() and params.trait.strip().lower() in {d.lower() for d in state.teams[team].disarmed}:
        raise ActionError(_("That trait was disarmed for the rest of the conflict."), field="trait")
    start_rewards(sheet, ctx.campaign_settings)
    skill = _skill(side, params.skill)
    choices = params.model_copy(update={"skill": skill, "helpers": helpers})
    # A trait given to the opponent (+2D to them, 2 checks earned; versus tests only — plan_pool says so), and the
    # dice an opponent's trait gave this side (the ordinary versus test's opponent_trait).
    plan = plan_pool(
        sheet,
        choices,
        settings={**ctx.campaign_settings, "turn": "gm"},
        session=ctx.session_number,
        helper_conditions=helper_conditions(helpers, ctx.others, ctx.other_names),
        helper_names=helper_names(helpers, ctx.other_names),
        actor_is_narrator=True,
        versus=ex["versus"],
        opponent_trait=bool(side["mods"].get("aided")),
    )
    weapon = weapon_mods(state, params.weapon, side["action"], ex["sides"][other]["action"], side.get("mode", ""))
    pool, lines = _pool_lines(plan, side, weapon)
    faces = rabbits.roll_pool(dice, pool)
    spend(sheet, plan, ctx.session_number)
    hits = rabbits.successes(faces) + weapon[1]
    last = record(sheet, plan, ctx, faces, side["ob"], kind="conflict")
    # Fate and the wise rerolls come after the roll (rabbits.en.md, "Rewards"; the parent game's wises): while one
    # of them can still follow the roll up, it waits for the roller's choice (fate.py) before the
    # exchange is settled.
    follow = open_follow_ups(sheet, last)
    ex["rolls"][team] = {
        "member": ctx.character_id,
        "label": plan.label,
        "dice": pool,
        "breakdown": lines,
        "faces": list(faces),
        "successes": hits,
        "weapon": weapon[2],
        "weapon_hits": weapon[1],
        "fate": bool(follow),
        "open": follow,
        "last": last,
    }
    aid = _aid_opponent(state, ex, team, plan.trait or "", dice) if plan.trait_use == "aids_opponent" else None
    rolled = counts.rolled(
        team=t.name,
        action=action_word(side["action"]),
        skill=plan.label,
        pool=pool,
        faces=faces_text(list(faces)),
        n=hits,
    )
    say(state, rolled)
    assert ctx.character_id is not None
    sheets: dict[int, RabbitSheet] = dict(ctx.others)
    sheets[ctx.character_id] = sheet
    notes, changed, openings = settle_if_ready(state, ctx, sheets)
    line = join([rolled, *([aid] if aid else []), *notes], "; ")
    others = {cid: sheets[cid] for cid in changed if cid != ctx.character_id}
    return Resolution(
        request={
            "version": params.version,
            "skill": skill,
            "helpers": helpers,
            "persona": params.persona,
            "weapon": weapon[2],
        },
        summary=line,
        sheet=sheets[ctx.character_id],
        others=others,
        outcome={
            "team": team,
            "faces": list(faces),
            "successes": hits,
            "pool": pool,
            "breakdown": lines,
            "openings": openings,
            "current": public_exchange(ex),
        },
        encounter={"state": state, "over": False},
    )


def _aid_opponent(state: ConflictState, ex: dict[str, Any], team: str, trait: str, dice: Dice) -> Summary:
    """A trait given to the opponent in a versus exchange: +2D to the other side. If it has not rolled, its pool
    grows (and the chances on both sides follow); if it has, the two dice are rolled now and join its roll."""
    key = opponent(ex, team)
    side, extra = ex["sides"][key], rabbits.TRAIT_USES["aids_opponent"].opponent_dice
    roll = ex["rolls"].get(key)
    names = {"team": state.teams[team].name, "other": state.teams[key].name, "trait": trait}
    if roll is None:
        side["mods"]["aided"] = extra
        if side["dice"] is not None:
            side["dice"] += extra
        chances(ex)
        return say(state, msg("{team} gives {other} +2D with the trait {trait} (2 checks)", **names))
    added = rabbits.roll_pool(dice, extra)
    roll["faces"] = roll["faces"] + list(added)
    roll["dice"] += extra
    roll["breakdown"].append([msg(N_("Opponent's trait works for you")), extra])
    roll["successes"] = rabbits.successes(roll["faces"]) + roll.get("weapon_hits", 0)
    if "last" in roll:
        roll["last"]["faces"] = list(roll["faces"])
    return say(state, counts.aided(faces=faces_text(list(added)), n=roll["successes"], **names))
