"""Push subscriptions, notification choices and the Discord bridge; and queuing deliveries in the outbox.

Every `queue_*` function runs inside its cause's transaction (a roll prompt, an encounter step, a log entry): the
delivery is committed with its cause or not at all, and the sender (app/notify/outbox.py) sends it after the
commit. What a notification says is made here, in the recipient's language, from what that recipient may read.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, cast
from urllib.parse import urlsplit

from sqlalchemy import CursorResult, Table, and_, bindparam, delete, insert, literal, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.campaigns.models import Campaign, Membership
from app.campaigns.service import Access, require_narrator
from app.characters.models import Character
from app.encounters.models import Encounter
from app.encounters.titles import encounter_title
from app.errors import BadRequest, NotFound
from app.i18n import _, get_locale, set_locale
from app.live import access as access_events
from app.notify.models import DiscordBridge, NotifyChoice, OutboxItem, PushSubscription
from app.outbound import OutboundPolicy, OutboundRefused
from app.rolls import effects
from app.rolls.models import RollPrompt
from app.types import utcnow

PUSH_DEADLINE = timedelta(hours=24)
DISCORD_DEADLINE = timedelta(hours=1)
POSTS = ("rolls", "talk", "sessions")
# Which public entries each Discord choice posts (an entry's kind → the choice that covers it).
KIND_POSTS = {"action": "rolls", "reveal": "rolls", "message": "talk", "session": "sessions"}
MAX_SUBSCRIPTIONS = 20


def refused(exc: OutboundRefused, field: str) -> BadRequest:
    return BadRequest(_("This address cannot be used: {reason}.").format(reason=exc.said()), field=field)


# --- subscriptions -------------------------------------------------------------------------------------------


def subscribe(
    db: Session, user: User, policy: OutboundPolicy, *, endpoint: str, p256dh: str, auth: str, device: str = ""
) -> PushSubscription:
    try:
        policy.check(endpoint)
    except OutboundRefused as exc:
        raise refused(exc, "endpoint") from exc
    for value, field, low, high in ((p256dh, "keys.p256dh", 80, 100), (auth, "keys.auth", 16, 32)):
        if not (low <= len(value) <= high) or not all(c.isalnum() or c in "-_=" for c in value):
            raise BadRequest(_("The subscription's key is not valid."), field=field)
    existing = db.scalar(
        select(PushSubscription).where(PushSubscription.user_id == user.id, PushSubscription.endpoint == endpoint)
    )
    if existing is not None:
        existing.p256dh, existing.auth = p256dh, auth
        db.commit()
        return existing
    count = len(db.scalars(select(PushSubscription.id).where(PushSubscription.user_id == user.id)).all())
    if count >= MAX_SUBSCRIPTIONS:
        raise BadRequest(
            _("You have {n} devices signed up already: remove one first.").format(n=count), field="endpoint"
        )
    sub = PushSubscription(user_id=user.id, endpoint=endpoint, p256dh=p256dh, auth=auth, device=device[:120])
    db.add(sub)
    db.commit()
    return sub


def unsubscribe(db: Session, user: User, subscription_id: int) -> None:
    sub = db.get(PushSubscription, subscription_id)
    if sub is None or sub.user_id != user.id:
        raise NotFound(_("No such device."))
    db.delete(sub)
    db.commit()


def subscriptions_of(db: Session, user: User) -> list[PushSubscription]:
    return list(
        db.scalars(select(PushSubscription).where(PushSubscription.user_id == user.id).order_by(PushSubscription.id))
    )


def wants_push(db: Session, user_id: int, campaign_id: int) -> bool:
    choice = db.get(NotifyChoice, (user_id, campaign_id))
    return choice is None or choice.push


def set_choice(db: Session, acc: Access, push: bool) -> None:
    choice = db.get(NotifyChoice, (acc.user.id, acc.campaign.id))
    if choice is None:
        db.add(NotifyChoice(user_id=acc.user.id, campaign_id=acc.campaign.id, push=push))
    else:
        choice.push = push
    db.commit()


# --- queuing pushes (inside the cause's transaction) ---------------------------------------------------------


@contextmanager
def _speaking(locale: str) -> Any:
    before = get_locale()
    set_locale(locale)
    try:
        yield
    finally:
        set_locale(before)


Words = Callable[[], tuple[str, str]]  # (title, body), made in the recipient's language


def queue_push(
    db: Session, campaign: Campaign, user_ids: Iterable[int], *, actor_id: int | None, words: Words, url: str, tag: str
) -> int:
    """A push to every device of these users, except the actor and those who chose nothing for this campaign.
    Returns how many deliveries were queued."""
    users = {uid for uid in user_ids if uid is not None and uid != actor_id}
    if not users:
        return 0
    rows = db.execute(
        select(PushSubscription.id, PushSubscription.user_id, User.locale)
        .join(User, User.id == PushSubscription.user_id)
        .join(Membership, and_(Membership.user_id == User.id, Membership.campaign_id == campaign.id))
        .where(PushSubscription.user_id.in_(users))
    ).all()
    if not rows:
        return 0
    muted = set(
        db.scalars(
            select(NotifyChoice.user_id).where(
                NotifyChoice.campaign_id == campaign.id, NotifyChoice.user_id.in_(users), NotifyChoice.push.is_(False)
            )
        )
    )
    now, made = utcnow(), 0
    said: dict[str, tuple[str, str]] = {}
    for sub_id, user_id, locale in rows:
        if user_id in muted:
            continue
        lang = locale or campaign.language or "en"
        if lang not in said:
            with _speaking(lang):
                said[lang] = words()
        title, body = said[lang]
        db.add(
            OutboxItem(
                channel="push",
                campaign_id=campaign.id,
                subscription_id=sub_id,
                tag=tag[:120],
                payload={"title": title[:200], "body": body[:400], "url": url, "tag": tag[:120]},
                due_at=now,
                deadline_at=now + PUSH_DEADLINE,
            )
        )
        made += 1
    if made:
        effects.delivery_queued(db)  # the sender looks after the commit (app/rolls/effects.py)
    return made


def owners_of(db: Session, character_ids: Iterable[int]) -> dict[int, int]:
    """character id → its owner's user id (characters without an owner are left out)."""
    ids = list(set(character_ids))
    if not ids:
        return {}
    return {
        cid: owner
        for cid, owner in db.execute(select(Character.id, Character.owner_id).where(Character.id.in_(ids))).all()
        if owner is not None
    }


def queue_waits(
    db: Session,
    campaign: Campaign,
    *,
    actor_id: int,
    before: Mapping[int, str],
    after: Mapping[int, str],
    encounter: Encounter,
    names: Mapping[int, str],
) -> int:
    """An encounter step made someone's character wait for its player: a move in a duel, a turn in a combat, a
    team's disposition, script, roll or Fate decision. `before`/`after`: the system's `awaited` answer (character
    id → what it waits for) around the step; each wait that is new after it notifies the character's owner once."""
    new = {cid: key for cid, key in after.items() if before.get(cid) != key}
    if not new:
        return 0
    owners = owners_of(db, new)
    made = 0
    for cid, key in new.items():
        owner = owners.get(cid)
        if owner is None:
            continue
        name = names.get(cid) or next(
            (str(p.get("name", "")) for p in encounter.participants if p.get("character_id") == cid), ""
        )

        def words(name: str = name) -> tuple[str, str]:
            return (
                _("Your move: {name}").format(name=name),
                _("{title} waits for {name}.").format(title=encounter_title(encounter), name=name),
            )

        made += queue_push(
            db,
            campaign,
            [owner],
            actor_id=actor_id,
            words=words,
            url=f"/campaigns/{campaign.id}/encounters/{encounter.id}",
            tag=f"wait-{encounter.id}-{cid}-{key}",
        )
    return made


def queue_prompts(db: Session, campaign: Campaign, prompts: Iterable[RollPrompt], *, actor_id: int) -> int:
    """A narrator's roll call waits for each character's player (on the character's sheet, where it is answered)."""
    made = 0
    made_for = list(prompts)
    owners = owners_of(db, [p.character_id for p in made_for])
    names = dict(
        db.execute(
            select(Character.id, Character.name).where(Character.id.in_([p.character_id for p in made_for]))
        ).all()
    )
    for prompt in made_for:
        name, note = names.get(prompt.character_id, ""), prompt.note

        def words(name: str = name, note: str = note) -> tuple[str, str]:
            return _("A roll for {name}").format(name=name), note or _("The narrator calls for a roll.")

        made += queue_push(
            db,
            campaign,
            [owners.get(prompt.character_id, 0)],
            actor_id=actor_id,
            words=words,
            url=f"/campaigns/{campaign.id}/characters/{prompt.character_id}",
            tag=f"prompt-{prompt.id}",
        )
    return made


def queue_talk(
    db: Session,
    campaign: Campaign,
    *,
    seq: int,
    author: str,
    actor_id: int,
    whispered: Iterable[int],
    mentioned: Iterable[int],
) -> int:
    """A whisper waits for its recipients and an @mention for whoever it names (only members who may read the line:
    app/talk decides). The notification says who, never what: a whisper's words stay in the log."""
    whisper_to = set(whispered)
    made = 0
    if whisper_to:
        made += queue_push(
            db,
            campaign,
            whisper_to,
            actor_id=actor_id,
            url=f"/campaigns/{campaign.id}",
            tag=f"whisper-{campaign.id}-{seq}",
            words=lambda: (
                _("{name} whispers to you").format(name=author),
                _("Open {campaign} to read it.").format(campaign=campaign.name),
            ),
        )
    named = set(mentioned) - whisper_to
    if named:
        made += queue_push(
            db,
            campaign,
            named,
            actor_id=actor_id,
            url=f"/campaigns/{campaign.id}",
            tag=f"mention-{campaign.id}-{seq}",
            words=lambda: (
                _("{name} mentions you").format(name=author),
                _("Open {campaign} to read it.").format(campaign=campaign.name),
            ),
        )
    return made


# --- the Discord bridge --------------------------------------------------------------------------------------


def masked(url: str) -> str:
    """The webhook's origin and path with its token masked (what pages and the API show)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    head, _sep, token = path.rpartition("/")
    shown = f"{head}/{token[:4]}…" if head and token else path
    return f"{parts.scheme}://{parts.netloc}{shown}"


def bridge_of(db: Session, campaign_id: int) -> DiscordBridge | None:
    return db.get(DiscordBridge, campaign_id)


def set_bridge(db: Session, acc: Access, policy: OutboundPolicy, *, webhook_url: str, post: list[str]) -> DiscordBridge:
    require_narrator(acc)
    try:
        policy.check(webhook_url)
    except OutboundRefused as exc:
        raise refused(exc, "webhook_url") from exc
    unknown = [p for p in post if p not in POSTS]
    if unknown:
        raise BadRequest(_("Choose what to post from: rolls, talk, sessions."), field="post")
    chosen = ",".join(p for p in POSTS if p in post)
    bridge = db.get(DiscordBridge, acc.campaign.id)
    if bridge is None:
        bridge = DiscordBridge(campaign_id=acc.campaign.id, webhook_url=webhook_url.strip(), post=chosen)
        db.add(bridge)
    else:
        bridge.webhook_url, bridge.post = webhook_url.strip(), chosen
        bridge.active, bridge.problem, bridge.updated_at = True, "", utcnow()
        db.execute(delete(OutboxItem).where(OutboxItem.channel == "discord", OutboxItem.campaign_id == acc.campaign.id))
    db.commit()
    return bridge


def remove_bridge(db: Session, acc: Access) -> None:
    require_narrator(acc)
    bridge = db.get(DiscordBridge, acc.campaign.id)
    if bridge is None:
        raise NotFound(_("This campaign has no Discord bridge."))
    db.execute(delete(OutboxItem).where(OutboxItem.channel == "discord", OutboxItem.campaign_id == acc.campaign.id))
    db.delete(bridge)
    db.commit()


def bridge_json(bridge: DiscordBridge) -> dict[str, Any]:
    return {
        "webhook": masked(bridge.webhook_url),
        "post": [p for p in bridge.post.split(",") if p],
        "active": bridge.active,
        "problem": bridge.problem or None,
    }


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


def payload_text(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


# --- what the write path declares (app/rolls/effects.py): queued in the cause's transaction ---------------------


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
    """Queue what the write path declares (create_app calls it; importing this module does too, so a script or a
    test that writes without the app still queues)."""
    effects.subscribe(effects.EntryWritten, _entry_written)
    effects.subscribe(effects.WaitsChanged, _waits_changed)
    effects.subscribe(effects.PromptsOpened, _prompts_opened)
    effects.subscribe(effects.TalkPosted, _talk_posted)


subscribe_effects()
