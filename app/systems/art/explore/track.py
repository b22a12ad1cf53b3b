"""Exploration scenes as encounters: the phase track, its state and the words for its time. The narrator's
actions on it are in narrator.py, the players' in declare.py.

art-engine.md, ch. 4 "Setting the Scene", "Declaration of Intention", "Time Scale of Phases", "Rolling Again",
"Phase Track", "Movement During Phases"; RULINGS.md, ART Engine rulings 12, 29-32.

The state, as stored (every key plain JSON):
  scale        the scene's time scale (art.PHASE_SCALES); every declared action uses it
  now          the turn marker's phase, counted from the scene's start (its square is now % 10)
  marker       the turn marker's square (0..9)
  order        the adventurers' ids (str), in the order the narrator listed them
  tokens       id -> {name, at (the phase its token stands on, lap included), square, place, action}
  tasks        "<id>|<task>" -> {task, scale, session, aborted, failures}: a task's raised scale and its
               time-limit abort, both kept until the end of the gaming session
  recent       the last steps in words, newest first (the log has them all)
A token may act when its `at` equals `now`. Counting phases with laps (not only squares) is what tells a
token that just took ten phases (ruling 31: the same square, one lap later) from one that is still to act.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.i18n import N_, Summary, Text, _, join, msg, msgn, retire
from app.systems.art import rules as art
from app.systems.art.explore.models import ExplorationState
from app.systems.base import ActionError, Context, Resolution

from ..sheet import ArtSheet

SCALES = tuple(art.PHASE_SCALES)

# Where ch. 4 leaves the table to decide, how the server decides (listed on /help with the other rulings).
EXPLORATION_RULINGS: tuple[str, ...] = (
    N_(
        "Exploration phases: the narrator starts a scene on the ART page; every adventurer's token starts on square 1 "
        "above the turn marker. Only the characters whose token is on the marker's phase may declare (the server "
        "counts phases with laps, so a 10-phase action comes back to its square a lap later). Once nobody is left to "
        "act there, the marker moves by itself to the next square with a token."
    ),
    N_(
        "A declared action is a trait roll timed by ruling 12; Awesome takes no time and the player declares again on "
        "the same phase. A time limit aborts an action that would take longer: the character is busy for the limit and "
        "that task (by its name) cannot be declared again until the next gaming session."
    ),
    N_(
        "Rolling again: the narrator decides there was no penalty and raises the failed task's scale (one button per "
        "failed try); that task's next try waits until the scene's scale is at least as long, for the rest of the "
        "gaming session."
    ),
    N_(
        "Influencing: help an action whose roll failed or hinder one that succeeded, while it is under way; it works "
        "only if your own action succeeds and ends strictly before theirs. Their action is then marked helped (the "
        "failure is stopped) or hindered (the success spoiled); what follows is the narrator's."
    ),
    N_(
        "Travel during phases: Stamina on foot, Strength mounted, Craft driving, against Catastrophic, on hours, days "
        "or weeks: one phase per column under Awesome. Travel without a roll is the narrator's 'spend time' button."
    ),
    N_(
        "Shadowing and tracking are two-roll complex actions on the sheet. The first roll (Alertness) takes no time. "
        "Shadowing: the first roll's successes or failures count on the second; following lasts a phase per success, "
        "losing or being spotted costs a phase per failure. Tracking: the first roll's successes lower the second "
        "roll's difficulty (Super −1 each) instead; a failed roll on either step makes the trail cold for the session."
    ),
    N_("Fame after rolling is not offered on a phase-track roll (its token has already moved): spend Fame before."),
)
RECENT = 8
MAX_ADVENTURERS = 12


# --- the state ---------------------------------------------------------------------------------------------


def clean(text: str) -> str:
    return " ".join(text.split())


def task_key(token: str, task: str) -> str:
    return f"{token}|{clean(task).casefold()}"


SCALE_WORDS = {
    "minutes": N_("minutes"),
    "hours": N_("hours"),
    "days": N_("days"),
    "weeks": N_("weeks"),
    "months": N_("months"),
    "years": N_("years"),
    "decades": N_("decades"),
}
# A span of game time in the reader's plural form: "1 hour", "15 minutes".
TIME_WORDS: dict[str, Callable[[int], Text]] = {
    "minutes": lambda n: msgn("{n} minute", "{n} minutes", n),
    "hours": lambda n: msgn("{n} hour", "{n} hours", n),
    "days": lambda n: msgn("{n} day", "{n} days", n),
    "weeks": lambda n: msgn("{n} week", "{n} weeks", n),
    "months": lambda n: msgn("{n} month", "{n} months", n),
    "years": lambda n: msgn("{n} year", "{n} years", n),
}


def time_words(amount: int, unit: str) -> Text:
    return TIME_WORDS[unit](amount)


def scale_name(scale: str) -> Text:
    amount, unit = art.PHASE_SCALES[scale]
    word = msg(SCALE_WORDS[scale])
    return msg("{scale} ({time} a phase)", scale=word, time=time_words(amount, unit)) if amount != 1 else word


def phase_words(scale: str, phases: int) -> Text:
    """ "3 phases (15 minutes)" — game time by the scale (art.phase_time)."""
    amount, unit = art.phase_time(scale, phases)
    time = time_words(amount, unit)
    return msgn("{n} phase ({time})", "{n} phases ({time})", phases, time=time)


def scene_ends(**a: Any) -> Text:
    return msgn("the exploration scene ends after {n} phase", "the exploration scene ends after {n} phases", a["n"])


# Entries logged before the counts had plural forms (one msgid per form).
def _retire_time(unit: str) -> None:
    def build(a: Mapping[str, Any]) -> Text:
        return TIME_WORDS[unit](a["n"])

    retire("{n} " + unit[:-1], build)  # "{n} minute"
    retire("{n} " + unit, build)


for _unit in TIME_WORDS:
    _retire_time(_unit)
retire("1 phase ({time})", lambda a: msgn("{n} phase ({time})", "{n} phases ({time})", 1, time=a["time"]))
retire("{n} phases ({time})", lambda a: msgn("{n} phase ({time})", "{n} phases ({time})", a["n"], time=a["time"]))
retire("the exploration scene ends after {n} phases", lambda a: scene_ends(**a))


def copy_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A deep enough copy to change: the tokens, their actions and the tasks are new dicts."""
    new = dict(state)
    new["tokens"] = {
        k: {**v, "action": dict(v["action"]) if v.get("action") else None} for k, v in state["tokens"].items()
    }
    new["tasks"] = {k: dict(v) for k, v in state.get("tasks", {}).items()}
    new["recent"] = list(state.get("recent", []))
    return new


def note(state: dict[str, Any], text: Summary) -> None:
    """A step in words on the track's recent list (language-neutral: the page shows it with `| tr`)."""
    state["recent"] = ([{"phase": state["now"], "square": state["marker"], "text": text}] + state["recent"])[:RECENT]


def to_act(state: Mapping[str, Any]) -> list[str]:
    """Whose tokens stand above the turn marker: they declare now (ch. 4, "Phase Track")."""
    return [k for k in state["order"] if state["tokens"][k]["at"] == state["now"]]


def move_token(state: dict[str, Any], token: str, phases: int) -> None:
    """One square right per phase, wrapping (art.advance_token); `at` keeps the lap."""
    found = state["tokens"][token]
    found["square"] = art.advance_token(found["square"], phases)
    found["at"] += phases


def advance_marker(state: dict[str, Any]) -> Summary:
    """Once nobody is left to act on the marker's phase, the marker moves to the next square holding a token
    (art.next_turn_marker); returns the log's words for it, or "" if someone still acts on this phase."""
    if state.get("over") or to_act(state):
        return ""
    squares = [t["square"] for t in state["tokens"].values()]
    new = art.next_turn_marker(squares, state["marker"])
    state["now"] += (new - state["marker"] - 1) % art.TRACK_SQUARES + 1
    state["marker"] = new
    names = ", ".join(state["tokens"][k]["name"] for k in to_act(state))
    return msg(
        "the turn marker moves to square {square} (phase {phase}): {names} to act",
        square=new + 1,
        phase=state["now"],
        names=names,
    )


def new_state(names: Mapping[int, str], order: list[int], scale: str) -> dict[str, Any]:
    tokens = {str(cid): {"name": names[cid], "at": 0, "square": 0, "place": "", "action": None} for cid in order}
    return {
        "scene": "exploration",
        "scale": scale,
        "scales": list(SCALES),
        "now": 0,
        "marker": 0,
        "order": [str(cid) for cid in order],
        "tokens": tokens,
        "tasks": {},
        "recent": [],
        "over": False,
    }


def check_scale(scale: str, field: str = "scale") -> str:
    if scale not in art.PHASE_SCALES:
        raise ActionError(_("Choose a time scale: {scales}.").format(scales=", ".join(SCALES)), field=field)
    return scale


def state_of(ctx: Context[ArtSheet]) -> dict[str, Any]:
    encounter = ctx.encounter
    assert encounter is not None  # a step always has its encounter
    if encounter.get("kind") != "exploration":
        raise ActionError(_("That is not an exploration scene."), field="move")
    found: ExplorationState = encounter["state"]  # the kind's model (app/systems/art/__init__.py)
    state = copy_state(found.stored())
    if state.get("over"):
        raise ActionError(_("This exploration scene is over."), field="move")
    return state


def token_of(state: Mapping[str, Any], token: int | None, field: str = "token") -> str:
    key = str(token)
    if key not in state["tokens"]:
        raise ActionError(_("That character is not on this phase track."), field=field)
    return key


def step(
    state: dict[str, Any],
    request: dict[str, Any],
    text: Summary,
    *,
    sheet: ArtSheet | None = None,
    outcome: dict[str, Any] | None = None,
) -> Resolution[ArtSheet]:
    """A step's entry: its words on the track's recent list and in the log, the track after it."""
    marker = advance_marker(state)
    summary = join([text, marker], "; ") if marker else text
    note(state, summary)
    return Resolution(
        request=request,
        summary=summary,
        sheet=sheet,
        outcome={**(outcome or {}), "now": state["now"], "marker": state["marker"], "to_act": to_act(state)},
        encounter={"state": ExplorationState.model_validate(state), "over": bool(state.get("over"))},
    )


def task_record(state: dict[str, Any], token: str, task: str, session: int | None) -> dict[str, Any]:
    """The task's record for this gaming session: a raise or an abort from an earlier session is over."""
    record: dict[str, Any] = state["tasks"].setdefault(task_key(token, task), {"task": task, "failures": 0})
    if record.get("session") != session:
        record.update(session=session, aborted=False, cold=False, failures=0)
        record.pop("scale", None)
    return record


def task_scale(state: Mapping[str, Any], record: Mapping[str, Any] | None, session: int | None) -> str:
    """The scale a task takes now: the scene's, or a longer one a failed try raised this gaming session."""
    scene: str = state["scale"]
    if not record or "scale" not in record or record.get("session") != session:
        return scene
    raised: str = record["scale"]
    return max(scene, raised, key=SCALES.index)
