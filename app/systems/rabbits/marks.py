"""How the log line marks a Rabbits roll's faces (RuleSystem.die_marks; app/rolls/faces.py): a 4 or more on a d6
is a success; a reroll of an earlier roll shows the whole pool with the rerolled dice marked. And what it shows
besides: a disposition's total, a pool's breakdown (result_total, result_details)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import render
from app.systems.base import critical_marks


def _ints(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return value
    return None


def _rerolled(outcome: Mapping[str, Any], rolled: int) -> list[dict[str, Any]] | None:
    """A reroll of an earlier roll (Rabbits' Fate, Deeper understanding, Of course!): the pool as it is now,
    each die the reroll rolled marked `rerolled` (an in-place reroll keeps the face it replaced as `was`).
    The outcome holds the faces `before` and after; `rolled` is how many new dice the reroll rolled."""
    before, after = _ints(outcome.get("before")), _ints(outcome.get("faces"))
    if before is None or after is None or not rolled:
        return None
    if len(after) == len(before) + rolled and after[: len(before)] == before:  # Fate: new dice after the old
        return [{"face": f, "sides": 6, "marks": [] if i < len(before) else ["rerolled"]} for i, f in enumerate(after)]
    if len(after) == len(before):  # failed dice rerolled in place, the first `rolled` of them
        again = [i for i, f in enumerate(before) if f < 4][:rolled]
        if len(again) != rolled:
            return None
        return [
            {"face": f, "sides": 6, "marks": ["rerolled"], "was": before[i]}
            if i in again
            else {"face": f, "sides": 6, "marks": []}
            for i, f in enumerate(after)
        ]
    return None


def die_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    faces = _rerolled(outcome, len(faces)) or faces
    for face in faces:
        if face.get("sides") == 6 and face["face"] >= 4:
            face["marks"].append("success")
    return critical_marks(faces, outcome)


def result_total(outcome: Mapping[str, Any]) -> str | None:
    """A disposition roll's total (RuleSystem.result_total)."""
    total = outcome.get("total")
    return None if total is None else str(total)


def result_details(outcome: Mapping[str, Any]) -> list[str]:
    """The helpers and modifiers a roll counted, named: its pool's breakdown (RuleSystem.result_details)."""
    details = []
    for item in outcome.get("breakdown") or []:
        if isinstance(item, (list, tuple)) and len(item) == 2:
            label, dice = item
            label = render(label)  # language-neutral (app.i18n.msg); older entries hold English
            details.append(f"{label} {dice:+d}" if isinstance(dice, int) else f"{label} {dice}")
    return details
