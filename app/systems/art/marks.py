"""How the log line marks an ART roll (RuleSystem.die_marks, result_marks, marks, result_total; app/rolls/faces.py):
the percentile die's doubles and its kicker, read from the outcome; the result's flags (doubles, the kicker's value);
the result's level in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import N_, Summary, msg
from app.systems.art.rules import Level
from app.systems.base import critical_marks
from app.systems.marks import Mark

# ART's own marks (after the core's: app/systems/marks.py). The kicker is a value: `%(k)s` is its number.
MARKS = {
    "doubles": Mark(N_("doubles"), badge=True, flag=True),
    "kicker": Mark(N_("kicker: %(k)s"), badge=True),
}
_LEVEL_NAMES = {level.name: level.display_name for level in Level}


def die_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    for face in faces:
        if face.get("sides") == 100:
            if outcome.get("doubles"):
                face["marks"].append("doubles")
            if outcome.get("kicker") is not None:
                face["values"] = {"kicker": outcome["kicker"]}
    critical_marks([f for f in faces if f.get("sides") != 100], outcome)  # marks the other dice in place
    return faces


def result_marks(outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    marks: list[dict[str, Any]] = []
    if outcome.get("doubles"):
        marks.append({"mark": "doubles"})
    kicker = outcome.get("kicker")
    if isinstance(kicker, int) and not isinstance(kicker, bool):
        marks.append({"mark": "kicker", "value": kicker})
    return marks


def result_total(outcome: Mapping[str, Any]) -> Summary | None:
    """The result's level in words (a level's code → its name, translated where shown), or the total as it is."""
    total = outcome.get("total")
    if total is None:
        return None
    return msg(_LEVEL_NAMES[total]) if isinstance(total, str) and total in _LEVEL_NAMES else str(total)
