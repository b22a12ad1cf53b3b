"""The dice of a log entry as a reader sees them: each face with what it meant (dropped, exploded, counted as a
success, a critical, rerolled, a system's own marks), read from what the entry recorded (`dice`, `outcome`), never
from its summary text — so every system's log line shows its faces, in any language. What each mark says, and a
result's total and details, are the system's declaration (app/systems/marks.py): this module reads no key of a
system's outcome."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import Summary
from app.systems import SYSTEMS
from app.systems.base import critical_marks
from app.systems.marks import CORE_MARKS, Mark


def marks_of(system: str) -> Mapping[str, Mark]:
    """The marks an entry of `system` may carry: the core's, then the system's own (RuleSystem.marks)."""
    rule = SYSTEMS.get(system)
    return {**CORE_MARKS, **rule.marks} if rule is not None and rule.marks else CORE_MARKS


def _outcome(body: Mapping[str, Any]) -> dict[str, Any]:
    outcome = body.get("outcome")
    return outcome if isinstance(outcome, dict) else {}


def _badge(marks: Mapping[str, Mark], mark: str, value: Any = None) -> dict[str, Any]:
    """A mark as a badge: {mark, label (the msgid), value?}; a mark nobody declared is shown by its name."""
    found = marks.get(mark)
    badge: dict[str, Any] = {"mark": mark, "label": found.label if found is not None else mark}
    if value is not None:
        badge["value"] = value
    return badge


def entry_faces(body: Mapping[str, Any], system: str) -> list[dict[str, Any]]:
    """[{face, sides, marks, labels, badges, …}] for the entry's dice, in the order rolled, marked by the entry's
    system (RuleSystem.die_marks; for a reroll of an earlier roll, the whole pool with the rerolled dice marked).
    `labels`: each mark's msgid (the die's title and screen-reader words); `badges`: what shows beside the die (the
    marks declared `badge`, then the marks with a value), in the order declared."""
    dice = body.get("dice") or []
    rolled = [d for d in dice if isinstance(d, dict) and isinstance(d.get("face"), int)]
    faces: list[dict[str, Any]] = [{"face": d["face"], "sides": d.get("sides"), "marks": []} for d in rolled]
    rule = SYSTEMS.get(system)
    marker = rule.die_marks if rule is not None else critical_marks
    marks = marks_of(system)
    shown = marker(faces, _outcome(body))
    for face in shown:
        values = face.get("values") or {}
        face["labels"] = [_badge(marks, m)["label"] for m in face["marks"]]
        face["badges"] = [
            _badge(marks, m, values.get(m)) for m in marks if (m in values) or (m in face["marks"] and marks[m].badge)
        ]
    return shown


def entry_marks(body: Mapping[str, Any], system: str) -> list[dict[str, Any]]:
    """What to flag next to a result, once each — [{mark, label, value?}], in the order the marks are declared (the
    core's, then the system's): what the system reads in the outcome (RuleSystem.result_marks) and its faces' marks
    declared `flag`. Read like entry_faces from what the entry recorded (pages call it only for a viewer who sees
    the result)."""
    rule = SYSTEMS.get(system)
    marks = marks_of(system)
    found: dict[str, dict[str, Any]] = {}
    for flag in rule.result_marks(_outcome(body)) if rule is not None else []:
        found.setdefault(str(flag["mark"]), _badge(marks, str(flag["mark"]), flag.get("value")))
    for face in entry_faces(body, system):
        for mark in face["marks"]:
            if mark in marks and marks[mark].flag:
                found.setdefault(mark, _badge(marks, mark))
    return [found[k] for k in marks if k in found] + [v for k, v in found.items() if k not in marks]


def entry_total(body: Mapping[str, Any], system: str) -> Summary | None:
    """The result's total as the log line shows it (RuleSystem.result_total), or None."""
    rule = SYSTEMS.get(system)
    return rule.result_total(_outcome(body)) if rule is not None else None


def entry_details(body: Mapping[str, Any], system: str) -> list[str]:
    """The helpers and modifiers a roll counted, in words (RuleSystem.result_details: e.g. a Rabbits pool's
    breakdown)."""
    rule = SYSTEMS.get(system)
    return rule.result_details(_outcome(body)) if rule is not None else []
