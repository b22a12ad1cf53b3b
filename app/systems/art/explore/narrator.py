"""The narrator's actions on the phase track (track.py): start a scene, set or raise the time scale, spend a
character's time without a roll, end the scene.

art-engine.md, ch. 4 "Setting the Scene", "Time Scale of Phases", "Rolling Again", "Movement During Phases";
RULINGS.md, ART Engine rulings 12, 29-32.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.i18n import Summary, _, msg, render
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.explore.models import ExplorationState
from app.systems.base import ActionError, Context, Resolution

from ..sheet import ArtSheet, ready
from .track import (
    MAX_ADVENTURERS,
    SCALE_WORDS,
    check_scale,
    clean,
    move_token,
    new_state,
    note,
    phase_words,
    scale_name,
    scene_ends,
    state_of,
    step,
    task_key,
    task_record,
    task_scale,
    to_act,
    token_of,
)


class StartExplorationParams(BaseModel):
    participants: list[int] = Field(default_factory=list, max_length=MAX_ADVENTURERS)
    title: str = Field(default="", max_length=120)
    scale: str = "minutes"


class ScaleParams(BaseModel):
    encounter_id: int
    version: int
    scale: str


class RaiseScaleParams(BaseModel):
    encounter_id: int
    version: int
    token: int
    task: str = Field(max_length=120)


class SpendTimeParams(BaseModel):
    encounter_id: int
    version: int
    token: int
    phases: int = Field(ge=1, le=art.TRACK_SQUARES)
    what: str = Field(default="", max_length=120)
    place: str = Field(default="", max_length=80)


class EndSceneParams(BaseModel):
    encounter_id: int
    version: int


def resolve_start(
    sheet: ArtSheet, params: StartExplorationParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The narrator sets the scene: every adventurer's token on the first square, the turn marker under it."""
    order = list(dict.fromkeys(params.participants))
    if not order:
        raise ActionError(_("Tick the adventurers who explore."), field="participants")
    for cid in order:
        if not ready(ctx.others[cid]):
            raise ActionError(
                _("{name} is not an adventurer with attributes.").format(name=ctx.other_names[cid]),
                field="participants",
            )
    scale = check_scale(params.scale)
    shown: Summary = clean(params.title) or msg("Exploration")  # made up: language-neutral (encounter_title)
    title = render(shown)
    state = new_state(ctx.other_names, order, scale)
    if not clean(params.title):
        state["title"] = shown
    names = ", ".join(ctx.other_names[cid] for cid in order)
    text = msg(
        "exploration scene '{title}' begins, scale {scale}: {names} on square 1",
        title=shown,
        scale=scale_name(scale),
        names=names,
    )
    note(state, text)
    participants = [{"character_id": cid, "side": "adventurer", "name": ctx.other_names[cid]} for cid in order]
    return Resolution(
        request={"participants": order, "title": title, "scale": scale},
        outcome={"scale": scale, "to_act": to_act(state)},
        summary=text,
        encounter={
            "kind": "exploration",
            "title": title,
            "participants": participants,
            "state": ExplorationState.model_validate(state),
            "over": False,
        },
    )


def resolve_scale(sheet: ArtSheet, params: ScaleParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Every action of the scene now takes phases of this scale (ch. 4, "Declaration of Intention")."""
    state = state_of(ctx)
    scale = check_scale(params.scale)
    if scale == state["scale"]:
        raise ActionError(_("The scale already is {scale}.").format(scale=_(SCALE_WORDS[scale])), field="scale")
    state["scale"] = scale
    return step(
        state,
        {"scale": scale, "version": params.version},
        msg("the time scale is now {scale}", scale=scale_name(scale)),
        outcome={"scale": scale},
    )


def resolve_raise(
    sheet: ArtSheet, params: RaiseScaleParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """A failed try with no penalty: the next try of that task takes the next longer scale, until the end of
    the gaming session (ch. 4, "Rolling Again"; ruling 32: nothing after decades)."""
    state = state_of(ctx)
    key = token_of(state, params.token)
    found = state["tokens"][key]
    action = found.get("action")
    if not action or action.get("outcome") != "fails" or task_key(key, action["task"]) != task_key(key, params.task):
        raise ActionError(_("Only the failed try a character made last can raise its task's scale."), field="task")
    if action.get("raised"):
        raise ActionError(_("That failed try has already raised the scale."), field="task")
    record = task_record(state, key, action["task"], ctx.session_number)
    current = task_scale(state, record, ctx.session_number)
    try:
        record["scale"] = art.raise_scale(current)
    except art.ArtRuleError as exc:
        raise ActionError(_("Decades is the longest scale: end the attempts instead."), field="task") from exc
    action["raised"] = True
    text = msg(
        "{name}'s next try at '{task}' takes {scale} (no penalty for failure: the scale goes up)",
        name=found["name"],
        task=action["task"],
        scale=msg(SCALE_WORDS[record["scale"]]),
    )
    return step(
        state,
        {"token": int(key), "task": action["task"], "version": params.version},
        text,
        outcome={"task": action["task"], "scale": record["scale"]},
    )


def resolve_spend_time(
    sheet: ArtSheet, params: SpendTimeParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """Time without a roll, as the narrator decides it: travel that needs no roll ("the narrator simply
    decides how long the travel takes"), or a character who does nothing until the scale changes."""
    state = state_of(ctx)
    key = token_of(state, params.token)
    found = state["tokens"][key]
    if found["at"] != state["now"]:
        raise ActionError(
            _("{name} is busy until phase {at}.").format(name=found["name"], at=found["at"]), field="token"
        )
    typed = clean(params.what)
    what = typed or "spends time"
    place = clean(params.place)
    start = state["now"]
    move_token(state, key, params.phases)
    found["action"] = {
        "task": what,
        "kind": "time",
        "outcome": "time",
        "from": start,
        "ends": found["at"],
        "spent": params.phases,
        "scale": state["scale"],
        "place": place,
    }
    if place:
        found["place"] = place
    doing: Summary = typed or msg("spends time")
    time = phase_words(state["scale"], params.phases)
    text = (
        msg("{name}: {what}, {time}, to {place}", name=found["name"], what=doing, time=time, place=place)
        if place
        else msg("{name}: {what}, {time}", name=found["name"], what=doing, time=time)
    )
    return step(
        state,
        {"token": int(key), "phases": params.phases, "what": what, "place": place, "version": params.version},
        text,
    )


def resolve_end(sheet: ArtSheet, params: EndSceneParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    state = state_of(ctx)
    state["over"] = True
    return step(state, {"version": params.version}, scene_ends(n=state["now"]))
