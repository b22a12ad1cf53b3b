"""Appending to the log: the head lock, the writer queue, the chained entry, and announcements.

One transaction per append: lock the campaign's log head (UPDATE … RETURNING, which queues concurrent writers
on SQLite and row-locks on PostgreSQL), write the entry and move the head, commit, and only then tell the
broker (docs/ARCHITECTURE.md, "The rules service").
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple, cast

from sqlalchemy import CursorResult, Table, bindparam, insert, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from app.campaigns.models import Campaign
from app.campaigns.service import Access, current_session
from app.characters.models import Character
from app.errors import BadRequest
from app.i18n import Summary, _
from app.live import access as access_events
from app.live.access import CHANGED, EVERY_CAMPAIGN
from app.live.events import LiveEvent
from app.rolls import chain
from app.rolls.effects import OUTBOX_QUEUED, EntryWritten, Internal, emit, take_queued
from app.rolls.models import LogEntry
from app.types import utcnow

# The broker's publish: only declared events (the live ones, and app/rolls/effects.py's internal ones).
Publish = Callable[[int, LiveEvent | Internal, int | None], None]


def no_publish(campaign_id: int, event: LiveEvent | Internal, seq: int | None) -> None:
    return None


# The hot path's statements, built once: Core on the tables (no ORM unit of work), so SQLAlchemy compiles each
# once per dialect and reuses it (docs/PERFORMANCE.md).
_campaigns, _entries = cast(Table, Campaign.__table__), cast(Table, LogEntry.__table__)
_LOCK_HEAD = (
    update(_campaigns)
    .where(_campaigns.c.id == bindparam("campaign"))
    .values(last_seq=_campaigns.c.last_seq + 1)
    .returning(_campaigns.c.last_seq, _campaigns.c.head_hash)
)
_MOVE_HEAD = update(_campaigns).where(_campaigns.c.id == bindparam("campaign")).values(head_hash=bindparam("head"))
_INSERT_ENTRY = insert(_entries)


class RunningSession(NamedTuple):
    """The game session an entry belongs to (its id and number are all an entry and a rule read of it)."""

    id: int
    number: int


def _lock_head(db: Session, campaign_id: int) -> tuple[int, str]:
    row = db.execute(_LOCK_HEAD, {"campaign": campaign_id}).one()
    return row[0], row[1]


_UNKNOWN = object()


class _Sessions:
    """The running game session of each campaign as this process last wrote an entry with it, and that entry's
    seq: trusted only for the very next seq (every entry in between was this process's, and a game session starts
    and ends only with an entry of its own), else read again; forgotten at once by any change of a game session
    (app/live/access.py, in the writing thread) — a read that such a change overtook is not kept."""

    def __init__(self) -> None:
        self.known: dict[int, tuple[RunningSession | None, int]] = {}
        self.forgets = 0
        self.guard = threading.Lock()

    def forget(self, campaign_id: int, event: str, _user_id: int | None) -> None:
        if event != CHANGED:
            return
        with self.guard:
            self.forgets += 1
            if campaign_id == EVERY_CAMPAIGN:
                self.known = {}
            else:
                self.known.pop(campaign_id, None)

    def running(self, campaign_id: int, seq: int) -> object:
        known = self.known.get(campaign_id)
        return known[0] if known is not None and known[1] == seq - 1 else _UNKNOWN

    def remember(self, campaign_id: int, running: RunningSession | None, seq: int, forgets: int) -> None:
        with self.guard:
            if forgets == self.forgets:
                if len(self.known) >= 100_000:
                    self.known = {}
                self.known[campaign_id] = (running, seq)


_SESSIONS: weakref.WeakKeyDictionary[Engine, _Sessions] = weakref.WeakKeyDictionary()
_SESSIONS_GUARD = threading.Lock()


def _sessions_of(db: Session) -> _Sessions:
    engine = db.get_bind().engine
    memo = _SESSIONS.get(engine)
    if memo is None:
        with _SESSIONS_GUARD:
            memo = _SESSIONS.get(engine)
            if memo is None:
                memo = _SESSIONS[engine] = _Sessions()
                access_events.listen(engine, memo.forget)
    return memo


@contextmanager
def appending(db: Session, acc: Access, publish: Publish) -> Iterator[tuple[int, str]]:
    """Lock the log head and yield (seq, prev_hash); commit when the block ends, roll back if it raises,
    and tell the broker only after the commit (the entry; and the outbox, if a subscriber queued a delivery:
    app/rolls/effects.py)."""
    with writer_lock(db, acc.campaign.id):
        seq, prev_hash = _lock_head(db, acc.campaign.id)
        sessions = _sessions_of(db)
        forgets, running = sessions.forgets, sessions.running(acc.campaign.id, seq)
        if running is not _UNKNOWN:
            db.info[_GAME_SESSION] = running
        try:
            yield seq, prev_hash
            queued = take_queued(db)
            db.commit()
        except BaseException:
            db.rollback()
            raise
        finally:
            running = db.info.pop(_GAME_SESSION, _UNKNOWN)
        if running is not _UNKNOWN:
            sessions.remember(acc.campaign.id, cast(RunningSession | None, running), seq, forgets)
    publish(acc.campaign.id, LiveEvent.ENTRY, seq)
    if queued:
        publish(acc.campaign.id, OUTBOX_QUEUED, None)


_GAME_SESSION = "fateboard.game_session"


def game_session(db: Session, acc: Access) -> RunningSession | None:
    """The running game session, read once per transaction (the entry and the action's context both need it), and
    under appending() not at all when this process wrote the entry before (`_Sessions`)."""
    if _GAME_SESSION not in db.info:
        found = current_session(db, acc.campaign.id)
        db.info[_GAME_SESSION] = RunningSession(found.id, found.number) if found is not None else None
    running: RunningSession | None = db.info[_GAME_SESSION]
    return running


_WRITERS: dict[tuple[str, int], threading.RLock] = {}
_WRITERS_GUARD = threading.Lock()


@contextmanager
def writer_lock(bind: Session | Connection, campaign_id: int) -> Iterator[None]:
    """Queue this process's writers on a Python lock before they take the database's: SQLite's busy handler
    polls (sleeping 1, 2, 5 … 100 ms), so waiting writers were overtaken and the tail reached seconds; on
    PostgreSQL, 40 threads holding connections while they wait for the campaign's row lock starve its holder
    of the GIL. Other processes still meet the database's own lock. SQLite locks the whole database, so its
    key is the database; PostgreSQL locks the campaign row, so its key is the campaign. Re-entrant: the group
    writer (app/rolls/writer.py) holds it for a whole batch, and each action in the batch takes it again."""
    conn = bind.get_bind() if isinstance(bind, Session) else bind
    key = (str(conn.engine.url), 0 if conn.dialect.name == "sqlite" else campaign_id)
    with _WRITERS_GUARD:
        lock = _WRITERS.get(key)
        if lock is None:
            lock = _WRITERS[key] = threading.RLock()
    with lock:
        yield


def write_entry(
    db: Session,
    acc: Access,
    seq: int,
    prev_hash: str,
    *,
    kind: str,
    system: str,
    action: str,
    visibility: str,
    content: dict[str, Any],
    character: Character | None = None,
    target_seq: int | None = None,
    subject_id: int | None = None,
    idempotency_key: str | None = None,
    request_hash: str | None = None,
    anonymous: bool = False,
) -> LogEntry:
    """`anonymous`: an entry with no author at all — actor and actor_id null in the hashed body and the row (an
    X-card, app/between/safety.py); it can carry no idempotency key (that would need the author's id)."""
    session = game_session(db, acc)
    actor_id, actor_name = (None, None) if anonymous else (acc.user.id, acc.user.username)
    if anonymous:
        idempotency_key = request_hash = None
    now = utcnow()
    body = {
        "kind": kind,
        "system": system,
        "action": action,
        "seq": seq,
        "created_at": now.isoformat(),
        "actor": actor_name,
        "actor_id": actor_id,
        "character_id": character.id if character else None,
        "character": character.name if character else None,
        "session": session.number if session else None,
        "target_seq": target_seq,
        "request": content.get("request"),
        "dice": content.get("dice"),
        "outcome": content.get("outcome"),
        "summary": content.get("summary"),
        "note": content.get("note") or None,
    }
    for extra in ("revealed", "held"):
        if content.get(extra) is not None:
            body[extra] = content[extra]
    salt = chain.new_salt()
    digest = chain.body_hash(salt, body)
    entry = LogEntry(
        campaign_id=acc.campaign.id,
        seq=seq,
        created_at=now,
        actor_id=actor_id,
        actor_name=actor_name,
        character_id=body["character_id"],
        game_session_id=session.id if session else None,
        kind=kind,
        system=system,
        action=action,
        visibility=visibility,
        target_seq=target_seq,
        subject_id=subject_id,
        body=body,
        salt=salt,
        body_hash=digest,
        prev_hash=prev_hash,
        idempotency_key=idempotency_key or None,  # an empty key is no key (every check reads it so)
        request_hash=request_hash,
    )
    entry.hash = chain.entry_hash(prev_hash, entry.header(), digest)
    # A Core INSERT and UPDATE instead of the ORM's flush: the returned entry is a plain (transient) LogEntry
    # carrying every column, id included.
    values = {column: getattr(entry, column) for column in _ENTRY_COLUMNS}
    inserted = cast(CursorResult[Any], db.execute(_INSERT_ENTRY, values)).inserted_primary_key
    assert inserted is not None  # an INSERT of one row always has it
    entry.id = inserted[0]
    db.execute(_MOVE_HEAD, {"campaign": acc.campaign.id, "head": entry.hash})
    emit(db, EntryWritten(acc.campaign.id, seq, kind, visibility))  # the Discord bridge (app/notify) may post it
    return entry


_ENTRY_COLUMNS = tuple(column.key for column in LogEntry.__table__.columns if column.key != "id")


def check_note(note: str) -> str:
    note = note.strip()
    if len(note) > 500:
        raise BadRequest(_("Keep the note under 500 characters."), field="note")
    return note


def append_note(
    db: Session,
    acc: Access,
    *,
    kind: str,
    action: str,
    summary: Summary,
    visibility: str = "public",
    request: dict[str, Any] | None = None,
    outcome: dict[str, Any] | None = None,
    note: str = "",
    character: Character | None = None,
    target_seq: int | None = None,
    subject_id: int | None = None,
    extra: dict[str, Any] | None = None,
    publish: Publish = no_publish,
    also: Callable[[], object] | None = None,
) -> LogEntry:
    """A narrator action or announcement (session start, void, reveal) as a chained entry.
    `also` runs after the entry is written and before the commit: its changes land with the entry or not at all."""
    with appending(db, acc, publish) as (seq, prev_hash):
        entry = write_entry(
            db,
            acc,
            seq,
            prev_hash,
            kind=kind,
            system="table",
            action=action,
            visibility=visibility,
            character=character,
            target_seq=target_seq,
            subject_id=subject_id,
            content={"request": request, "outcome": outcome, "summary": summary, "note": note, **(extra or {})},
        )
        if also is not None:
            also()
    return entry
