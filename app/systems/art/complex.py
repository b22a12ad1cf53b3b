"""Complex actions: a preset number of trait rolls, each step's successes (or failures) the bonus (or
penalty) on the next; Catastrophic on any step ends the whole action in disaster; the last step's result is
the outcome.

art-engine.md, ch. 3 "Complex Actions", "Sustained or Complex Action?". The open action is kept on the acting
character's sheet (sheet["complex"]); the trait roll takes its running modifier (rolling.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.i18n import Text, _, join, msg, msgn, retire
from app.rules.dice import Dice
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Resolution

from . import wording
from .sheet import ArtSheet, ready

MAX_STEPS = 12


class StartComplexParams(BaseModel):
    title: str = Field(default="", max_length=120)
    steps: int = Field(default=3, ge=2, le=MAX_STEPS)


class EndComplexParams(BaseModel):
    pass


def open_complex(sheet: ArtSheet) -> dict[str, Any] | None:
    """The complex action under way, if any (a finished one stays on the sheet until the next starts)."""
    found = sheet.complex
    return found if found and not found.get("over") else None


def resolve_start_complex(
    sheet: ArtSheet, params: StartComplexParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    if sheet.kind != "adventurer" or not ready(sheet):
        raise ActionError(_("Only an adventurer with attributes takes on a complex action."), field="title")
    title = " ".join(params.title.split())
    if not title:
        raise ActionError(_("Name the complex action (what all the steps achieve)."), field="title")
    running = open_complex(sheet)
    if running:
        raise ActionError(
            _("“{title}” is still under way: finish or abandon it first.").format(title=running["title"]), field="title"
        )
    sheet.complex = {
        "title": title,
        "steps": params.steps,
        "done": 0,
        "modifier": 0,
        "over": False,
        "outcome": None,
        "results": [],
    }
    return Resolution(
        request={"title": title, "steps": params.steps},
        outcome={"title": title, "steps": params.steps},
        summary=_starts(title=title, steps=params.steps),
        sheet=sheet,
    )


def resolve_end_complex(
    sheet: ArtSheet, params: EndComplexParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """Giving up before the last step: the action fails, the running modifier is gone."""
    running = open_complex(sheet)
    if not running:
        raise ActionError(_("No complex action is under way."), field="end_complex")
    running.update(over=True, modifier=0, outcome="abandoned")
    sheet.complex = running
    return Resolution(
        request={},
        outcome={"title": running["title"], "done": running["done"]},
        summary=_abandons(title=running["title"], done=running["done"], steps=running["steps"]),
        sheet=sheet,
    )


def record_step(sheet: ArtSheet, seq: int | None, result: Level, successes: int) -> Text:
    """Note one step's roll; returns the log's note. The modifier for the next step is this step's successes
    (negative: failures), not a sum: the worked example goes +2, then −2 after 2 failures."""
    running = open_complex(sheet)
    assert running is not None
    applied = running["modifier"]
    running["done"] += 1
    running["results"] = [*running["results"], {"seq": seq, "result": result.name, "successes": successes}]
    head = msg(
        "complex action {title}, step {done}/{steps}",
        title=running["title"],
        done=running["done"],
        steps=running["steps"],
    )
    if applied:
        head = join([head, msg(" ({change} from the last step)", change=f"{applied:+d}")], "")
    if result is Level.CT:
        running.update(over=True, modifier=0, outcome="disaster")
        text = msg("{head}: Catastrophic — the action ends in disaster", head=head)
    elif running["done"] >= running["steps"]:
        running.update(over=True, modifier=0, outcome=successes)
        text = msg(
            "{head}: the last step — the action ends with {label}", head=head, label=wording.outcome_words(successes)
        )
    else:
        running["modifier"] = successes
        text = msg("{head}; {change} on the next step", head=head, change=f"{successes:+d}")
    sheet.complex = running
    return text


def revise_step(sheet: ArtSheet, seq: int, successes: int) -> Text | str:
    """Fame spent after rolling on a step changes what it passes on (or the outcome, on the last step).
    A Catastrophic step has already ended the action in disaster: Fame after does not undo it."""
    found = sheet.complex
    if not found or not found.get("results") or found["results"][-1].get("seq") != seq:
        return ""
    if found.get("outcome") == "disaster":
        return msg("the disaster of {title} stands", title=found["title"])
    if found.get("outcome") == "abandoned":
        return ""
    found["results"][-1]["successes"] = successes
    if found.get("over"):
        found["outcome"] = successes
        text = msg("{title} now ends with {label}", title=found["title"], label=wording.outcome_words(successes))
    else:
        found["modifier"] = successes
        text = msg("{change} on the next step of {title}", change=f"{successes:+d}", title=found["title"])
    sheet.complex = found
    return text


def _starts(**a: Any) -> Text:
    return msgn(
        "starts a complex action: {title} ({n} step)",
        "starts a complex action: {title} ({n} steps)",
        a["steps"],
        title=a["title"],
    )


def _abandons(**a: Any) -> Text:
    return msgn(
        "abandons the complex action {title} after {done} of {n} step",
        "abandons the complex action {title} after {done} of {n} steps",
        a["steps"],
        title=a["title"],
        done=a["done"],
    )


# Entries logged before the counts had plural forms.
retire("starts a complex action: {title} ({steps} steps)", lambda a: _starts(**a))
retire("abandons the complex action {title} after {done} of {steps} steps", lambda a: _abandons(**a))
