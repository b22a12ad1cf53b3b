"""The dice of a log entry as a reader sees them: each face with what it meant (dropped, exploded, counted as a
success, a critical, doubles, the kicker, rerolled), read from what the entry recorded (`dice`, `outcome`), never
from its summary text — so every system's log line shows its faces, in any language."""

from __future__ import annotations

from typing import Any

from app.i18n import N_, render
from app.systems import SYSTEMS
from app.systems.base import critical_marks

# English msgids: what each mark on a die means, as its title and to a screen reader (templates/rolls/entry.html).
MARK_LABELS = {
    "dropped": N_("dropped"),
    "exploded": N_("exploded, rolled again"),
    "success": N_("counts"),
    "critical": N_("critical"),
    "fumble": N_("a natural 1"),
    "doubles": N_("doubles"),
    "rerolled": N_("rerolled"),
    "failure": N_("counts against"),
}


def _outcome(body: dict[str, Any]) -> dict[str, Any]:
    outcome = body.get("outcome")
    return outcome if isinstance(outcome, dict) else {}


def entry_faces(body: dict[str, Any], system: str) -> list[dict[str, Any]]:
    """[{face, sides, marks}] for the entry's dice, in the order rolled, marked by the entry's system
    (RuleSystem.die_marks; for a reroll of an earlier roll, the whole pool with the rerolled dice marked)."""
    dice = body.get("dice") or []
    rolled = [d for d in dice if isinstance(d, dict) and isinstance(d.get("face"), int)]
    faces: list[dict[str, Any]] = [{"face": d["face"], "sides": d.get("sides"), "marks": []} for d in rolled]
    rule = SYSTEMS.get(system)
    marker = rule.die_marks if rule is not None else critical_marks
    return marker(faces, _outcome(body))


# The flags a log line shows beside its result, in this order; a system may add its own after them.
_FLAGS = ("critical", "fumble", "doubles", "kicker")


def entry_marks(body: dict[str, Any], system: str) -> list[dict[str, Any]]:
    """What to flag next to a result, once each: a critical, a natural 1, doubles, the kicker — [{mark, value?}].
    Read like entry_faces from what the entry recorded (pages call it only for a viewer who sees the result): the
    faces' own marks and what the system reads in the outcome (RuleSystem.result_marks)."""
    rule = SYSTEMS.get(system)
    found: dict[str, dict[str, Any]] = {}
    for flag in rule.result_marks(_outcome(body)) if rule is not None else []:
        found.setdefault(str(flag["mark"]), dict(flag))
    for face in entry_faces(body, system):
        for mark in ("critical", "fumble", "doubles"):
            if mark in face["marks"]:
                found.setdefault(mark, {"mark": mark})
    return [found[k] for k in _FLAGS if k in found] + [v for k, v in found.items() if k not in _FLAGS]


def entry_details(body: dict[str, Any]) -> list[str]:
    """The helpers and modifiers a roll counted, named (e.g. a Rabbits pool's breakdown)."""
    outcome = _outcome(body)
    details = []
    for item in outcome.get("breakdown") or []:
        if isinstance(item, (list, tuple)) and len(item) == 2:
            label, dice = item
            label = render(label)  # a Rabbits line is language-neutral (app.i18n.msg); older entries hold English
            details.append(f"{label} {dice:+d}" if isinstance(dice, int) else f"{label} {dice}")
    return details
