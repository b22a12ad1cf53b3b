"""Handouts: the library, showing a picture (a chained log entry naming its SHA-256 and its recipients) and the
scene (its pins: app/handouts/pins.py). Who may see a picture is decided here (`can_see`, `visible_handouts`),
from the same facts the log records; who may read a log entry stays app/rolls/visibility.py's (a RECIPIENTS
entry: its `to` and narrators)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.campaigns.models import Membership
from app.campaigns.service import Access, in_campaign, require_narrator
from app.errors import BadRequest, NotFound
from app.handouts.images import CONTENT_TYPES, Prepared
from app.handouts.models import Handout, HandoutShow, Scene
from app.handouts.store import MediaStore, blob_key
from app.i18n import _, join, msg
from app.inputs import text_problem
from app.live.events import LiveEvent
from app.rolls import idempotency
from app.rolls.appending import Publish, appending, no_publish, write_entry
from app.rolls.idempotency import Once
from app.rolls.models import LogEntry
from app.rolls.visibility import RECIPIENTS, Visibility
from app.types import utcnow

MAX_TITLE = 120
MAX_RECIPIENTS = 50

# Live events (docs/ARCHITECTURE.md, "Events"): the handouts panel and library; the scene and its pins.
HANDOUTS_EVENT = LiveEvent.HANDOUTS
SCENE_EVENT = LiveEvent.SCENE


def _missing() -> NotFound:
    return NotFound(_("No such handout."))


def clean_title(title: str) -> str:
    title = " ".join(title.split())
    problem = text_problem(title)
    if problem:
        raise BadRequest(f"{_('Title')}: {problem}.", field="title")
    if not title:
        raise BadRequest(_("Give the handout a title."), field="title")
    if len(title) > MAX_TITLE:
        raise BadRequest(_("Keep the title under 120 characters."), field="title")
    return title


def handout_of(db: Session, acc: Access, handout_id: int) -> Handout:
    """A handout of this campaign that is still in the library (the same 404 for any other)."""
    handout = in_campaign(db, acc, Handout, handout_id, _("No such handout."))
    if handout.deleted_at is not None:
        raise _missing()
    return handout


def _shown_filter(user_id: int) -> Any:
    return or_(HandoutShow.user_id.is_(None), HandoutShow.user_id == user_id)


def can_see(db: Session, acc: Access, handout: Handout) -> bool:
    if handout.deleted_at is not None or handout.campaign_id != acc.campaign.id:
        return False
    if acc.is_narrator:
        return True
    return (
        db.scalar(
            select(HandoutShow.id).where(HandoutShow.handout_id == handout.id, _shown_filter(acc.user.id)).limit(1)
        )
        is not None
    )


def visible_handout(db: Session, acc: Access, handout_id: int) -> Handout:
    """A handout this viewer may see; for anyone else the same 404 as for an id that does not exist."""
    handout = db.get(Handout, handout_id)
    if handout is None or not can_see(db, acc, handout):
        raise _missing()
    return handout


def visible_handouts(db: Session, acc: Access) -> list[Handout]:
    """The library for narrators; for a player what was shown to them (to them or to everyone), newest first."""
    query = select(Handout).where(Handout.campaign_id == acc.campaign.id, Handout.deleted_at.is_(None))
    if not acc.is_narrator:
        shown = select(HandoutShow.handout_id).where(_shown_filter(acc.user.id))
        query = query.where(Handout.id.in_(shown))
    return list(db.scalars(query.order_by(Handout.id.desc())))


def recipients_of(db: Session, handout_ids: Sequence[int]) -> dict[int, set[int | None]]:
    """For the narrator's library: whom each handout was shown to (None: everyone)."""
    found: dict[int, set[int | None]] = {hid: set() for hid in handout_ids}
    if handout_ids:
        for hid, uid in db.execute(
            select(HandoutShow.handout_id, HandoutShow.user_id).where(HandoutShow.handout_id.in_(handout_ids))
        ):
            found[hid].add(uid)
    return found


def add_handout(db: Session, acc: Access, store: MediaStore, prepared: Prepared, title: str) -> Handout:
    """Store the checked picture and its copies, then its row. Blobs are immutable and named by their hash, so
    one written for a row that then fails to commit is harmless, and `forget_blobs` takes it away again."""
    require_narrator(acc)
    title = clean_title(title)
    sha = prepared.sha256
    store.put(blob_key(sha), prepared.data, CONTENT_TYPES[prepared.fmt])
    for width, data in prepared.copies.items():
        store.put(blob_key(sha, width), data, CONTENT_TYPES["webp"])
    handout = Handout(
        campaign_id=acc.campaign.id,
        title=title,
        sha256=sha,
        fmt=prepared.fmt,
        width=prepared.width,
        height=prepared.height,
        size=len(prepared.data),
        copies=sorted(prepared.copies),
        created_by=acc.user.id,
    )
    db.add(handout)
    db.flush()
    return handout


def forget_blobs(db: Session, store: MediaStore, sha: str, widths: Sequence[int]) -> None:
    """Take a picture's blobs away unless a handout still in a library (any campaign) uses the same bytes."""
    if db.scalar(select(Handout.id).where(Handout.sha256 == sha, Handout.deleted_at.is_(None)).limit(1)):
        return
    for width in (None, *widths):
        store.delete(blob_key(sha, width))


def _handout_outcome(handout: Handout) -> dict[str, Any]:
    return {"handout_id": handout.id, "title": handout.title, "sha256": handout.sha256}


def _recipients(db: Session, acc: Access, to: Literal["all"] | list[int]) -> list[int] | None:
    """None for everyone; else the chosen members' ids, each a member of this campaign."""
    if to == "all":
        return None
    if not isinstance(to, list) or not to:
        raise BadRequest(_("Choose whom to show it to: everyone, or at least one player."), field="to")
    chosen = sorted(set(to))
    if len(chosen) > MAX_RECIPIENTS:
        raise BadRequest(_("Show it to at most 50 members at once, or to everyone."), field="to")
    members = set(
        db.scalars(
            select(Membership.user_id).where(Membership.campaign_id == acc.campaign.id, Membership.user_id.in_(chosen))
        )
    )
    if members != set(chosen):
        raise BadRequest(_("Only members of this campaign can be shown a handout."), field="to")
    return chosen


def show_handout(
    db: Session,
    acc: Access,
    handout_id: int,
    to: Literal["all"] | list[int],
    publish: Publish = no_publish,
    once: Once | None = None,
) -> LogEntry:
    """Show a picture: one entry (kind "handout") naming its title and SHA-256 and whom it went to, readable by
    them and the narrators, and the rows that let them fetch it — in one commit."""
    require_narrator(acc)
    handout = handout_of(db, acc, handout_id)
    chosen = _recipients(db, acc, to)
    if chosen is None:
        summary = msg("shows the handout “{title}” to everyone", title=handout.title)
    else:
        summary = msg(
            "shows the handout “{title}” to {names}", title=handout.title, names=join(_usernames(db, chosen), ", ")
        )
    outcome = {**_handout_outcome(handout), "to": "all" if chosen is None else chosen}

    def record(seq: int) -> None:
        for uid in [None] if chosen is None else chosen:
            db.add(HandoutShow(handout_id=handout.id, user_id=uid, entry_seq=seq))

    entry = log_change(
        db,
        acc,
        kind="handout",
        action="show",
        summary=summary,
        outcome=outcome,
        visibility=Visibility.PUBLIC if chosen is None else RECIPIENTS,
        publish=publish,
        change=record,
        once=once,
    )
    publish(acc.campaign.id, HANDOUTS_EVENT, handout.id)
    return entry


def _usernames(db: Session, user_ids: Sequence[int]) -> list[str]:
    from app.accounts.models import User

    names = dict(db.execute(select(User.id, User.username).where(User.id.in_(user_ids))).all())
    return [names[uid] for uid in user_ids if uid in names]


def log_change(
    db: Session,
    acc: Access,
    *,
    kind: str,
    action: str,
    summary: Any,
    outcome: dict[str, Any],
    visibility: str,
    publish: Publish,
    change: Callable[[int], object] | None = None,
    once: Once | None = None,
) -> LogEntry:
    """One chained entry and the state change it records, in one transaction under the log's head lock (every
    write inside it, so no row is written before the lock is taken); published after the commit. A repeated
    Idempotency-Key is checked under the lock too (two racing retries: one acts, the other is a replay)."""
    once = once or Once()
    with appending(db, acc, publish) as (seq, prev_hash):
        idempotency.check(db, acc, once)  # Replayed rolls back: the seq taken is given back
        if change is not None:
            change(seq)
            db.flush()
        entry = write_entry(
            db,
            acc,
            seq,
            prev_hash,
            kind=kind,
            system="table",
            action=action,
            visibility=visibility,
            content={"outcome": outcome, "summary": summary},
            idempotency_key=once.key,
            request_hash=once.digest,
        )
    return entry


# --- the scene ------------------------------------------------------------------------------------------------


def current_scene(db: Session, acc: Access) -> Handout | None:
    scene = db.get(Scene, acc.campaign.id)
    if scene is None or scene.handout_id is None:
        return None
    handout = db.get(Handout, scene.handout_id)
    return handout if handout is not None and handout.deleted_at is None else None


def set_scene(
    db: Session, acc: Access, handout_id: int | None, publish: Publish = no_publish, once: Once | None = None
) -> LogEntry:
    """The campaign's scene picture (or none): a public entry (kind "scene"); the picture is shown to everyone."""
    require_narrator(acc)
    handout = handout_of(db, acc, handout_id) if handout_id is not None else None

    def change(seq: int) -> None:
        scene = db.get(Scene, acc.campaign.id)
        if scene is None:
            scene = Scene(campaign_id=acc.campaign.id)
            db.add(scene)
        scene.handout_id = handout.id if handout else None
        if handout is not None and not db.scalar(
            select(HandoutShow.id).where(HandoutShow.handout_id == handout.id, HandoutShow.user_id.is_(None)).limit(1)
        ):
            db.add(HandoutShow(handout_id=handout.id, user_id=None, entry_seq=seq))

    if handout is None:
        summary, outcome = msg("takes the scene away"), {"handout_id": None}
    else:
        summary, outcome = msg("sets the scene: “{title}”", title=handout.title), _handout_outcome(handout)
    entry = log_change(
        db,
        acc,
        kind="scene",
        action="set" if handout else "clear",
        summary=summary,
        outcome=outcome,
        visibility=Visibility.PUBLIC,
        publish=publish,
        change=change,
        once=once,
    )
    publish(acc.campaign.id, SCENE_EVENT, None)
    publish(acc.campaign.id, HANDOUTS_EVENT, handout.id if handout else None)
    return entry


def delete_handout(db: Session, acc: Access, store: MediaStore, handout_id: int, publish: Publish = no_publish) -> None:
    """Out of the library: served to no one any more (404). The log's entries stay and still verify. The scene
    it was is taken away first (an entry)."""
    require_narrator(acc)
    handout = handout_of(db, acc, handout_id)
    scene = current_scene(db, acc)
    if scene is not None and scene.id == handout.id:
        set_scene(db, acc, None, publish)
    handout.deleted_at = utcnow()
    db.commit()
    forget_blobs(db, store, handout.sha256, handout.copies)
    db.commit()
    publish(acc.campaign.id, HANDOUTS_EVENT, handout.id)
