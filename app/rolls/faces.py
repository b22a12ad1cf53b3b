"""The dice of a log entry as a reader sees them: each face with what it meant (dropped, exploded, counted as a
success, a critical, doubles, the kicker, rerolled), read from what the entry recorded (`dice`, `outcome`), never
from its summary text — so every system's log line shows its faces, in any language."""

from __future__ import annotations

import re
from typing import Any

from app.i18n import N_, render

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

# The notation engine marks a dropped die with a combining long stroke and an exploded one with "!"
# (app/rules/notation: render), e.g. "4d6kh3 [1, 2, 6, 1̶] = 9".
_GROUP = re.compile(r"\[([^\]]*)\]")
_STROKE = "\u0336"


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


def _dice_marks(faces: list[dict[str, Any]], outcome: dict[str, Any]) -> None:
    """The dice roller's marks: per roll in the outcome (`marks`, and `shown` where a roll counts as another value:
    a Fate die's -1/0/+1, a penetrating die less 1, mi/ma), or — entries from before those — read from the line."""
    marks, shown = outcome.get("marks"), outcome.get("shown")
    if isinstance(marks, list) and len(marks) == len(faces):
        values = _ints(shown) if shown is not None else None
        for index, (face, found) in enumerate(zip(faces, marks, strict=True)):
            if isinstance(found, list):
                face["marks"] = [mark for mark in found if mark in _DICE_MARKS]
            if values is not None and len(values) == len(faces) and values[index] != face["face"]:
                face["face"] = values[index]
        return
    if isinstance(outcome.get("detail"), str):
        seen_faces = _notation_faces(outcome["detail"])
        if len(seen_faces) == len(faces):
            for face, seen in zip(faces, seen_faces, strict=True):
                face["marks"] = seen["marks"]


def _outcome(body: dict[str, Any]) -> dict[str, Any]:
    outcome = body.get("outcome")
    return outcome if isinstance(outcome, dict) else {}


def _ints(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return value
    return None


def _rerolled(outcome: dict[str, Any], rolled: int) -> list[dict[str, Any]] | None:
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


def entry_faces(body: dict[str, Any], system: str) -> list[dict[str, Any]]:
    """[{face, sides, marks}] for the entry's dice, in the order rolled; for a reroll of an earlier roll, the
    whole pool with the rerolled dice marked."""
    dice = body.get("dice") or []
    outcome = _outcome(body)
    rolled = [d for d in dice if isinstance(d, dict) and isinstance(d.get("face"), int)]
    faces: list[dict[str, Any]] = [{"face": d["face"], "sides": d.get("sides"), "marks": []} for d in rolled]
    if system == "rabbits":
        faces = _rerolled(outcome, len(rolled)) or faces
    if system == "dice":
        _dice_marks(faces, outcome)
    for face in faces:
        sides, value, marks = face.get("sides"), face["face"], face["marks"]
        if system == "cat" and value % 2 == 0 or system == "rabbits" and sides == 6 and value >= 4:
            marks.append("success")
        elif system == "art" and sides == 100:
            if outcome.get("doubles"):
                marks.append("doubles")
            if outcome.get("kicker") is not None:
                face["kicker"] = outcome["kicker"]
        elif sides and sides >= 20 and "dropped" not in marks:
            if value == sides:
                marks.append("critical")
            elif value == 1:
                marks.append("fumble")
    return faces


# A cat fight's confirmed 6-6 and 5-5 (app.rules.catfight, _CRITICALS): the step's events carry them.
_FIGHT_CRITICALS = frozenset(
    {"critical_hit", "critical_goof", "lucky_fate", "unlucky_cat", "escape", "stumble", "caught", "injured"}
)


def entry_marks(body: dict[str, Any], system: str) -> list[dict[str, Any]]:
    """What to flag next to a result, once each: a critical, a natural 1, doubles, the kicker — [{mark, value?}].
    Read like entry_faces from what the entry recorded (pages call it only for a viewer who sees the result)."""
    outcome = _outcome(body)
    faces = entry_faces(body, system)
    marks: list[dict[str, Any]] = []
    found = outcome.get("events")
    events: list[Any] = found if isinstance(found, list) else []
    fight_critical = any(isinstance(e, dict) and e.get("result") in _FIGHT_CRITICALS for e in events)
    if fight_critical or any("critical" in f["marks"] for f in faces):
        marks.append({"mark": "critical"})
    if any("fumble" in f["marks"] for f in faces):
        marks.append({"mark": "fumble"})
    if system == "art" and outcome.get("doubles") or any("doubles" in f["marks"] for f in faces):
        marks.append({"mark": "doubles"})
    kicker = outcome.get("kicker") if system == "art" else None
    if isinstance(kicker, int) and not isinstance(kicker, bool):
        marks.append({"mark": "kicker", "value": kicker})
    return marks


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
