"""What an adventurer does on the phase track: declare an action (a trait roll timed by the time rule), travel,
shadow or track someone (complex actions, complex.py), or let a phase go by. Which roll each makes, and its chance,
is plan.py.

art-engine.md, ch. 4 "Declaration of Intention", "How Long Did It Take?", "Rolling Again", "Setting Time
Limits", "Phase Track", "Influencing Another Character's Action", "Movement During Phases", "Shadowing",
"Tracking"; RULINGS.md, ART Engine rulings 4, 12, 29-32. The track itself is track.py.
"""

from __future__ import annotations

from typing import Any

from app.i18n import Summary, Text, _, join, msg, render, rule_message, sentence
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.base import ActionError, Context, Resolution

from .. import complex as complex_
from .. import core
from ..sheet import ArtSheet, table_of
from .plan import TRAVEL_SCALES, DeclareParams, Plan, chase_of, plan_roll, spec_of
from .track import (
    clean,
    move_token,
    phase_words,
    state_of,
    step,
    task_key,
    task_record,
    task_scale,
    to_act,
    token_of,
)

# --- declaring ---------------------------------------------------------------------------------------------


def _not_your_turn(state: dict[str, Any], key: str) -> ActionError:
    me = state["tokens"][key]
    who = ", ".join(state["tokens"][k]["name"] for k in to_act(state))
    return ActionError(
        _(
            "It is not {name}'s turn: their token is on square {square} and acts at phase {at}; the "
            "turn marker is on square {marker} (phase {now}), where {who} act."
        ).format(
            name=me["name"], square=me["square"] + 1, at=me["at"], marker=state["marker"] + 1, now=state["now"], who=who
        ),
        field="character_id",
    )


def _check_task(state: dict[str, Any], key: str, task: str, session: int | None) -> str:
    """A task aborted by its time limit, or a trail gone cold, waits for the next gaming session; a task whose
    scale a failed try raised waits for the scene to reach that scale (ch. 4, "Rolling Again", "Setting Time
    Limits", "Tracking")."""
    record = state["tasks"].get(task_key(key, task))
    if record and record.get("session") == session:
        if record.get("aborted"):
            raise ActionError(
                _("“{task}” was aborted: it cannot be tried again until the next gaming session.").format(task=task),
                field="task",
            )
        if record.get("cold"):
            raise ActionError(
                _("The trail has grown cold: “{task}” cannot be tried again this session.").format(task=task),
                field="task",
            )
    scale = task_scale(state, record, session)
    if scale != state["scale"]:
        raise ActionError(
            _(
                "“{task}” now takes {scale}: it can be tried again once the narrator sets the scene's scale to {scale}."
            ).format(task=task, scale=scale),
            field="task",
        )
    return scale


def _influence_target(state: dict[str, Any], key: str, params: DeclareParams) -> str | None:
    """Helping a character whose roll failed, or hindering one whose roll succeeded, while their action is
    still under way (ch. 4, "Influencing Another Character's Action")."""
    if params.influence_id is None:
        return None
    if params.kind != "action":
        raise ActionError(_("Only an ordinary action can help or hinder someone."), field="influence_id")
    target = token_of(state, params.influence_id, "influence_id")
    found = state["tokens"][target]
    action = found.get("action") or {}
    if target == key:
        raise ActionError(_("A character cannot help or hinder their own action."), field="influence_id")
    if found["at"] <= state["now"] or action.get("outcome") not in ("fails", "succeeds"):
        raise ActionError(
            _("{name} has no action under way to influence.").format(name=found["name"]), field="influence_id"
        )
    if action.get("influenced"):
        raise ActionError(
            _("{name}'s action has already been influenced.").format(name=found["name"]), field="influence_id"
        )
    wanted = "fails" if params.influence == "help" else "succeeds"
    outcome: str = action["outcome"]  # "fails", "succeeds", ...: the English word, translated here
    if outcome != wanted:
        raise ActionError(
            _("{name}'s roll {outcome}: help a failed roll, hinder a successful one.").format(
                name=found["name"], outcome=_(outcome)
            ),
            field="influence",
        )
    return target


def _record_task(state: dict[str, Any], key: str, task: str, session: int | None, **flags: Any) -> None:
    record = task_record(state, key, task, session)
    if flags.pop("failed", False):
        record["failures"] += 1
    record.update(flags)


def resolve_declare(sheet: ArtSheet, params: DeclareParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """One declared action of the adventurer whose token stands above the turn marker (server-enforced)."""
    state = state_of(ctx)
    key = token_of(state, ctx.character_id, "character_id")
    me = state["tokens"][key]
    if me["at"] != state["now"]:
        raise _not_your_turn(state, key)
    core.require_adventurer(sheet)
    now, request = state["now"], params.model_dump(exclude={"foe_level", "foe_levels"})
    if params.kind == "wait":
        move_token(state, key, 1)
        me["action"] = {
            "task": "waits",
            "kind": "wait",
            "outcome": "waits",
            "from": now,
            "ends": now + 1,
            "spent": 1,
            "scale": state["scale"],
        }
        return step(
            state, request, msg("{name} lets {time} go by", name=me["name"], time=phase_words(state["scale"], 1))
        )
    chase = chase_of(sheet)
    running = complex_.open_complex(sheet)
    if chase is not None and chase["explore"]["kind"] != params.kind:
        raise ActionError(
            _("“{title}” is under way: make its second roll (or abandon it on the sheet) first.").format(
                title=chase["title"]
            ),
            field="kind",
        )
    if params.kind in ("shadow", "track") and running is not None and chase is None:
        raise ActionError(
            _("“{title}” is still under way: finish or abandon it first.").format(title=running["title"]), field="kind"
        )
    task = _task_name(params, chase)
    scale = _check_task(state, key, task, ctx.session_number)
    if params.kind == "travel" and scale not in TRAVEL_SCALES:
        raise ActionError(
            _("A trip is rolled on a scale of hours, days or weeks: the narrator sets it first."), field="kind"
        )
    if params.limit is not None and params.kind == "shadow":
        raise ActionError(_("Shadowing lasts a phase per success: it takes no time limit."), field="limit")
    target = _influence_target(state, key, params)
    plan = plan_roll(sheet, params)  # before a new shadowing or tracking opens: its first roll
    if chase is None and params.kind in ("shadow", "track"):
        title = (_("Shadowing: {task}") if params.kind == "shadow" else _("Tracking: {task}")).format(task=task)
        sheet.complex = {
            "title": title,
            "steps": 2,
            "done": 0,
            "modifier": 0,
            "over": False,
            "outcome": None,
            "results": [],
            "explore": {"kind": params.kind, "mode": params.mode, "task": task, "successes": 0},
        }
    spec = spec_of(sheet, params, plan)
    rolled = core.roll_trait(sheet, spec, dice, table_of(ctx.campaign_settings))
    roll = rolled.roll
    words = core.describe(spec, rolled)
    action: dict[str, Any] = {
        "task": task,
        "kind": params.kind,
        "seq": ctx.seq,
        "attribute": plan.code,
        "difficulty": roll.difficulty.name,
        "result": roll.result.name,
        "from": now,
        "scale": scale,
        "limit": params.limit,
        "stage": plan.stage,
    }
    if params.kind in ("shadow", "track"):
        spent, said_text = _chase_roll(sheet, params, plan, roll, ctx.seq)
        said = render(said_text, "en")  # the outcome's key (and the log's outcome field) stays English
        if params.kind == "track" and said in ("loses the scent", "does not find the tracks"):
            _record_task(state, key, task, ctx.session_number, cold=True)
    else:
        spent, said_text = _timed(state, key, task, params, roll, ctx.session_number, action)
        said = render(said_text, "en")
    action.update(spent=spent, ends=now + spent, outcome=_outcome_word(said))
    if spent:
        said_text = msg(
            "{said}, {time}, until phase {phase}", said=said_text, time=phase_words(scale, spent), phase=now + spent
        )
    elif said not in ("keeps the target in sight", "finds the tracks"):
        said_text = msg("{said}, in no time: acts again this phase", said=said_text)
    parts: list[Summary] = [
        msg("{name}: {task} — {roll}; {said}", name=me["name"], task=task, roll=words, said=said_text)
    ]
    if target is not None:
        parts.append(_influence(state, target, params.influence, me["name"], action))
    text = join(parts, "; ") if len(parts) > 1 else parts[0]
    move_token(state, key, spent)
    me["action"] = action
    if params.kind == "travel" and action["outcome"] == "arrives":
        me["place"] = clean(params.destination)
    core.remember(sheet, ctx.seq, "explore_declare", spec, rolled, encounter_id=params.encounter_id)
    return step(
        state,
        request,
        text,
        sheet=sheet,
        outcome={
            **core.outcome_of(rolled),
            "task": task,
            "phases": spent,
            "said": said,
            "complex": dict(sheet.complex or {}) if params.kind in ("shadow", "track") else None,
        },
    )


def _task_name(params: DeclareParams, chase: dict[str, Any] | None) -> str:
    if chase is not None:
        return str(chase["explore"]["task"])
    task = clean(params.task)
    if params.kind == "travel":
        destination = clean(params.destination)
        if not destination:
            raise ActionError(_("Say where the trip goes."), field="destination")
        return task or _("travel to {place}").format(place=destination)
    if not task:
        raise ActionError(_("Say what your character does (or whom they follow)."), field="task")
    return task


def _timed(
    state: dict[str, Any],
    key: str,
    task: str,
    params: DeclareParams,
    roll: art.TraitRoll,
    session: int | None,
    action: dict[str, Any],
) -> tuple[int, Text]:
    """The time rule with the player's time limit (art.timed_action); an aborted task waits for the next
    gaming session (ruling 30), a failure is counted for the narrator's scale raise."""
    try:
        timed = art.timed_action(roll.result, roll.difficulty, limit=params.limit)
    except art.ArtRuleError as exc:
        raise ActionError(sentence(rule_message(exc)), field="limit") from exc
    action.update(phases=timed.phases, again=timed.again)
    if timed.aborted:
        _record_task(state, key, task, session, aborted=True)
        return timed.spent, msg(
            "aborted at the time limit of {limit} (it would take {phases})", limit=params.limit, phases=timed.phases
        )
    if params.kind == "travel":
        return timed.spent, msg("arrives at {place}", place=clean(params.destination))
    if not timed.succeeded:
        _record_task(state, key, task, session, failed=True)
        return timed.spent, msg("fails")
    return timed.spent, msg("succeeds")


def _chase_roll(
    sheet: ArtSheet, params: DeclareParams, plan: Plan, roll: art.TraitRoll, seq: int | None
) -> tuple[int, Text]:
    """Shadowing and tracking, two rolls of a complex action (complex.record_step): the first in the phase it
    is declared, the second timed; a Catastrophic roll ends either in disaster (ch. 3, "Complex Actions")."""
    chase = chase_of(sheet)
    assert chase is not None
    complex_.record_step(sheet, seq, roll.result, roll.successes)
    running = sheet.complex or {}
    failures = max(0, -roll.successes)
    if running.get("outcome") == "disaster":
        return failures, msg("Catastrophic: ends in disaster")
    if plan.stage == 1:
        if params.kind == "track":
            if roll.successes <= 0:  # "On a failed roll you do not find the tracks"
                running.update(over=True, modifier=0, outcome=roll.successes)
                return failures, msg("does not find the tracks")
            # The successes make the next roll easier (Super −1 each), not a trait bonus.
            running["modifier"] = 0
            running["explore"] = {**running["explore"], "successes": roll.successes}
            return 0, msg("finds the tracks")
        return 0, msg("keeps the target in sight")
    if params.kind == "shadow":
        followed = art.shadow(roll.result, roll.difficulty)
        if followed.outcome == "following":
            return followed.phases, msg("follows unnoticed")
        return failures, msg("loses the target") if followed.outcome == "lost" else msg("is spotted by the target")
    timed = art.timed_action(roll.result, roll.difficulty, limit=params.limit)
    if timed.aborted:
        return timed.spent, msg("aborted at the time limit of {limit}", limit=params.limit)
    return timed.spent, msg("catches up with the target") if timed.succeeded else msg("loses the scent")


OUTCOMES = {
    "succeeds": "succeeds",
    "fails": "fails",
    "follows unnoticed": "following",
    "loses the target": "lost",
    "is spotted by the target": "spotted",
    "finds the tracks": "on the trail",
    "keeps the target in sight": "in sight",
    "does not find the tracks": "fails",
    "catches up with the target": "succeeds",
    "loses the scent": "fails",
}


def _outcome_word(said: str) -> str:
    if said.startswith("aborted"):
        return "aborted"
    if said.startswith("arrives"):
        return "arrives"
    if said.startswith("Catastrophic"):
        return "disaster"
    return OUTCOMES.get(said, said)


def _influence(state: dict[str, Any], target: str, mode: str, name: str, action: dict[str, Any]) -> Text:
    """The influence lands if this action succeeds and is complete before the target's (ch. 4)."""
    other = state["tokens"][target]
    theirs = other["action"]
    mine_ends = action["ends"]
    if action.get("outcome") != "succeeds":
        return (
            msg("cannot help {name}", name=other["name"])
            if mode == "help"
            else msg("cannot hinder {name}", name=other["name"])
        )
    if mine_ends >= theirs["ends"]:
        return (
            msg("too late to help {name}, whose action ends at phase {phase}", name=other["name"], phase=theirs["ends"])
            if mode == "help"
            else msg(
                "too late to hinder {name}, whose action ends at phase {phase}",
                name=other["name"],
                phase=theirs["ends"],
            )
        )
    theirs["influenced"] = {"by": name, "mode": mode, "at": mine_ends}
    theirs["outcome"] = "helped" if mode == "help" else "hindered"
    action["influence"] = {"target": other["name"], "mode": mode, "at": mine_ends}
    if mode == "help":
        return msg(
            "reaches {name} at phase {phase}, before their action ends: their failure is stopped",
            name=other["name"],
            phase=mine_ends,
        )
    return msg("gets in {name}'s way at phase {phase}: their success is spoiled", name=other["name"], phase=mine_ends)
