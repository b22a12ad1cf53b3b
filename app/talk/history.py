"""What became of a message: its edits and its withdrawal, read from the entries that point at it. Used by every
page that shows a message (app/rolls/log.py); imports only the log's model, so the log may import it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.rolls.models import LogEntry


@dataclass
class TalkState:
    """What became of a message: its edits (oldest first) and whether it was withdrawn."""

    edits: list[LogEntry] = field(default_factory=list)
    withdrawn: bool = False

    def latest(self, message: LogEntry) -> str:
        if self.edits:
            return str((self.edits[-1].body.get("outcome") or {}).get("text") or "")
        return str((message.body.get("outcome") or {}).get("text") or "")

    def history(self, message: LogEntry) -> list[tuple[datetime, str]]:
        """The earlier texts, newest first (what the message said before its latest edit)."""
        texts = [(message.created_at, str((message.body.get("outcome") or {}).get("text") or ""))]
        texts += [(e.created_at, str((e.body.get("outcome") or {}).get("text") or "")) for e in self.edits]
        return list(reversed(texts[:-1]))


def talk_states(db: Session, campaign_id: int, seqs: Sequence[int]) -> dict[int, TalkState]:
    """The edits and withdrawals of these messages (one query; an edit is read by exactly the message's readers,
    so whoever may read a message may read its history)."""
    if not seqs:
        return {}
    states: dict[int, TalkState] = {seq: TalkState() for seq in seqs}
    rows = db.scalars(
        select(LogEntry)
        .where(
            LogEntry.campaign_id == campaign_id,
            LogEntry.kind.in_(("edit", "retract")),
            LogEntry.target_seq >= min(seqs),
            LogEntry.target_seq <= max(seqs),
        )
        .order_by(LogEntry.seq)
    )
    for row in rows:
        state = states.get(row.target_seq or 0)
        if state is None:
            continue
        if row.kind == "edit":
            state.edits.append(row)
        else:
            state.withdrawn = True
    return states
