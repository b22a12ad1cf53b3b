"""Idempotency-Key for every write that appends to the log (an action, a message, its edit or withdrawal, a
handout, the scene, a pin): the one helper the rules service, app/talk and app/handouts share.

The contract (docs/API.md): the same key with the same request answers the first entry again, `replayed`; the
same key with another request is a 422; a key is this actor's in this campaign. The key and the digest of the
request it came with are stored on the entry (`idempotency_key`, `request_hash`), so a replay needs no table of
its own. `check` runs under the log's head lock (app/rolls/appending.py): of two racing retries one acts and the
other replays, and the replay's transaction rolls back, giving its seq back.

    once = Once(key, digest)
    try:
        with appending(db, acc, publish) as (seq, prev_hash):
            check(db, acc, once)          # raises Replayed(first entry)
            ... write_entry(..., idempotency_key=once.key, request_hash=once.digest)
    except Replayed as replay:
        return replay.entry, replayed
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.service import Access
from app.errors import BadRequest
from app.i18n import _
from app.rolls.models import LogEntry


@dataclass(frozen=True)
class Once:
    """An Idempotency-Key (None or empty: no key) and the digest of the request it came with."""

    key: str | None = None
    digest: str | None = None


class Replayed(Exception):
    """The key was used before for this request: nothing is done again; `entry` is the first one."""

    def __init__(self, entry: LogEntry) -> None:
        super().__init__(entry.seq)
        self.entry = entry


def earlier(db: Session, acc: Access, once: Once | None) -> LogEntry | None:
    """The entry this key made before (None: a new key, or no key); a 422 when it came with another request.
    An entry stored without a request digest (written before digests were kept) replays whatever is sent."""
    if once is None or not once.key:
        return None
    existing = db.scalar(
        select(LogEntry).where(
            LogEntry.campaign_id == acc.campaign.id,
            LogEntry.actor_id == acc.user.id,
            LogEntry.idempotency_key == once.key,
        )
    )
    if existing is not None and existing.request_hash is not None and existing.request_hash != once.digest:
        raise BadRequest(
            _("This Idempotency-Key was already used for a different request: send a new key for a new request."),
            field="idempotency_key",
        )
    return existing


def check(db: Session, acc: Access, once: Once | None) -> None:
    """Under the head lock: raise Replayed with the first entry if the key was used for this request before."""
    existing = earlier(db, acc, once)
    if existing is not None:
        raise Replayed(existing)
