"""Reminders 24 hours and 1 hour before a planned session, once each: a sweeper claims a due reminder with
`UPDATE planned_sessions SET reminded_… = now WHERE id = … AND reminded_… IS NULL` and, in the same transaction,
queues a push per subscribed device and an e-mail per confirmed address in the durable outbox (app/notify), which
sends them after the commit. Several processes may sweep: the UPDATE lets exactly one of them queue a reminder.
The same sweeper sends the daily digest to members who asked for it (`digest`)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.models import User
from app.accounts.recovery import queue_mail
from app.between.catchup import unread, waits_in
from app.between.models import DigestChoice, PlannedSession, Replay, SafetyCounter
from app.between.schedule import Mail, answers, member_ids, tell
from app.campaigns.models import Campaign, Membership
from app.i18n import _, get_locale, ngettext, set_locale
from app.rolls.models import LogEntry
from app.types import utcnow

log = logging.getLogger("fateboard.reminders")

BEFORE = {"24h": timedelta(hours=24), "1h": timedelta(hours=1)}
_COLUMN = {"24h": PlannedSession.reminded_24h_at, "1h": PlannedSession.reminded_1h_at}


def _words(which: str, campaign: Campaign) -> Callable[[str, str], tuple[str, str]]:
    def words(when: str, title: str) -> tuple[str, str]:
        head = _("Tomorrow: {title}") if which == "24h" else _("In one hour: {title}")
        return head.format(title=title), _("{campaign} plays on {when}.").format(campaign=campaign.name, when=when)

    return words


def sweep(db: Session, mail: Mail) -> int:
    """Queue every reminder that is due; returns how many reminders (not deliveries) were queued."""
    now = utcnow()
    done = 0
    # The one-hour reminder first: a session already within the hour gets that one, not a late "tomorrow".
    for which in ("1h", "24h"):
        column = _COLUMN[which]
        due = db.scalars(
            select(PlannedSession).where(
                column.is_(None), PlannedSession.starts_at > now, PlannedSession.starts_at <= now + BEFORE[which]
            )
        ).all()
        for planned in due:
            values = {column.key: now}
            if which == "1h":
                values[PlannedSession.reminded_24h_at.key] = now  # a missed "tomorrow" is not sent late
            claimed = cast(
                CursorResult[Any],
                db.execute(
                    update(PlannedSession).where(PlannedSession.id == planned.id, column.is_(None)).values(**values)
                ),
            ).rowcount
            if claimed != 1:
                db.rollback()
                continue
            campaign = db.get(Campaign, planned.campaign_id)
            if campaign is None:
                db.rollback()
                continue
            said = answers(db, [planned.id])[planned.id]
            remind = [uid for uid in member_ids(db, campaign.id) if said.get(uid) != "no"]
            tell(
                db, campaign, planned, remind, mail, tag=f"reminder-{planned.id}-{which}", words=_words(which, campaign)
            )
            db.commit()
            done += 1
    return done


# --- the digest ---------------------------------------------------------------------------------------------

DIGEST_EVERY = timedelta(hours=24)
AWAY = timedelta(hours=12)  # the oldest unread line has waited this long: the member is away


def digest(db: Session, mail: Mail) -> int:
    """The daily digest (opt-in per member and campaign, `digest_choices`): to a member whose oldest unread line is
    12 hours old, at most once a day, an e-mail saying how many lines are new and what waits for them — counts and
    their own waits only, never a word of the log. Returns how many were queued."""
    if not mail.on:
        return 0
    now = utcnow()
    done = 0
    rows = db.execute(
        select(DigestChoice, User, Campaign)
        .join(User, User.id == DigestChoice.user_id)
        .join(Campaign, Campaign.id == DigestChoice.campaign_id)
        .join(Membership, (Membership.user_id == User.id) & (Membership.campaign_id == Campaign.id))
        .where(User.email.is_not(None))
    ).all()
    for choice, user, campaign in rows:
        if choice.sent_at is not None and now - choice.sent_at < DIGEST_EVERY:
            continue
        found = unread(db, user.id, campaign.id)
        if not found.unread or found.first_unread_seq is None:
            continue
        oldest = db.scalar(
            select(LogEntry.created_at).where(
                LogEntry.campaign_id == campaign.id, LogEntry.seq == found.first_unread_seq
            )
        )
        if oldest is None or now - oldest < AWAY:
            continue
        claimed = cast(
            CursorResult[Any],
            db.execute(
                update(DigestChoice)
                .where(
                    DigestChoice.user_id == user.id,
                    DigestChoice.campaign_id == campaign.id,
                    (DigestChoice.sent_at.is_(None)) | (DigestChoice.sent_at <= now - DIGEST_EVERY),
                )
                .values(sent_at=now)
            ),
        ).rowcount
        if claimed != 1:
            db.rollback()
            continue
        before = get_locale()
        try:
            set_locale(user.locale or campaign.language or "en")
            waits = waits_in(db, user.id, campaign)
            lines = [
                ngettext(
                    "%(num)d new line in %(campaign)s since your last visit.",
                    "%(num)d new lines in %(campaign)s since your last visit.",
                    found.unread,
                )
                % {"num": found.unread, "campaign": campaign.name}
            ]
            if waits:
                lines += ["", _("Waiting for you:")] + [f"- {w.text} {mail.base_url}{w.url}" for w in waits]
            lines += ["", f"{mail.base_url}/campaigns/{campaign.id}"]
            queue_mail(
                db,
                to=str(user.email),
                subject=_("{campaign}: what happened while you were away").format(campaign=campaign.name),
                body="\n".join(lines),
            )
        finally:
            set_locale(before)
        db.commit()
        done += 1
    return done


def purge(db: Session) -> int:
    """Delete the expired anonymous counters and replays (docs/TRUST.md: they live no longer than their window)."""
    now = utcnow()
    gone = 0
    for model in (SafetyCounter, Replay):
        gone += cast(CursorResult[Any], db.execute(delete(model).where(model.expires_at <= now))).rowcount
    db.commit()
    return gone


class ReminderSweeper:
    """A daemon thread that every `every` seconds deletes expired safety counters and replays, queues due reminders
    and digests (and calls `after` when it queued something: the outbox sender looks at once)."""

    def __init__(
        self,
        factory: sessionmaker[Session],
        mail: Mail,
        *,
        every: float = 30.0,
        after: Callable[[], None] = lambda: None,
    ) -> None:
        self.factory, self.mail, self.every, self.after = factory, mail, every, after
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="reminders", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=15)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with self.factory() as db:
                    purge(db)
                    if sweep(db, self.mail) + digest(db, self.mail):
                        self.after()
            except Exception:  # a database hiccup must not end the sweeper; it tries again at the next round
                log.exception("reminders: the sweep failed")
            self._stop.wait(self.every)
