"""Table talk's rate limit: at most RATE accepted posts (messages and /r rolls) per member per campaign in WINDOW
(TABLE-API.md, section 1), counted in the post's own transaction."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, case
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.accounts.models import AuthCounter
from app.campaigns.service import Access
from app.errors import TooManyRequests
from app.i18n import _
from app.types import utcnow

RATE = 30
WINDOW = timedelta(seconds=10)


_COUNTERS = cast(Table, AuthCounter.__table__)


def _count_statement(dialect: str) -> Any:
    """The counter's upsert for one dialect, built once (SQLAlchemy then reuses its compiled form)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(_COUNTERS).values(key=bindparam("key"), count=1, expires_at=bindparam("expires"))
    expired = _COUNTERS.c.expires_at <= bindparam("now")
    return stmt.on_conflict_do_update(
        index_elements=[_COUNTERS.c.key],
        set_={
            "count": case((expired, 1), else_=_COUNTERS.c.count + 1),
            "expires_at": case((expired, stmt.excluded.expires_at), else_=_COUNTERS.c.expires_at),
        },
    ).returning(_COUNTERS.c.count, _COUNTERS.c.expires_at)


_COUNT = {name: _count_statement(name) for name in ("sqlite", "postgresql")}


def count_post(db: Session, acc: Access, rate: int = RATE) -> None:
    """Count one accepted post in this transaction (the shared counter table of app/accounts/throttle.py:
    one atomic upsert, so every process counts exactly); the one over `rate` in a window is refused with
    Retry-After and, because the transaction then rolls back, is not counted."""
    now = utcnow()
    dialect = "postgresql" if db.get_bind().dialect.name == "postgresql" else "sqlite"
    count, expires_at = db.execute(
        _COUNT[dialect], {"key": f"talk:{acc.campaign.id}:{acc.user.id}", "expires": now + WINDOW, "now": now}
    ).one()
    if count > rate:
        wait = max(1, math.ceil((expires_at - now).total_seconds()))
        raise TooManyRequests(
            _("That is a lot of talk: wait {n} seconds, then send it again.").format(n=wait),
            retry_after=wait,
            field="text",
        )
