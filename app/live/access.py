"""Access changes, announced: whatever takes away or changes someone's access to a campaign's stream (a member
removed or given another role, a token revoked or deleted, a login session ended, an account deleted) is
published after its commit as the hub's internal event `access` — (campaign id or 0 for every campaign,
"access", user id or None for everyone) — through the broker, so every process's hub re-decides those streams'
access (app/live/hub.py) instead of asking the database before every delivery (issue 34).

The same changes, and those of what an action reads of its campaign — the campaign row (its systems, settings,
language, name), its Discord bridge, its game sessions: the internal event `campaign` (CHANGED) — reach this
process's caches of them synchronously (`listen`: the hub's memory of a token's access, the bridge memo in
app/notify, the running session in app/rolls/appending.py): when the change is written (before its commit, so
nothing is served stale in between) and again right after its commit (so a read that raced it and kept the old
answer is dropped too); other processes hear them through the broker (`heard`, app/main.py).

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
from app.campaigns.models import Campaign, GameSession, Membership
from app.notify.models import DiscordBridge

ACCESS = "access"  # the hub's internal event (never sent to a client)
CHANGED = "campaign"  # internal too: what an action reads of the campaign changed (its row, its Discord bridge)
EVERY_CAMPAIGN = 0

# (campaign id or EVERY_CAMPAIGN, event (ACCESS or CHANGED), user id or None for everyone)
Change = tuple[int, str, int | None]
Announce = Callable[[int, str, int | None], None]

log = logging.getLogger(__name__)
_announcers: weakref.WeakKeyDictionary[Engine, Announce] = weakref.WeakKeyDictionary()
_listeners: weakref.WeakKeyDictionary[Engine, tuple[Announce, ...]] = weakref.WeakKeyDictionary()
_INFO_KEY = "fateboard_access_changes"


def watch(engine: Engine, announce: Announce) -> None:
    """Announce the access changes committed on `engine` with `announce(campaign, ACCESS or CHANGED, user)` (the
    broker's publish, which never raises)."""
    _announcers[engine] = announce


def listen(engine: Engine, forget: Announce) -> None:
    """Call `forget(campaign, event, user)` in this process, synchronously, for every change on `engine` (when it
    is written and after its commit) and for every one the broker brings from another process (`heard`). It must
    be cheap and thread-safe: it runs in the writing thread."""
    _listeners[engine] = (*_listeners.get(engine, ()), forget)


def heard(engine: Engine, campaign_id: int, event: str, user_id: int | None) -> None:
    """The broker delivered a change (from any process, this one included): tell this process's caches."""
    if event in (ACCESS, CHANGED):
        for forget in _listeners.get(engine, ()):
            forget(campaign_id, event, user_id)


def _engine_of(session: Session) -> Engine | None:
    bind = session.bind
    engine = getattr(bind, "engine", bind)
    return engine if isinstance(engine, Engine) else None


def _note(session: Session, change: Change) -> None:
    session.info.setdefault(_INFO_KEY, set()).add(change)
    engine = _engine_of(session)
    if engine is not None:
        heard(engine, *change)


def _changes_of(obj: object, deleted: bool) -> Change | None:
    if isinstance(obj, Membership):
        return obj.campaign_id, ACCESS, obj.user_id
    if isinstance(obj, ApiToken | LoginSession):
        return EVERY_CAMPAIGN, ACCESS, obj.user_id
    if isinstance(obj, User) and deleted:
        return EVERY_CAMPAIGN, ACCESS, obj.id
    if isinstance(obj, Campaign):
        return obj.id, CHANGED, None
    if isinstance(obj, DiscordBridge | GameSession):
        return obj.campaign_id, CHANGED, None
    return None


# What a change of a row may change about access (a token's last use does not).
_WATCHED_COLUMNS: dict[type[Any], tuple[str, ...]] = {
    Membership: ("campaign_id", "user_id", "role"),
    ApiToken: ("user_id", "token_hash", "revoked_at"),
    LoginSession: ("id", "user_id"),
    # What an action reads of its campaign (not the log's head, which moves with every entry; an actor's name
    # never changes, and a deleted account is an access change).
    Campaign: ("name", "systems", "language", "settings"),
    DiscordBridge: ("campaign_id", "webhook_url", "post", "active"),
    GameSession: ("campaign_id", "number", "ended_at"),
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
    for obj in session.new:
        if isinstance(obj, DiscordBridge | GameSession):  # a new bridge posts from now on; a session starts
            _note(session, (obj.campaign_id, CHANGED, None))


# model -> (its campaign column, its user column, the event); None: every campaign / every user.
_BULK: dict[type[Any], tuple[str | None, str | None, str]] = {
    Membership: ("campaign_id", "user_id", ACCESS),
    ApiToken: (None, "user_id", ACCESS),
    LoginSession: (None, "user_id", ACCESS),
    User: (None, "id", ACCESS),
    Campaign: ("id", None, CHANGED),
    DiscordBridge: ("campaign_id", None, CHANGED),
    GameSession: ("campaign_id", None, CHANGED),
}


@event.listens_for(Session, "do_orm_execute")
def _bulk_statement(state: ORMExecuteState) -> None:
    if not (state.is_update or state.is_delete) or state.bind_mapper is None:
        return
    model = state.bind_mapper.class_
    columns = _BULK.get(model)
    if columns is None or (model is User and not state.is_delete):
        return
    campaign_col, user_col, kind = columns
    where = getattr(state.statement, "whereclause", None)
    try:
        # The rows it is about to change, read first (sign-out, a password reset, a setting, a dead bridge: rare).
        picked = [getattr(model, col) for col in (campaign_col, user_col) if col is not None]
        query = select(*picked) if where is None else select(*picked).where(where)
        rows = state.session.execute(query).all()
    except Exception:  # noqa: BLE001 (whatever it was, assume it may have changed anyone's access)
        log.warning("access change: could not read the rows of a bulk %s; re-deciding every stream", model.__name__)
        _note(state.session, (EVERY_CAMPAIGN, ACCESS, None))
        return
    for row in rows:
        campaign = row[0] if campaign_col else EVERY_CAMPAIGN
        user = row[-1] if user_col else None
        _note(state.session, (campaign, kind, user))


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    changes = session.info.pop(_INFO_KEY, None)
    engine = _engine_of(session)
    if not changes or engine is None:
        return
    ordered = sorted(changes, key=lambda c: (c[0], c[1], -1 if c[2] is None else c[2]))
    for change in ordered:
        heard(engine, *change)  # again: a read that raced the write may have kept what it replaced
    announce = _announcers.get(engine)
    if announce is None:
        return
    for campaign_id, kind, user_id in ordered:
        announce(campaign_id, kind, user_id)
