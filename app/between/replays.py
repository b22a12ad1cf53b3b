"""Idempotency-Key for this package's writes (TABLE-API.md: same key + same body → the first answer with
`"replayed": true`; same key + another body → 422). The key is stored only as a hash: of (who, where, key) for
ordinary writes, and an HMAC under a server secret for the anonymous safety tools (app/between/safety.py)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import Table, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.between.models import Replay
from app.errors import BadRequest
from app.i18n import _
from app.rolls import chain
from app.types import utcnow

KEEP = timedelta(hours=24)
_REPLAYS = cast(Table, Replay.__table__)


def request_hash(*parts: Any) -> str:
    return hashlib.sha256(chain.canonical_json({"request": list(parts)})).hexdigest()


def named_key(scope: str, user_id: int, where: int, key: str) -> str:
    return hashlib.sha256(f"{scope}\n{user_id}\n{where}\n{key}".encode()).hexdigest()


def earlier(db: Session, key: str | None, digest: str) -> tuple[int, dict[str, Any]] | None:
    """The first answer to this key, if it is still kept; a key used for another request is refused."""
    if key is None:
        return None
    row = db.get(Replay, key)
    if row is None or row.expires_at <= utcnow():
        return None
    if row.request_hash != digest:
        raise BadRequest(
            _("This Idempotency-Key was already used for a different request: send a new key for a new request."),
            field="idempotency_key",
        )
    return row.status, dict(row.answer)


def remember(
    db: Session, key: str | None, digest: str, status: int, answer: dict[str, Any], keep: timedelta = KEEP
) -> None:
    """Keep the answer under the key in the write's own transaction (the caller commits). Expired rows go."""
    if key is None:
        return
    now = utcnow()
    db.execute(delete(Replay).where(Replay.expires_at <= now))
    insert = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    db.execute(
        insert(_REPLAYS)
        .values(key=key, request_hash=digest, status=status, answer=answer, expires_at=now + keep)
        .on_conflict_do_nothing(index_elements=[_REPLAYS.c.key])
    )
