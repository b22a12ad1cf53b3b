"""Safety tools with no author anywhere (docs/TRUST.md, "Safety tools").

The X-card is a log entry (kind "safety", public, `outcome: {"card": "x"}`) written by the one log writer with
`anonymous=True`: its actor and actor_id are null in the hashed body and in the row, it carries no idempotency
key, no push names anyone and the Discord bridge does not post it. Lines and veils are the campaign's setting
(no entry), stored without author or time.

What must still be per member — one card per member per campaign per 60 seconds, and the replay of a retried
request — is keyed by an HMAC of (campaign, member) under a key derived from the server's secret, in rows that
expire with their window and are deleted at the next play. The database alone cannot tell whose row it is; while
a row lives, someone holding both the database and the server's secret could test each member against it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import re
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import Table, case, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.between.models import SafetyCounter, SafetyItem
from app.between.replays import earlier, remember, request_hash
from app.between.schedule import member_ids
from app.campaigns.service import Access, require_narrator
from app.errors import BadRequest, NotFound, TooManyRequests
from app.i18n import N_, _, msg
from app.notify.service import queue_push
from app.rolls.appending import Publish, appending, no_publish, write_entry
from app.rolls.models import LogEntry
from app.types import utcnow

KIND = "safety"
X_WINDOW = timedelta(seconds=60)  # one card per member per campaign (BETWEEN-SESSIONS-API.md, section 5)
ITEM_WINDOW = timedelta(minutes=10)
ITEMS_PER_WINDOW = 20
ITEM_KINDS = ("line", "veil")
MAX_TEXT = 200
MAX_ITEMS = 200  # per campaign: the list stays readable and bounded


@lru_cache(maxsize=8)
def _derived(secret: str) -> bytes:
    return hmac.new(secret.encode("utf-8"), b"fateboard safety tools v1", hashlib.sha256).digest()


def keyed(secret: str, *parts: object) -> str:
    """An HMAC of the parts under a key derived from the server's secret: the same member gives the same value
    within a window, and the value names nobody without that secret."""
    material = "\n".join(str(p) for p in parts).encode("utf-8")
    return hmac.new(_derived(secret), material, hashlib.sha256).hexdigest()


_COUNTERS = cast(Table, SafetyCounter.__table__)


def _count(db: Session, key: str, window: timedelta, allowed: int, message: str) -> None:
    """Count one play under `key` in this transaction; over `allowed` in the window → 429 with Retry-After (the
    transaction then rolls back, so a refused play is not counted). Expired counters are deleted first."""
    now = utcnow()
    db.execute(delete(SafetyCounter).where(SafetyCounter.expires_at <= now))
    insert = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    stmt = insert(_COUNTERS).values(key=key, count=1, expires_at=now + window)
    expired = _COUNTERS.c.expires_at <= now
    count, expires_at = db.execute(
        stmt.on_conflict_do_update(
            index_elements=[_COUNTERS.c.key],
            set_={
                "count": case((expired, 1), else_=_COUNTERS.c.count + 1),
                "expires_at": case((expired, stmt.excluded.expires_at), else_=_COUNTERS.c.expires_at),
            },
        ).returning(_COUNTERS.c.count, _COUNTERS.c.expires_at)
    ).one()
    if count > allowed:
        wait = max(1, math.ceil((expires_at - now).total_seconds()))
        raise TooManyRequests(message.format(n=wait), retry_after=wait)


@dataclass(frozen=True)
class Played:
    entry: LogEntry
    replayed: bool = False


class _Replayed(Exception):
    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer


def play_x(
    db: Session, acc: Access, secret: str, *, idempotency_key: str | None = None, publish: Publish = no_publish
) -> Played:
    """Any member plays the X-card: an entry without an author, pushed to every member's devices (the sender's
    too: leaving them out would name them), published live like any entry."""
    replay_key = keyed(secret, "x-replay", acc.campaign.id, acc.user.id, idempotency_key) if idempotency_key else None
    digest = request_hash("x-card")
    try:
        with appending(db, acc, publish) as (seq, prev_hash):
            first = earlier(db, replay_key, digest)
            if first is not None:
                raise _Replayed(first[1])
            _count(
                db,
                keyed(secret, "x", acc.campaign.id, acc.user.id),
                X_WINDOW,
                1,
                _("The X-card was just played: you can play it again in {n} seconds."),
            )
            entry = write_entry(
                db,
                acc,  # only its campaign: `anonymous` writes no actor
                seq,
                prev_hash,
                kind=KIND,
                system=KIND,
                action="x",
                visibility="public",
                anonymous=True,
                content={
                    "request": None,
                    "outcome": {"card": "x"},
                    "summary": msg(N_("The X-card was played: the table pauses.")),
                },
            )
            queue_push(
                db,
                acc.campaign,
                member_ids(db, acc.campaign.id),
                actor_id=None,
                words=lambda: (_("X-card"), _("The X-card was played: the table pauses.")),
                url=f"/campaigns/{acc.campaign.id}",
                tag=f"safety-{acc.campaign.id}-{seq}",
            )
            remember(db, replay_key, digest, 201, {"seq": seq}, keep=X_WINDOW)
    except _Replayed as replay:
        found = db.scalar(
            select(LogEntry).where(LogEntry.campaign_id == acc.campaign.id, LogEntry.seq == replay.answer["seq"])
        )
        assert found is not None  # entries are never deleted
        return Played(found, replayed=True)
    return Played(entry)


# --- lines and veils ----------------------------------------------------------------------------------------


def items(db: Session, campaign_id: int) -> dict[str, list[SafetyItem]]:
    rows = list(db.scalars(select(SafetyItem).where(SafetyItem.campaign_id == campaign_id).order_by(SafetyItem.id)))
    return {kind: [r for r in rows if r.kind == kind] for kind in ITEM_KINDS}


def items_json(db: Session, campaign_id: int) -> dict[str, Any]:
    found = items(db, campaign_id)
    return {f"{kind}s": [{"id": r.id, "text": r.text} for r in found[kind]] for kind in ITEM_KINDS}


def clean_item_text(text: str) -> str:
    cleaned = " ".join(text.split())
    if not cleaned:
        raise BadRequest(_("Write the line or veil first."), field="text")
    if len(cleaned) > MAX_TEXT:
        raise BadRequest(_("At most {n} characters.").format(n=MAX_TEXT), field="text")
    return cleaned


def add_item(
    db: Session, acc: Access, secret: str, *, kind: str, text: str, idempotency_key: str | None = None
) -> tuple[dict[str, Any], bool]:
    """Any member adds a line or a veil, anonymously: the row has no author, the counter and the replay are
    keyed hashes that expire (the caller commits). Returns (the item's JSON, whether this is a replay)."""
    if kind not in ITEM_KINDS:
        raise BadRequest(_("Choose a line or a veil."), field="kind")
    cleaned = clean_item_text(text)
    digest = request_hash("safety-item", kind, cleaned)
    replay_key = (
        keyed(secret, "item-replay", acc.campaign.id, acc.user.id, idempotency_key) if idempotency_key else None
    )
    first = earlier(db, replay_key, digest)
    if first is not None:
        return first[1], True
    count = len(db.scalars(select(SafetyItem.id).where(SafetyItem.campaign_id == acc.campaign.id)).all())
    if count >= MAX_ITEMS:
        raise BadRequest(_("This campaign has {n} lines and veils: the narrator may tidy some first.").format(n=count))
    _count(
        db,
        keyed(secret, "items", acc.campaign.id, acc.user.id),
        ITEM_WINDOW,
        ITEMS_PER_WINDOW,
        _("That is a lot at once: wait {n} seconds, then add it again."),
    )
    item = SafetyItem(campaign_id=acc.campaign.id, kind=kind, text=cleaned)
    db.add(item)
    db.flush()
    answer = {"id": item.id, "text": item.text}
    remember(db, replay_key, digest, 201, answer, keep=ITEM_WINDOW)
    return answer, False


def remove_item(db: Session, acc: Access, item_id: int) -> None:
    """Narrators curate: a member who added an item cannot delete it (nobody knows who added it)."""
    item = db.get(SafetyItem, item_id)
    if item is None or item.campaign_id != acc.campaign.id:
        raise NotFound(_("No such line or veil."))
    require_narrator(acc)
    db.delete(item)
    db.flush()


# --- the server's own records -------------------------------------------------------------------------------

# The routes of the safety tools (API and pages): an access log line for them would pair a client address with
# the moment a card was played.
_SAFETY_PATH = re.compile(r"^/(api/)?campaigns/\d+/(safety|between/(x|safety))(/|\?|$)")


class QuietSafetyFilter(logging.Filter):
    """Drops the access log's lines for the safety tools' requests (uvicorn's record args: client, method,
    path, HTTP version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(isinstance(a, str) and _SAFETY_PATH.match(a) for a in args[1:3])


def install_quiet_access_log() -> None:
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, QuietSafetyFilter) for f in logger.filters):
        logger.addFilter(QuietSafetyFilter())
