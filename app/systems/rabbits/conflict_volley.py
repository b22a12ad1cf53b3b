"""One exchange of a volley: the revealed actions meet (the interaction table), the acting rabbits roll from
their phones (helpers, wises, traits, Persona, Nature as in ordinary tests; pools.py), and the result moves
disposition; a maneuver's margin buys its effects. rabbits.en.md, "Conflicts" (Actions, Action interactions,
Skills by conflict and action, Sample weapons); RULINGS.md, "Rabbits", ruling 4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, join, msg, rule_message
from app.rules import rabbits
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, RecordingDice, Resolution
from app.systems.rabbits import outcome
from app.systems.rabbits.conflict import (
    EFFECT_WORDS,
    TEAMS,
    action_word,
    opening,
    other_team,
    percent,
    say,
    sheets_of,
    skill_options,
    step_state,
    team_of,
)
from app.systems.rabbits.conflict_disposition import set_disposition
from app.systems.rabbits.conflict_end import finish
from app.systems.rabbits.conflict_weapons import weapon_mods
from app.systems.rabbits.followups import open_follow_ups
from app.systems.rabbits.play import faces_text, record
from app.systems.rabbits.pools import (
    PoolChoices,
    breakdown,
    helper_conditions,
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
        return plan_pool(load(sheet), PoolChoices(skill=skill), settings={"turn": "gm"}, session=None,
                         helper_conditions=[], actor_is_narrator=True).pool.dice
    except ActionError:
        return None


def open_exchange(state: dict[str, Any], ctx: Context, sheets: Mapping[int, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Step 7: reveal the next action of every team and look up how they meet, who tests what, at what Ob.
    `sheets`: every participant's sheet as it is now (the pools and chances are read from them)."""
    assert ctx.encounter is not None
    index = state["index"]
    found = [opening(state, ctx.encounter["id"], index, key) for key in TEAMS]
    steps = {key: state["teams"][key]["script"][index] for key in TEAMS}
    plan = rabbits.exchange_plan(steps["a"]["action"], steps["b"]["action"])
    sides: dict[str, Any] = {}
    for key, tests, ob in (("a", plan.a_tests, plan.a_ob), ("b", plan.b_tests, plan.b_ob)):
        t = state["teams"][key]
        skills = list(skill_options(state, steps[key]["action"]))
        mods = {"impede": -1 if t["impede"] else 0, "position": 2 if t["position"] else 0}
        t["impede"], t["position"] = 0, 0
        base = _base_pool(sheets.get(steps[key]["member"]), skills[0] if skills else "")
        dice = None if base is None else max(0, base + mods["impede"] + mods["position"])
        sides[key] = {**steps[key], "tests": tests, "ob": ob, "skills": skills, "mods": mods, "dice": dice}
    for key in TEAMS:
        side, other = sides[key], sides[other_team(key)]
        if not side["tests"] or side["dice"] is None:
            continue
        if plan.versus and other["dice"] is not None:
            win, tie = _versus_chances(side["dice"], other["dice"])
            side["chance"] = {"win": percent(win), "tie": percent(tie)}
        elif not plan.versus:
            ob = side["ob"] or 0
            side["chance"] = {"pass": percent(rabbits.exact_pass_chance(side["dice"], ob)),
                              "fate": percent(rabbits.exact_pass_chance(side["dice"], ob, with_fate=True))}
    state["current"] = {"volley": state["volley"], "index": index, "kind": plan.kind, "versus": plan.versus,
                        "note": msg(plan.note), "sides": sides, "rolls": {}, "result": None}
    state["phase"] = "resolve"
    names = {key: state["teams"][key]["name"] for key in TEAMS}
    say(state, msg("Volley {volley}, action {n}: {a} {action_a}, {b} {action_b} — {note}", volley=state["volley"],
                   n=index + 1, a=names["a"], action_a=action_word(steps["a"]["action"]), b=names["b"],
                   action_b=action_word(steps["b"]["action"]), note=msg(plan.note)))
    return found


def advance(state: dict[str, Any], ctx: Context, sheets: Mapping[int, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """After an exchange: the next action, or (after the third) a new volley to script (step 10)."""
    state["index"] += 1
    if state["index"] < ACTIONS_PER_VOLLEY:
        return open_exchange(state, ctx, sheets)
    state.update(index=0, volley=state["volley"] + 1, phase="script", current=None)
    for t in state["teams"].values():
        t.update(scripted=False, locked=False, script=None, salts=None, commitments=None, lock_seq=None)
    say(state, msg("Volley {n}: each team scripts its three actions in private.", n=state["volley"]))
    return []


# --- rolling an action ----------------------------------------------------------------------------------------

class RollParams(PoolChoices):
    encounter_id: int
    version: int
    skill: str = Field(default="", max_length=40, title="Skill")
    weapon: str = Field(default="", max_length=30)
    # Shown with the odds only (the roll reads the state): the Ob or the opposing pool, and the dice the
    # state adds (impede, gain position).
    ob: int | None = Field(default=None, ge=0, le=20)
    against: int | None = Field(default=None, ge=0, le=40)
    mods: int = Field(default=0, ge=-5, le=5)
    conflict_action: str = Field(default="", max_length=10)


def _skill(side: Mapping[str, Any], raw: str) -> str:
    options = side["skills"]
    chosen = raw.strip() or (options[0] if options else "")
    if not chosen:
        raise ActionError(_("The sheet says \"see description\": name the skill or ability."), field="skill")
    if options and chosen.lower() not in {o.lower() for o in options}:
        raise ActionError(_("This action tests {skills}.").format(skills=_(" or ").join(_(o) for o in options)),
                          field="skill")
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
    side = current["sides"][team]
    if side["member"] != ctx.character_id:
        raise ActionError(_("This action is another rabbit's to roll."), field="character_id")
    if not side["tests"]:
        raise ActionError(_("This action does not test (see Feint)."), field="encounter_id")
    if team in current["rolls"]:
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
    plan = plan_pool(sheet, choices, settings={**ctx.campaign_settings, "turn": "gm"}, session=ctx.session_number,
                     helper_conditions=helper_conditions(helpers, ctx.others, ctx.other_names),
                     actor_is_narrator=True, versus=current["versus"], opponent_trait=bool(side["mods"].get("aided")))
    weapon = weapon_mods(state, params.weapon, side["action"], current["sides"][other_team(team)]["action"])
    pool, lines = _pool_lines(plan, side, weapon)
    recorder = RecordingDice(dice)
    faces = rabbits.roll_pool(recorder, pool)
    spend(sheet, plan, ctx.session_number)
    hits = rabbits.successes(faces) + weapon[1]
    last = record(sheet, plan, ctx, faces, side["ob"], kind="conflict")
    # Fate and the wise rerolls come after the roll (rabbits.en.md, "Rewards"; the parent game's wises): while one
    # of them can still follow the roll up, it waits for the roller's choice (conflict_fate.py) before the
    # exchange is settled.
    follow = open_follow_ups(sheet, last)
    current["rolls"][team] = {"member": ctx.character_id, "label": plan.label, "dice": pool, "breakdown": lines,
                              "faces": list(faces), "successes": hits, "weapon": weapon[2],
                              "weapon_hits": weapon[1], "fate": bool(follow), "open": follow, "last": last}
    aid = _aid_opponent(state, team, plan.trait or "", recorder) if plan.trait_use == "aids_opponent" else None
    rolled = (msg("{team}: {action} with {skill} ({pool}D) {faces} 1 success", team=t["name"],
                  action=action_word(side["action"]), skill=plan.label, pool=pool, faces=faces_text(list(faces)))
              if hits == 1 else
              msg("{team}: {action} with {skill} ({pool}D) {faces} {n} successes", team=t["name"],
                  action=action_word(side["action"]), skill=plan.label, pool=pool, faces=faces_text(list(faces)),
                  n=hits))
    say(state, rolled)
    assert ctx.character_id is not None
    sheets: dict[int, dict[str, Any]] = {cid: dict(s) for cid, s in ctx.others.items()}
    sheets[ctx.character_id] = dump(sheet)
    notes, changed, openings = settle_if_ready(state, ctx, sheets)
    line = join([rolled, *([aid] if aid else []), *notes], "; ")
    others = {cid: sheets[cid] for cid in changed if cid != ctx.character_id}
    return Resolution(request={"version": params.version, "skill": skill, "helpers": helpers,
                               "persona": params.persona, "weapon": weapon[2]},
                      dice=recorder.rolled, summary=line, sheet=sheets[ctx.character_id], others=others,
                      outcome={"team": team, "faces": list(faces), "successes": hits, "pool": pool,
                               "breakdown": lines, "openings": openings, "current": _public(current)},
                      encounter={"state": state, "over": False})


def _aid_opponent(state: dict[str, Any], team: str, trait: str, dice: Dice) -> Summary:
    """A trait given to the opponent in a versus exchange: +2D to the other side. If it has not rolled, its pool
    grows (and the chances on both sides follow); if it has, the two dice are rolled now and join its roll."""
    current = state["current"]
    key = other_team(team)
    side, extra = current["sides"][key], rabbits.TRAIT_USES["aids_opponent"].opponent_dice
    roll = current["rolls"].get(key)
    names = {"team": state["teams"][team]["name"], "other": state["teams"][key]["name"], "trait": trait}
    if roll is None:
        side["mods"]["aided"] = extra
        if side["dice"] is not None:
            side["dice"] += extra
        _versus_odds(current)
        return say(state, msg("{team} gives {other} +2D with the trait {trait} (2 checks)", **names))
    added = rabbits.roll_pool(dice, extra)
    roll["faces"] = roll["faces"] + list(added)
    roll["dice"] += extra
    roll["breakdown"].append([msg(N_("Opponent's trait works for you")), extra])
    roll["successes"] = rabbits.successes(roll["faces"]) + roll.get("weapon_hits", 0)
    if "last" in roll:
        roll["last"]["faces"] = list(roll["faces"])
    return say(state, msg("{team} gives {other} +2D with the trait {trait} (2 checks): {faces} → {n} successes",
                          faces=faces_text(list(added)), n=roll["successes"], **names))


def _versus_odds(current: dict[str, Any]) -> None:
    sides = current["sides"]
    for key in TEAMS:
        side, other = sides[key], sides[other_team(key)]
        if side["tests"] and side["dice"] is not None and other["dice"] is not None:
            win, tie = _versus_chances(side["dice"], other["dice"])
            side["chance"] = {"win": percent(win), "tie": percent(tie)}


def settle_if_ready(state: dict[str, Any], ctx: Context, sheets: dict[int, dict[str, Any]],
                    ) -> tuple[list[Summary], set[int], list[dict[str, Any]]]:
    """Once every testing side has rolled (and chosen about Fate): the result, then the next step."""
    current = state["current"]
    rolled = all(key in current["rolls"] for key, side in current["sides"].items() if side["tests"])
    if not rolled or any(roll.get("fate") for roll in current["rolls"].values()):
        return [], set(), []
    notes, changed = settle(state, sheets)
    say(state, msg("Action {n}: {notes}", n=current["index"] + 1, notes=join(notes, "; ")))
    return notes, changed, after_exchange(state, ctx, sheets)


def _public(current: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": current["kind"], "result": current.get("result")}


# --- the result of an exchange ------------------------------------------------------------------------------

def _effect(state: dict[str, Any], team: str, margin: int, notes: list[Summary]) -> None:
    """What a successful action does with its margin (rabbits.en.md, "Actions")."""
    current = state["current"]
    side = current["sides"][team]
    own, opp = state["teams"][team], state["teams"][other_team(team)]
    if margin <= 0:
        return
    if side["action"] in ("attack", "feint"):
        set_disposition(opp, max(0, opp["disposition"] - margin))
        notes.append(msg("{team} −{n} → {left}", team=opp["name"], n=margin, left=opp["disposition"]))
    elif side["action"] == "defend":
        gained = min(own["start"], own["disposition"] + margin) - own["disposition"]
        set_disposition(own, own["disposition"] + gained)
        notes.append(msg("{team} +{n} → {now} (at most its starting {start})", team=own["name"], n=gained,
                         now=own["disposition"], start=own["start"]))
    else:
        state["pending"].append({"team": team, "member": side["member"], "margin": margin})
        notes.append(msg("{team} maneuvers with a margin of {n}", team=own["name"], n=margin))


def settle(state: dict[str, Any], sheets: dict[int, dict[str, Any]]) -> tuple[list[Summary], set[int]]:
    """Both sides have rolled: versus (most successes wins, the margin to the winner's action) or independent
    (each action against its Ob). Ties in a conflict's versus test change nothing (documented)."""
    current = state["current"]
    rolls = current["rolls"]
    notes: list[Summary] = []
    results: dict[str, dict[str, Any]] = {}
    if current["versus"]:
        a, b = rolls["a"]["successes"], rolls["b"]["successes"]
        winner = "a" if a > b else "b" if b > a else None
        for key in TEAMS:
            results[key] = {"passed": None if winner is None else winner == key, "margin": abs(a - b)}
        if winner is None:
            notes.append(msg("a tie: neither side gains"))
        else:
            _effect(state, winner, abs(a - b), notes)
    else:
        for key in TEAMS:
            if key in rolls:
                ob = current["sides"][key]["ob"] or 0
                hits = rolls[key]["successes"]
                results[key] = {"passed": hits >= ob, "margin": abs(hits - ob)}
                if hits >= ob:
                    _effect(state, key, hits - ob, notes)
                else:
                    notes.append(msg("{team} failed Ob {ob}", team=state["teams"][key]["name"], ob=ob))
    current["result"] = results
    changed: set[int] = set()
    for key, roll in rolls.items():
        last = {**roll["last"], "passed": results[key]["passed"], "margin": results[key]["margin"]}
        cid = roll["member"]
        sheet = load(sheets[cid])
        notes += outcome.apply(sheet, last)
        sheets[cid] = dump(sheet)
        changed.add(cid)
        roll.pop("last", None)
    return notes or [msg("no change")], changed


def after_exchange(state: dict[str, Any], ctx: Context, sheets: Mapping[int, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Step 8's stop: a team at 0 ends the conflict; else the maneuvers are spent, or the next action comes."""
    if any(state["teams"][key]["disposition"] == 0 for key in TEAMS):
        return finish(state, ctx)
    if state["pending"]:
        state["phase"] = "maneuver"
        return []
    return advance(state, ctx, sheets)


# --- spending a maneuver -------------------------------------------------------------------------------------

class ManeuverParams(BaseModel):
    encounter_id: int
    version: int
    effects: list[str] = Field(default_factory=list, max_length=3)
    disarm: str = Field(default="", max_length=60, title="What is disarmed")


def resolve_maneuver(sheet_data: dict[str, Any], params: ManeuverParams, dice: Dice, ctx: Context) -> Resolution:
    """rabbits.en.md, "Maneuver": the margin buys effects, several if affordable, none twice: Impede (1, −1D to
    the opponent's next action), Gain position (2, +2D to your next action), Disarm (3)."""
    state = step_state(ctx)
    if state["phase"] != "maneuver" or not state["pending"]:
        raise ActionError(_("No maneuver is waiting to be spent."), field="encounter_id")
    pending = state["pending"][0]
    if not ctx.actor_is_narrator and ctx.character_id != pending["member"]:
        raise ActionError(_("The maneuvering rabbit spends its margin."), field="character_id")
    try:
        bought = rabbits.maneuver_effects(pending["margin"], [e.strip().lower() for e in params.effects])
    except rabbits.RabbitRuleError as exc:
        raise ActionError(rule_message(exc), field="effects") from exc
    own, opp = state["teams"][pending["team"]], state["teams"][other_team(pending["team"])]
    if "disarm" in bought:
        if not params.disarm.strip():
            raise ActionError(_("Say what is disarmed (a weapon, gear or a trait)."), field="disarm")
        opp["disarmed"].append(params.disarm.strip())
    if "impede" in bought:
        opp["impede"] = 1
    if "gain_position" in bought:
        own["position"] = 1
    state["pending"].pop(0)
    words: Summary = join([msg(EFFECT_WORDS[e]) if e in EFFECT_WORDS else e for e in bought]) if bought \
        else msg("nothing")
    if "disarm" in bought:
        words = msg("{effects} ({what})", effects=words, what=params.disarm.strip())
    line = say(state, msg("{team} spends its maneuver (margin {n}): {effects}", team=own["name"],
                          n=pending["margin"], effects=words))
    openings: list[dict[str, Any]] = []
    if not state["pending"]:
        openings = advance(state, ctx, sheets_of(sheet_data, ctx))
    return Resolution(request={"version": params.version, "effects": list(bought), "disarm": params.disarm.strip()},
                      dice=[], summary=line, outcome={"team": pending["team"], "effects": list(bought),
                                                      "openings": openings},
                      encounter={"state": state, "over": False})
