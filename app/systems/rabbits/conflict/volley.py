"""One exchange of a volley: the revealed actions meet (the interaction table), the acting rabbits roll from
their phones (helpers, wises, traits, Persona, Nature as in ordinary tests; pools.py), and the result moves
disposition; a maneuver's margin buys its effects. rabbits.en.md, "Conflicts" (Actions, Action interactions,
Skills by conflict and action, Sample weapons); RULINGS.md, "Rabbits", ruling 4.
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
from app.systems.rabbits.conflict.end import finish, open_rest
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
    step_state,
    team_keys,
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
from app.systems.rabbits.sheet import dump, load, start_rewards
from app.systems.rabbits.versus import _versus_chances

ACTIONS_PER_VOLLEY = 3


def _base_pool(sheet: Mapping[str, Any] | None, skill: str) -> int | None:
    if sheet is None or not skill:
        return None
    try:
        return plan_pool(
            load(sheet),
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
    state: dict[str, Any],
    pair: list[str],
    index: int,
    sheets: Mapping[int, Mapping[str, Any]],
    mods: Mapping[str, dict[str, int]],
) -> dict[str, Any]:
    """Two opposing teams' revealed actions meet: the interaction table, who tests what, at what Ob."""
    x, y = pair
    steps = {key: state["teams"][key]["script"][index] for key in pair}
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
    _chances(ex)
    return ex


def _chances(ex: dict[str, Any]) -> None:
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


def open_exchange(state: dict[str, Any], ctx: Context, sheets: Mapping[int, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Step 7: reveal the next action of every team that has an opponent and look up, front by front, how they
    meet, who tests what, at what Ob. `sheets`: every participant's sheet as it is now (pools and chances)."""
    assert ctx.encounter is not None
    index = state["index"]
    fronts = fronts_of(state)
    acting = [key for key in team_keys(state) if in_front(state, key)]
    found = [opening(state, ctx.encounter["id"], index, key) for key in acting]
    # Impede and gain position apply to the team's next action (in each of its fronts).
    mods = {
        key: {
            "impede": -1 if state["teams"][key]["impede"] else 0,
            "position": 2 if state["teams"][key]["position"] else 0,
        }
        for key in acting
    }
    for key in acting:
        state["teams"][key].update(impede=0, position=0)
    found_exchanges = [_exchange(state, pair, index, sheets, mods) for pair in fronts]
    current = {**found_exchanges[0], "volley": state["volley"], "index": index}
    if len(found_exchanges) > 1:
        current["more"] = found_exchanges[1:]
    state["current"] = current
    state["phase"] = "resolve"
    for ex in exchanges(current):
        (x, y), sides = ex["teams"], ex["sides"]
        say(
            state,
            msg(
                "Volley {volley}, action {n}: {a} {action_a}, {b} {action_b} — {note}",
                volley=state["volley"],
                n=index + 1,
                a=state["teams"][x]["name"],
                action_a=action_word(sides[x]["action"]),
                b=state["teams"][y]["name"],
                action_b=action_word(sides[y]["action"]),
                note=ex["note"],
            ),
        )
    return found


def advance(
    state: dict[str, Any], ctx: Context, sheets: Mapping[int, Mapping[str, Any]], notes: list[Summary] | None = None
) -> list[dict[str, Any]]:
    """After an exchange: the next action, or (after the third, or when no front is left) a new volley to script
    (step 10); a team whose opponent is out faces another (pair_free_teams)."""
    state["index"] += 1
    if state["index"] < ACTIONS_PER_VOLLEY and fronts_of(state):
        return open_exchange(state, ctx, sheets)
    found: list[dict[str, Any]] = []
    if state["index"] < ACTIONS_PER_VOLLEY:
        assert ctx.encounter is not None
        found = open_rest(state, ctx.encounter["id"])
    state.update(index=0, volley=state["volley"] + 1, phase="script", current=None)
    for t in state["teams"].values():
        t.update(scripted=False, locked=False, script=None, salts=None, commitments=None, lock_seq=None)
    paired = pair_free_teams(state)
    if notes is not None:
        notes += paired
    say(state, msg("Volley {n}: each team scripts its three actions in private.", n=state["volley"]))
    return found


# --- rolling an action ----------------------------------------------------------------------------------------


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


def resolve_roll(sheet_data: dict[str, Any], params: RollParams, dice: Dice, ctx: Context) -> Resolution:
    """Step 8: the acting rabbit tests its action with the skill for the conflict and action."""
    state = step_state(ctx)
    current = state.get("current")
    if state["phase"] != "resolve" or current is None:
        raise ActionError(_("No action is waiting for a roll."), field="encounter_id")
    team = team_of(state, ctx.character_id)
    if team is None:
        raise ActionError(_("That rabbit is not in this conflict."), field="character_id")
    mine = [ex for ex in exchanges(current) if team in ex["sides"]]
    if not mine:
        raise ActionError(
            _("{team} has no opponent this volley: it waits.").format(team=render(state["teams"][team]["name"])),
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
    t = state["teams"][team]
    helpers = list(dict.fromkeys(params.helpers))
    if any(h not in t["members"] for h in helpers):
        raise ActionError(_("Only teammates can help."), field="helpers")
    if params.trait.strip() and params.trait.strip().lower() in {d.lower() for d in state["teams"][team]["disarmed"]}:
        raise ActionError(_("That trait was disarmed for the rest of the conflict."), field="trait")
    sheet = load(sheet_data)
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
        team=t["name"],
        action=action_word(side["action"]),
        skill=plan.label,
        pool=pool,
        faces=faces_text(list(faces)),
        n=hits,
    )
    say(state, rolled)
    assert ctx.character_id is not None
    sheets: dict[int, dict[str, Any]] = {cid: dict(s) for cid, s in ctx.others.items()}
    sheets[ctx.character_id] = dump(sheet)
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
            "current": _public(ex),
        },
        encounter={"state": state, "over": False},
    )


def _aid_opponent(state: dict[str, Any], ex: dict[str, Any], team: str, trait: str, dice: Dice) -> Summary:
    """A trait given to the opponent in a versus exchange: +2D to the other side. If it has not rolled, its pool
    grows (and the chances on both sides follow); if it has, the two dice are rolled now and join its roll."""
    key = opponent(ex, team)
    side, extra = ex["sides"][key], rabbits.TRAIT_USES["aids_opponent"].opponent_dice
    roll = ex["rolls"].get(key)
    names = {"team": state["teams"][team]["name"], "other": state["teams"][key]["name"], "trait": trait}
    if roll is None:
        side["mods"]["aided"] = extra
        if side["dice"] is not None:
            side["dice"] += extra
        _chances(ex)
        return say(state, msg("{team} gives {other} +2D with the trait {trait} (2 checks)", **names))
    added = rabbits.roll_pool(dice, extra)
    roll["faces"] = roll["faces"] + list(added)
    roll["dice"] += extra
    roll["breakdown"].append([msg(N_("Opponent's trait works for you")), extra])
    roll["successes"] = rabbits.successes(roll["faces"]) + roll.get("weapon_hits", 0)
    if "last" in roll:
        roll["last"]["faces"] = list(roll["faces"])
    return say(state, counts.aided(faces=faces_text(list(added)), n=roll["successes"], **names))


def settle_if_ready(
    state: dict[str, Any],
    ctx: Context,
    sheets: dict[int, dict[str, Any]],
) -> tuple[list[Summary], set[int], list[dict[str, Any]]]:
    """Each exchange whose testing sides have all rolled (and chosen about Fate and the wises) is settled; once
    every exchange of the action is, the next step."""
    current = state["current"]
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


def _public(current: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": current["kind"], "result": current.get("result")}


def after_exchange(
    state: dict[str, Any], ctx: Context, sheets: Mapping[int, Mapping[str, Any]], notes: list[Summary] | None = None
) -> list[dict[str, Any]]:
    """Step 8's stop: a side at 0 ends the conflict; a team at 0 ends its front (its unplayed actions, and those
    of an opponent left alone, are opened); else the maneuvers are spent, or the next action comes."""
    assert ctx.encounter is not None
    if side_out(state):
        return finish(state, ctx)
    found: list[dict[str, Any]] = []
    teams = state["teams"]
    out = [key for key in team_keys(state) if teams[key]["disposition"] == 0]
    if any(key in front for front in fronts_of(state) for key in out):
        state["fronts"] = [front for front in fronts_of(state) if not set(front) & set(out)]
        idle = [key for key in team_keys(state) if not in_front(state, key)]
        found = open_rest(state, ctx.encounter["id"], idle)
        for key in out:
            if teams[key].get("out") is None:
                teams[key]["out"] = state["volley"]
                line = say(state, msg("{team} is at 0 and out of the conflict.", team=teams[key]["name"]))
                if notes is not None:
                    notes.append(line)
    if state["pending"]:
        state["phase"] = "maneuver"
        return found
    return found + advance(state, ctx, sheets, notes)
