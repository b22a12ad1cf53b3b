"""How a log entry looks to one viewer, as JSON (API, export, API stream). The HTML twin is templates/rolls/entry.html."""

from __future__ import annotations

from typing import Any

from app.rolls.chain import HIDDEN_FIELDS
from app.rolls.models import LogEntry
from app.rolls.visibility import View, view_of


def viewer_view(entry: LogEntry, viewer_id: int, is_narrator: bool) -> View:
    return view_of(entry.visibility, entry.actor_id, viewer_id, is_narrator)


def entry_json(entry: LogEntry, view: View, *, with_body: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seq": entry.seq, "created_at": entry.created_at.isoformat(), "actor": entry.actor_name,
        "character_id": entry.character_id, "system": entry.system, "action": entry.action, "kind": entry.kind,
        "visibility": entry.visibility, "target_seq": entry.target_seq,
    }
    for name in HIDDEN_FIELDS:
        data[name] = entry.body.get(name) if view == View.FULL else None
    if view == View.ROLLER_BLIND:
        data["request"] = entry.body.get("request")
    data.update(body_hash=entry.body_hash, prev_hash=entry.prev_hash, hash=entry.hash)
    if with_body:
        data["body"] = entry.body if view == View.FULL else None
        data["salt"] = entry.salt if view == View.FULL else None
    return data
