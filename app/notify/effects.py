"""What the write path declares (app/rolls/effects.py), queued in the outbox inside the cause's transaction: an
encounter's new waits, a roll call, a whisper or @mention (pushes, app/notify/service.py), and every public entry
of a kind a campaign's Discord bridge posts."""

from __future__ import annotations

import threading
import weakref
from typing import Any, cast

from sqlalchemy import CursorResult, Table, bindparam, insert, literal, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from app.live import access as access_events
from app.notify.models import DiscordBridge, OutboxItem
from app.notify.service import DISCORD_DEADLINE, KIND_POSTS, queue_prompts, queue_talk, queue_waits
from app.rolls import effects
from app.types import utcnow

_outbox, _bridges = cast(Table, OutboxItem.__table__), cast(Table, DiscordBridge.__table__)
# One statement on the hot path, and only for public entries of a kind a bridge may post: it inserts nothing
# when the campaign has no active bridge that posts this kind (no round trip to find out first).
_QUEUE_DISCORD = insert(_outbox).from_select(
    ["channel", "campaign_id", "payload", "tag", "created_at", "due_at", "deadline_at", "attempts", "last_error"],
    select(
        literal("discord"),
        _bridges.c.campaign_id,
        bindparam("payload", type_=_outbox.c.payload.type),
        bindparam("tag"),
        bindparam("now", type_=_outbox.c.created_at.type),
        bindparam("now2", type_=_outbox.c.due_at.type),
        bindparam("deadline", type_=_outbox.c.deadline_at.type),
        literal(0),
        literal(""),
    ).where(
        _bridges.c.campaign_id == bindparam("campaign"),
        _bridges.c.active.is_(True),
        _bridges.c.post.like(bindparam("post")),
    ),
)


class _Bridged:
    """Which campaigns have an active Discord bridge, as last read, for one engine: most have none, and asking on
    every entry cost a statement each (issue 34). Forgotten on every change of a bridge or a campaign
    (app/live/access.py: in this process as it is written and after its commit, from others through the broker);
    a read that such a change overtook is not kept."""

    def __init__(self) -> None:
        self.known: dict[int, bool] = {}
        self.forgets = 0
        self.guard = threading.Lock()

    def forget(self, campaign_id: int, event: str, _user_id: int | None) -> None:
        if event != access_events.CHANGED:
            return
        with self.guard:
            self.forgets += 1
            if campaign_id == access_events.EVERY_CAMPAIGN:
                self.known = {}
            else:
                self.known.pop(campaign_id, None)

    def remember(self, campaign_id: int, bridged: bool, forgets: int) -> None:
        with self.guard:
            if forgets == self.forgets:
                if len(self.known) >= 100_000:
                    self.known = {}
                self.known[campaign_id] = bridged


_BRIDGED: weakref.WeakKeyDictionary[Engine, _Bridged] = weakref.WeakKeyDictionary()
_BRIDGED_GUARD = threading.Lock()


def bridged(db: Session, campaign_id: int) -> bool:
    """Whether the campaign has an active Discord bridge (from memory when this process read it before)."""
    engine = db.get_bind().engine
    memo = _BRIDGED.get(engine)
    if memo is None:
        with _BRIDGED_GUARD:
            memo = _BRIDGED.get(engine)
            if memo is None:
                memo = _BRIDGED[engine] = _Bridged()
                access_events.listen(engine, memo.forget)
    known = memo.known.get(campaign_id)
    if known is None:
        forgets = memo.forgets
        known = db.scalar(_ACTIVE_BRIDGE, {"campaign": campaign_id}) is not None
        memo.remember(campaign_id, known, forgets)
    return known


def queue_discord(db: Session, campaign_id: int, seq: int, kind: str, visibility: str) -> None:
    """For every entry the log writer appends: a public entry of a kind the bridge posts is queued (by seq;
    the sender reads the entry and posts it in the campaign's language)."""
    post = KIND_POSTS.get(kind)
    if post is None or visibility != "public" or not bridged(db, campaign_id):
        return
    now = utcnow()
    queued = db.execute(
        _QUEUE_DISCORD,
        {
            "payload": {"seq": seq},
            "tag": f"entry-{campaign_id}-{seq}",
            "now": now,
            "now2": now,
            "deadline": now + DISCORD_DEADLINE,
            "campaign": campaign_id,
            "post": f"%{post}%",
        },
    )
    if cast(CursorResult[Any], queued).rowcount:
        effects.delivery_queued(db)


_ACTIVE_BRIDGE = select(_bridges.c.campaign_id).where(
    _bridges.c.campaign_id == bindparam("campaign"), _bridges.c.active.is_(True)
)


def _entry_written(db: Session, event: effects.EntryWritten) -> None:
    queue_discord(db, event.campaign_id, event.seq, event.kind, event.visibility)


def _waits_changed(db: Session, event: effects.WaitsChanged) -> None:
    queue_waits(
        db,
        event.campaign,
        actor_id=event.actor_id,
        before=event.before,
        after=event.after,
        encounter=event.encounter,
        names=event.names,
    )


def _prompts_opened(db: Session, event: effects.PromptsOpened) -> None:
    queue_prompts(db, event.campaign, event.prompts, actor_id=event.actor_id)


def _talk_posted(db: Session, event: effects.TalkPosted) -> None:
    queue_talk(
        db,
        event.campaign,
        seq=event.seq,
        author=event.author,
        actor_id=event.actor_id,
        whispered=event.whispered,
        mentioned=event.mentioned,
    )


def subscribe_effects() -> None:
    """Queue what the write path declares (create_app calls it; importing this module does too)."""
    effects.subscribe(effects.EntryWritten, _entry_written)
    effects.subscribe(effects.WaitsChanged, _waits_changed)
    effects.subscribe(effects.PromptsOpened, _prompts_opened)
    effects.subscribe(effects.TalkPosted, _talk_posted)


subscribe_effects()
