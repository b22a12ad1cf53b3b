"""The schedule: narrators propose game sessions (a time with its offset, stored in UTC), members answer yes /
maybe / no, calendars (.ics per campaign, a secret feed per member) and cancellations that tell who was coming.
Reminders are app/between/reminders.py."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.recovery import queue_mail
from app.between.catchup import iso
from app.between.models import CalendarFeed, PlannedSession, Rsvp
from app.campaigns.models import Campaign, Membership
from app.campaigns.service import Access, in_campaign, members, require_narrator
from app.errors import BadRequest, NotFound
from app.i18n import _, datetime_of, get_locale, set_locale
from app.notify.service import queue_push
from app.types import utcnow

ANSWERS = ("yes", "maybe", "no")
MIN_MINUTES, MAX_MINUTES, DEFAULT_MINUTES = 15, 1440, 180
MAX_TITLE = 120
# How far back a session still counts as upcoming: one that has begun and not ended yet is still listed.
LONGEST = timedelta(minutes=MAX_MINUTES)


def parse_start(value: str) -> datetime:
    """An ISO 8601 time with an offset ("2026-12-24T19:30:00+01:00" or "…Z"), in the future → UTC."""
    text = value.strip()
    if text.endswith(("z", "Z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadRequest(
            _("Give the time as ISO 8601 with its offset, e.g. 2026-12-24T19:30:00+01:00."), field="starts_at"
        ) from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise BadRequest(_("Say which time zone: add the offset, e.g. 2026-12-24T19:30:00+01:00."), field="starts_at")
    moment = moment.astimezone(UTC)
    if moment <= utcnow():
        raise BadRequest(_("The session must start in the future."), field="starts_at")
    return moment


def clean_title(title: str | None) -> str:
    text = " ".join((title or "").split())
    if len(text) > MAX_TITLE:
        raise BadRequest(_("A title has at most {n} characters.").format(n=MAX_TITLE), field="title")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise BadRequest(_("The text holds control characters: take them out."), field="title")
    return text


def check_minutes(minutes: int) -> int:
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise BadRequest(
            _("A session lasts {low} to {high} minutes.").format(low=MIN_MINUTES, high=MAX_MINUTES),
            field="duration_minutes",
        )
    return minutes


def propose(
    db: Session, acc: Access, *, starts_at: str, duration_minutes: int = DEFAULT_MINUTES, title: str | None = None
) -> PlannedSession:
    """A narrator proposes a session (the caller commits). A reminder that would already be due is not sent:
    a session less than 24 hours away gets only the one-hour reminder."""
    require_narrator(acc)
    start = parse_start(starts_at)
    planned = PlannedSession(
        campaign_id=acc.campaign.id,
        starts_at=start,
        duration_minutes=check_minutes(duration_minutes),
        title=clean_title(title),
        created_by=acc.user.id,
    )
    now = utcnow()
    if start - now <= timedelta(hours=24):
        planned.reminded_24h_at = now
    if start - now <= timedelta(hours=1):
        planned.reminded_1h_at = now
    db.add(planned)
    db.flush()
    return planned


def ends_at(planned: PlannedSession) -> datetime:
    return planned.starts_at + timedelta(minutes=planned.duration_minutes)


def upcoming(db: Session, campaign_ids: Iterable[int]) -> list[PlannedSession]:
    """Sessions that have not ended, in time order."""
    ids = list(campaign_ids)
    if not ids:
        return []
    now = utcnow()
    rows = db.scalars(
        select(PlannedSession)
        .where(PlannedSession.campaign_id.in_(ids), PlannedSession.starts_at > now - LONGEST)
        .order_by(PlannedSession.starts_at, PlannedSession.id)
    )
    return [p for p in rows if ends_at(p) > now]


def planned_in(db: Session, acc: Access, session_id: int) -> PlannedSession:
    planned = in_campaign(db, acc, PlannedSession, session_id, _("No such planned session."))
    if ends_at(planned) <= utcnow():
        raise NotFound(_("No such planned session."))
    return planned


def answers(db: Session, session_ids: Iterable[int]) -> dict[int, dict[int, str]]:
    """session id → {user id: answer}, for members only (a member who left takes their answer with them)."""
    ids = list(session_ids)
    found: dict[int, dict[int, str]] = {i: {} for i in ids}
    if not ids:
        return found
    rows = db.execute(
        select(Rsvp.session_id, Rsvp.user_id, Rsvp.answer)
        .join(PlannedSession, PlannedSession.id == Rsvp.session_id)
        .join(
            Membership,
            (Membership.user_id == Rsvp.user_id) & (Membership.campaign_id == PlannedSession.campaign_id),
        )
        .where(Rsvp.session_id.in_(ids))
        .order_by(Rsvp.session_id, Rsvp.user_id)
    ).all()
    for sid, uid, answer in rows:
        found[sid][uid] = answer
    return found


def session_json(planned: PlannedSession, given: dict[int, str], viewer_id: int) -> dict[str, Any]:
    return {
        "id": planned.id,
        "starts_at": iso(planned.starts_at),
        "duration_minutes": planned.duration_minutes,
        "title": planned.title or None,
        "rsvps": [{"user_id": uid, "answer": answer} for uid, answer in sorted(given.items())],
        "mine": given.get(viewer_id),
    }


def answer(db: Session, acc: Access, session_id: int, value: str) -> PlannedSession:
    """A member's answer; a new one replaces the old (the caller commits)."""
    if value not in ANSWERS:
        raise BadRequest(_("Answer yes, maybe or no."), field="answer")
    planned = planned_in(db, acc, session_id)
    row = db.get(Rsvp, (planned.id, acc.user.id))
    if row is None:
        db.add(Rsvp(session_id=planned.id, user_id=acc.user.id, answer=value))
    else:
        row.answer, row.answered_at = value, utcnow()
    db.flush()
    return planned


@dataclass(frozen=True)
class Mail:
    on: bool  # an SMTP server is configured (Settings.smtp_url)
    base_url: str


def cancel(db: Session, acc: Access, session_id: int, mail: Mail) -> int:
    """A narrator cancels a session: it is deleted (gone from every calendar), and the members who said yes or
    maybe are told by push and e-mail, in their language. Returns how many were told (the caller commits)."""
    require_narrator(acc)
    planned = planned_in(db, acc, session_id)
    given = answers(db, [planned.id])[planned.id]
    coming = [uid for uid, value in given.items() if value in ("yes", "maybe")]
    tell(
        db,
        acc.campaign,
        planned,
        coming,
        mail,
        tag=f"cancel-{planned.id}",
        words=lambda when, title: (
            _("Cancelled: {title}").format(title=title),
            _("The session of {campaign} on {when} will not take place.").format(campaign=acc.campaign.name, when=when),
        ),
    )
    db.delete(planned)
    db.flush()
    return len(coming)


def session_name(planned: PlannedSession, campaign: Campaign) -> str:
    return planned.title or campaign.name


def tell(
    db: Session,
    campaign: Campaign,
    planned: PlannedSession,
    user_ids: Iterable[int],
    mail: Mail,
    *,
    tag: str,
    words: Any,
) -> None:
    """A push to every subscribed device (app/notify: the member's choice for the campaign holds) and an e-mail
    to every confirmed address when mail is on — each in the member's language, in the caller's transaction
    (the durable outbox sends them after the commit). `words(when, title) → (title, body)`."""
    ids = sorted(set(user_ids))
    if not ids:
        return
    users = {u.id: u for u in db.scalars(select(User).where(User.id.in_(ids)))}
    url = f"/campaigns/{campaign.id}"
    before = get_locale()
    try:
        for uid in ids:
            user = users.get(uid)
            if user is None:
                continue
            lang = user.locale or campaign.language or "en"

            def said(lang: str = lang) -> tuple[str, str]:
                set_locale(lang)
                result: tuple[str, str] = words(datetime_of(planned.starts_at), session_name(planned, campaign))
                return result

            queue_push(db, campaign, [uid], actor_id=None, words=said, url=url, tag=f"{tag}-{uid}")
            if mail.on and user.email:
                subject, body = said()
                queue_mail(db, to=user.email, subject=subject, body=f"{body}\n\n{mail.base_url}{url}")
    finally:
        set_locale(before)


# --- calendars ----------------------------------------------------------------------------------------------


def _ics_text(value: str) -> str:
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _fold(line: str) -> str:
    """RFC 5545 3.1: lines longer than 75 octets are folded (CRLF and a space), never inside a character."""
    out: list[str] = []
    current = b""
    for ch in line:
        piece = ch.encode("utf-8")
        if len(current) + len(piece) > (75 if not out else 74):
            out.append(current.decode("utf-8"))
            current = b""
        current += piece
    out.append(current.decode("utf-8"))
    return "\r\n ".join(out)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def uid_of(planned: PlannedSession, host: str) -> str:
    return f"fateboard-session-{planned.id}@{host}"


def calendar(sessions: Iterable[PlannedSession], campaigns: dict[int, Campaign], base_url: str, host: str) -> str:
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Fateboard//Between sessions//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
    ]
    for planned in sessions:
        campaign = campaigns[planned.campaign_id]
        summary = f"{campaign.name}: {planned.title}" if planned.title else campaign.name
        lines += [
            "BEGIN:VEVENT",
            f"UID:{uid_of(planned, host)}",
            f"DTSTAMP:{_stamp(planned.created_at)}",
            f"DTSTART:{_stamp(planned.starts_at)}",
            f"DTEND:{_stamp(ends_at(planned))}",
            f"SUMMARY:{_ics_text(summary)}",
            f"URL:{base_url}/campaigns/{campaign.id}",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_feed(db: Session, user: User) -> str:
    """A new secret (256 bits) for the member's calendar feed; the old one stops working. Only its hash is kept."""
    secret = secrets.token_urlsafe(32)
    db.execute(delete(CalendarFeed).where(CalendarFeed.user_id == user.id))
    db.add(CalendarFeed(user_id=user.id, secret_hash=_digest(secret)))
    db.flush()
    return secret


def drop_feed(db: Session, user: User) -> None:
    db.execute(delete(CalendarFeed).where(CalendarFeed.user_id == user.id))


def feed_user(db: Session, secret: str) -> User:
    if not 32 <= len(secret) <= 100:
        raise NotFound(_("There is nothing here."))
    feed = db.scalar(select(CalendarFeed).where(CalendarFeed.secret_hash == _digest(secret)))
    user = db.get(User, feed.user_id) if feed is not None else None
    if user is None:
        raise NotFound(_("There is nothing here."))
    return user


def campaigns_of(db: Session, user: User) -> dict[int, Campaign]:
    return {
        c.id: c
        for c in db.scalars(
            select(Campaign)
            .join(Membership, Membership.campaign_id == Campaign.id)
            .where(Membership.user_id == user.id)
        )
    }


def member_ids(db: Session, campaign_id: int) -> list[int]:
    return [u.id for u, _role in members(db, campaign_id)]
