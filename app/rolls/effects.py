"""What a write declares, and who acts on it: the write path (the rules service, app/talk, app/handouts, roll
prompts) names what happened as a small event; the features above it subscribe. The write path imports none of
them (tests/test_layering.py), the way Zulip's actions send events and never call the notification code.

Two moments:

- **In the transaction** (`emit`): a subscriber runs inside the cause's transaction, so what it writes commits
  with the cause or not at all. app/notify/service.py subscribes here: an outbox row (a push, a Discord post) is
  queued by the commit that caused it — a crash between a commit and a later queue would lose it.
- **After the commit**: the live events go to the `publish` the caller passed (the broker; the group writer
  holds them until its batch is committed), and, only when a subscriber queued a delivery
  (`delivery_queued`), the internal event OUTBOX_QUEUED, which wakes this process's outbox sender
  (app/main.py); a commit made outside appending() wakes it through `on_delivery`. Nothing is announced for a
  transaction that rolled back.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from app.campaigns.models import Campaign
from app.encounters.models import Encounter
from app.rolls.models import RollPrompt


class Internal(StrEnum):
    """Events published after a commit that no client ever sees."""

    # A commit queued a delivery (through the caller's publish): heard by this process's hooks only (app/main.py
    # keeps it off the broker's wire and away from the streams) — it wakes the outbox sender.
    OUTBOX_QUEUED = "outbox"


OUTBOX_QUEUED = Internal.OUTBOX_QUEUED
_QUEUED = "fateboard.delivery_queued"


@dataclass(frozen=True)
class EntryWritten:
    """A log entry was appended (app/rolls/appending.py's write_entry): the Discord bridge may post it."""

    campaign_id: int
    seq: int
    kind: str
    visibility: str


@dataclass(frozen=True)
class WaitsChanged:
    """An encounter step: `before`/`after` are the system's `awaited` answers (character id → what it waits for)."""

    campaign: Campaign
    actor_id: int
    before: Mapping[int, str]
    after: Mapping[int, str]
    encounter: Encounter
    names: Mapping[int, str]


@dataclass(frozen=True)
class PromptsOpened:
    """A narrator called for rolls: each waits for its character's player."""

    campaign: Campaign
    prompts: tuple[RollPrompt, ...]
    actor_id: int


@dataclass(frozen=True)
class TalkPosted:
    """A message: its whisper's recipients and the members it @mentions (only those who may read it)."""

    campaign: Campaign
    seq: int
    author: str
    actor_id: int
    whispered: tuple[int, ...]
    mentioned: tuple[int, ...]


E = TypeVar("E")
_SUBSCRIBERS: dict[type[Any], list[Callable[[Session, Any], object]]] = {}


def subscribe(kind: type[E], handler: Callable[[Session, E], object]) -> None:
    """Run `handler(db, event)` inside the transaction of every `emit` of this kind (once, however often it is
    subscribed)."""
    handlers = _SUBSCRIBERS.setdefault(kind, [])
    if handler not in handlers:
        handlers.append(handler)


def emit(db: Session, event: object) -> None:
    for handler in _SUBSCRIBERS.get(type(event), ()):
        handler(db, event)


def delivery_queued(db: Session) -> None:
    """A subscriber queued a delivery in this transaction: wake the sender after the commit."""
    db.info[_QUEUED] = True


def take_queued(db: Session) -> bool:
    """Whether this transaction queued a delivery (and forget it): read before the commit, acted on after it."""
    return bool(db.info.pop(_QUEUED, False))


_wakers: weakref.WeakKeyDictionary[Engine, Callable[[], object]] = weakref.WeakKeyDictionary()


def on_delivery(engine: Engine, wake: Callable[[], object]) -> None:
    """`wake()` after any other commit on `engine` that queued a delivery (a roll call, app/between's pushes:
    a session that commits by itself; appending() takes its mark before its commit and publishes it instead,
    so that the group writer holds it until its batch is committed)."""
    _wakers[engine] = wake


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if not session.info.pop(_QUEUED, False):
        return
    bind = session.bind
    if bind is None:
        return
    wake = _wakers.get(bind.engine if isinstance(bind, Connection) else bind)
    if wake is not None:
        wake()


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_QUEUED, None)
