"""The scene's pins: placed, moved, renamed, revealed, hidden and removed by the narrators — each change a log
entry (kind "pin"), public while the pin is visible, the narrators' while it is hidden; players read visible
pins only."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.service import Access, in_campaign, require_narrator
from app.errors import BadRequest, NotFound
from app.handouts.models import Handout, ScenePin
from app.handouts.service import SCENE_EVENT, current_scene, log_change
from app.i18n import N_, _, msg
from app.inputs import text_problem
from app.rolls.appending import Publish, no_publish
from app.rolls.idempotency import Once, Replayed, earlier
from app.rolls.models import LogEntry
from app.rolls.visibility import Visibility

MAX_LABEL = 80


@dataclass
class PinChange:
    x: float | None = None
    y: float | None = None
    label: str | None = None
    visible: bool | None = None


def _coordinate(value: float, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise BadRequest(_("{name} must be a number from 0 to 1.").format(name=name), field=name)
    return float(value)


def _label(label: str) -> str:
    label = " ".join(label.split())
    problem = text_problem(label)
    if problem:
        raise BadRequest(f"{_('Label')}: {problem}.", field="label")
    if not 1 <= len(label) <= MAX_LABEL:
        raise BadRequest(_("A pin's label is 1 to 80 characters."), field="label")
    return label


def pins_of(db: Session, acc: Access, handout: Handout | None) -> list[ScenePin]:
    """The scene's pins this viewer may see: narrators all, players the visible ones."""
    if handout is None:
        return []
    query = select(ScenePin).where(ScenePin.campaign_id == acc.campaign.id, ScenePin.handout_id == handout.id)
    if not acc.is_narrator:
        query = query.where(ScenePin.visible.is_(True))
    return list(db.scalars(query.order_by(ScenePin.id)))


def pin_json(pin: ScenePin) -> dict[str, Any]:
    return {"id": pin.id, "x": pin.x, "y": pin.y, "label": pin.label, "visible": pin.visible}


def _pin_entry(
    db: Session,
    acc: Access,
    pin: ScenePin,
    action: str,
    publish: Publish,
    change: Callable[[int], object] | None,
    visible: bool,
    once: Once | None,
) -> LogEntry:
    """A pin's change on the log: public when the pin is (or was, for a removal) visible; else narrators only,
    until the pin is revealed (that entry is public and names it). `change` runs under the head lock; the
    summary and outcome are read after it, so they say what the pin is now."""
    summaries = {
        "create": N_("places the pin “{label}”"),
        "update": N_("moves or renames the pin “{label}”"),
        "reveal": N_("reveals the pin “{label}”"),
        "hide": N_("hides the pin “{label}”"),
        "delete": N_("removes the pin “{label}”"),
    }

    def apply(seq: int) -> None:
        if change is not None:
            change(seq)
        db.flush()
        outcome.update(
            pin_id=pin.id,
            handout_id=pin.handout_id,
            x=pin.x,
            y=pin.y,
            label=pin.label,
            visible=pin.visible if action != "delete" else False,
        )
        summary.update(msg(summaries[action], label=pin.label))
        if action == "delete":
            db.delete(pin)

    outcome: dict[str, Any] = {}
    summary: dict[str, Any] = {}
    entry = log_change(
        db,
        acc,
        kind="pin",
        action=action,
        summary=summary,
        outcome=outcome,
        visibility=Visibility.PUBLIC if visible else Visibility.NARRATOR,
        publish=publish,
        change=apply,
        once=once,
    )
    publish(acc.campaign.id, SCENE_EVENT, None)
    return entry


def create_pin(
    db: Session,
    acc: Access,
    x: float,
    y: float,
    label: str,
    visible: bool,
    publish: Publish = no_publish,
    once: Once | None = None,
) -> tuple[ScenePin, LogEntry]:
    require_narrator(acc)
    scene = current_scene(db, acc)
    if scene is None:
        raise BadRequest(_("Set a scene first: pins are placed on the scene's picture."), field="handout_id")
    pin = ScenePin(
        campaign_id=acc.campaign.id,
        handout_id=scene.id,
        x=_coordinate(x, "x"),
        y=_coordinate(y, "y"),
        label=_label(label),
        visible=bool(visible),
    )
    entry = _pin_entry(db, acc, pin, "create", publish, lambda _seq: db.add(pin), pin.visible, once)
    return pin, entry


def pin_of(db: Session, acc: Access, pin_id: int) -> ScenePin:
    pin = in_campaign(db, acc, ScenePin, pin_id, _("No such pin."))
    if not acc.is_narrator and not pin.visible:
        raise NotFound(_("No such pin."))
    return pin


def update_pin(
    db: Session, acc: Access, pin_id: int, change: PinChange, publish: Publish = no_publish, once: Once | None = None
) -> tuple[ScenePin, LogEntry]:
    require_narrator(acc)
    pin = pin_of(db, acc, pin_id)
    was_visible = pin.visible
    values: dict[str, Any] = {}
    if change.x is not None:
        values["x"] = _coordinate(change.x, "x")
    if change.y is not None:
        values["y"] = _coordinate(change.y, "y")
    if change.label is not None:
        values["label"] = _label(change.label)
    if change.visible is not None:
        values["visible"] = bool(change.visible)
    now_visible = values.get("visible", was_visible)
    action = "update"
    if now_visible and not was_visible:
        action = "reveal"
    elif was_visible and not now_visible:
        action = "hide"

    def apply(_seq: int) -> None:
        for name, value in values.items():
            setattr(pin, name, value)

    moved = {name: value for name, value in values.items() if name != "visible" and getattr(pin, name) != value}
    if action == "hide" and moved:
        # Hiding is public (players saw the pin go), and says only what they saw: the pin as it was. A new label
        # or place goes with the now hidden pin, in a narrators' entry after it (issue 35). The key is checked
        # first and goes on that last entry: a retry finds the pin hidden, and replays or finishes the move.
        first = earlier(db, acc, once)
        if first is not None:
            raise Replayed(first)
        _pin_entry(db, acc, pin, "hide", publish, lambda _seq: setattr(pin, "visible", False), True, None)
        values, action, was_visible = moved, "update", False
    # Hiding a visible pin is public (players saw it go); changes to a hidden pin stay with the narrators.
    entry = _pin_entry(db, acc, pin, action, publish, apply, now_visible or was_visible, once)
    return pin, entry


def delete_pin(
    db: Session, acc: Access, pin_id: int, publish: Publish = no_publish, once: Once | None = None
) -> LogEntry:
    require_narrator(acc)
    pin = pin_of(db, acc, pin_id)
    return _pin_entry(db, acc, pin, "delete", publish, None, pin.visible, once)


def pin_from_entry(entry: LogEntry) -> dict[str, Any]:
    """A pin as its entry recorded it (an idempotent replay answers this)."""
    out = entry.body.get("outcome") or {}
    return {
        "id": out.get("pin_id"),
        "x": out.get("x"),
        "y": out.get("y"),
        "label": out.get("label"),
        "visible": out.get("visible"),
    }
