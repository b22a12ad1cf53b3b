"""How the log line marks a Cat's faces (RuleSystem.die_marks; app/rolls/faces.py): an even die is a success."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def die_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    for face in faces:
        if face["face"] % 2 == 0:
            face["marks"].append("success")
    return faces
