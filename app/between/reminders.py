"""Reminders 24 hours and 1 hour before a planned session, once each: a sweeper claims a due reminder with
`UPDATE planned_sessions SET reminded_… = now WHERE id = … AND reminded_… IS NULL` and, in the same transaction,
queues a push per subscribed device and an e-mail per confirmed address in the durable outbox (app/notify), which
sends them after the commit. Several processes may sweep: the UPDATE lets exactly one of them queue a reminder."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.between.models import PlannedSession
from app.between.schedule import Mail, answers, member_ids, tell
from app.campaigns.models import Campaign
from app.i18n import _
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


class ReminderSweeper:
    """A daemon thread that sweeps every `every` seconds (and calls `after` when it queued something: the
    outbox sender looks at once)."""

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
                    if sweep(db, self.mail):
                        self.after()
            except Exception:  # a database hiccup must not end the sweeper; it tries again at the next round
                log.exception("reminders: the sweep failed")
            self._stop.wait(self.every)
