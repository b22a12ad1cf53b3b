"""Access changes, announced: whatever takes away or changes someone's access to a campaign's stream (a member
removed or given another role, a token revoked or deleted, a login session ended, an account deleted) is
published after its commit as the hub's internal event `access` — (campaign id or 0 for every campaign,
"access", user id or None for everyone) — through the broker, so every process's hub re-decides those streams'
access (app/live/hub.py) instead of asking the database before every delivery (issue 34).

It is read from the ORM session itself (SQLAlchemy's `after_flush` for changed or deleted objects,
`do_orm_execute` for bulk UPDATE/DELETE statements, `after_commit` to publish), so no service has to remember to
announce it, and nothing is announced for a transaction that rolled back. A change made outside the ORM (raw
SQL by hand) is not seen here: the hub re-reads every feed's access after ACCESS_MAX_AGE anyway.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, inspect, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction

from app.accounts.models import ApiToken, LoginSession, User
from app.campaigns.models import Membership

ACCESS = "access"  # the hub's internal event (never sent to a client)
EVERY_CAMPAIGN = 0

Change = tuple[int, int | None]  # (campaign id or EVERY_CAMPAIGN, user id or None for everyone)
Announce = Callable[[int, str, int | None], None]

log = logging.getLogger(__name__)
_announcers: weakref.WeakKeyDictionary[Engine, Announce] = weakref.WeakKeyDictionary()
_INFO_KEY = "fateboard_access_changes"


def watch(engine: Engine, announce: Announce) -> None:
    """Announce the access changes committed on `engine` with `announce(campaign, ACCESS, user)` (the broker's
    publish, which never raises)."""
    _announcers[engine] = announce


def _note(session: Session, change: Change) -> None:
    session.info.setdefault(_INFO_KEY, set()).add(change)


def _changes_of(obj: object, deleted: bool) -> Change | None:
    if isinstance(obj, Membership):
        return obj.campaign_id, obj.user_id
    if isinstance(obj, ApiToken | LoginSession):
        return EVERY_CAMPAIGN, obj.user_id
    if isinstance(obj, User) and deleted:
        return EVERY_CAMPAIGN, obj.id
    return None


# What a change of a row may change about access (a token's last use does not).
_WATCHED_COLUMNS: dict[type[Any], tuple[str, ...]] = {
    Membership: ("campaign_id", "user_id", "role"),
    ApiToken: ("user_id", "token_hash", "revoked_at"),
    LoginSession: ("id", "user_id"),
}


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _flush: UOWTransaction) -> None:
    for obj in session.dirty:
        # A new membership, token or session grants access (decided when a stream opens); a change may take it.
        watched = _WATCHED_COLUMNS.get(type(obj))
        if watched is None:
            continue
        state = inspect(obj)
        if any(state.attrs[name].history.has_changes() for name in watched):
            change = _changes_of(obj, False)
            if change is not None:
                _note(session, change)
    for obj in session.deleted:
        change = _changes_of(obj, True)
        if change is not None:
            _note(session, change)


_BULK: dict[type[Any], tuple[str | None, str]] = {
    Membership: ("campaign_id", "user_id"),
    ApiToken: (None, "user_id"),
    LoginSession: (None, "user_id"),
    User: (None, "id"),
}


@event.listens_for(Session, "do_orm_execute")
def _bulk_statement(state: ORMExecuteState) -> None:
    if not (state.is_update or state.is_delete) or state.bind_mapper is None:
        return
    model = state.bind_mapper.class_
    columns = _BULK.get(model)
    if columns is None or (model is User and not state.is_delete):
        return
    campaign_col, user_col = columns
    where = getattr(state.statement, "whereclause", None)
    try:
        # The rows it is about to change, read first (sign-out, a password reset, an account deleted: rare).
        picked = [getattr(model, user_col)] + ([getattr(model, campaign_col)] if campaign_col else [])
        query = select(*picked) if where is None else select(*picked).where(where)
        rows = state.session.execute(query).all()
    except Exception:  # noqa: BLE001 (whatever it was, assume it may have changed anyone's access)
        log.warning("access change: could not read the rows of a bulk %s; re-deciding every stream", model.__name__)
        _note(state.session, (EVERY_CAMPAIGN, None))
        return
    for row in rows:
        _note(state.session, (row[1] if campaign_col else EVERY_CAMPAIGN, row[0]))


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    changes = session.info.pop(_INFO_KEY, None)
    if not changes:
        return
    bind = session.bind
    engine = getattr(bind, "engine", bind)
    announce = _announcers.get(engine) if isinstance(engine, Engine) else None
    if announce is None:
        return
    for campaign_id, user_id in sorted(changes, key=lambda c: (c[0], -1 if c[1] is None else c[1])):
        announce(campaign_id, ACCESS, user_id)
