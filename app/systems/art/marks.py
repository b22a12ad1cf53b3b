"""How the log line marks an ART roll (RuleSystem.die_marks, result_marks; app/rolls/faces.py): the percentile
die's doubles and its kicker, read from the outcome; the result's flags (doubles, the kicker's value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.systems.base import critical_marks


def die_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    for face in faces:
        if face.get("sides") == 100:
            if outcome.get("doubles"):
                face["marks"].append("doubles")
            if outcome.get("kicker") is not None:
                face["kicker"] = outcome["kicker"]
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
