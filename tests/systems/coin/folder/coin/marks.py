"""How the log line marks a flip (RuleSystem.die_marks): heads is a success."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.systems.coin import rules


def die_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    for face in faces:
        if face.get("sides") == 2 and face["face"] == rules.HEADS:
            face["marks"].append("success")
    return faces
