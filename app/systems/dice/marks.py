"""How the log line marks the dice roller's faces (RuleSystem.die_marks; app/rolls/faces.py): dropped, exploded,
rerolled, counted as a success or a failure, as the notation engine recorded them; then a d20's critical or fumble."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.systems.base import critical_marks

# The notation engine marks a dropped die with a combining long stroke and an exploded one with "!"
# (app/rules/notation: render), e.g. "4d6kh3 [1, 2, 6, 1̶] = 9".
_GROUP = re.compile(r"\[([^\]]*)\]")
_STROKE = "\u0336"
_D3 = re.compile(r"d3(?!\d)")


def _notation_faces(detail: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for group in _GROUP.findall(detail):
        for token in (t.strip() for t in group.split(",")):
            if not token:
                continue
            marks = []
            if _STROKE in token:
                marks.append("dropped")
            if token.endswith("!"):
                marks.append("exploded")
            face = token.replace(_STROKE, "").rstrip("!")
            if face.lstrip("-").isdigit():
                out.append({"face": int(face), "marks": marks})
    return out


_DICE_MARKS = frozenset({"rerolled", "dropped", "exploded", "success", "failure"})


def _dice_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> None:
    """The dice roller's marks: per roll in the outcome (`marks`, and `shown` where a roll counts as another value:
    a Fate die's -1/0/+1, a penetrating die less 1, mi/ma), or — entries from before those — read from the line.
    A Fate die (marked "fate"; before that mark, any d3 of an expression with dF and no d3) shows as dF with its
    sign: -1, 0, +1."""
    marks, shown = outcome.get("marks"), outcome.get("shown")
    expression = outcome.get("expression")
    old_fate = isinstance(expression, str) and "dF" in expression and not _D3.search(expression)
    if isinstance(marks, list) and len(marks) == len(faces):
        values = _ints(shown) if shown is not None else None
        for index, (face, found) in enumerate(zip(faces, marks, strict=True)):
            if isinstance(found, list):
                face["marks"] = [mark for mark in found if mark in _DICE_MARKS]
            if values is not None and len(values) == len(faces) and values[index] != face["face"]:
                face["face"] = values[index]
            if (isinstance(found, list) and "fate" in found) or (old_fate and face.get("sides") == 3):
                face["sides"] = "F"
                face["label"] = f"{face['face']:+d}" if face["face"] else "0"
        return
    if isinstance(outcome.get("detail"), str):
        seen_faces = _notation_faces(outcome["detail"])
        if len(seen_faces) == len(faces):
            for face, seen in zip(faces, seen_faces, strict=True):
                face["marks"] = seen["marks"]


def _ints(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return value
    return None


def die_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    _dice_marks(faces, outcome)
    return critical_marks(faces, outcome)


def result_total(outcome: Mapping[str, Any]) -> str | None:
    """An expression's total (RuleSystem.result_total)."""
    total = outcome.get("total")
    return None if total is None else str(total)
