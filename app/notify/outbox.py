"""The outbox sender: delivers what the outbox holds, after the commit that queued it, in this process.

Rows are claimed with a lease (`lease_until`) in one UPDATE whose candidates are picked with
`FOR UPDATE SKIP LOCKED` on PostgreSQL (several processes share the work; none sends a row another holds) and by
the database's single writer on SQLite. A delivered row is deleted; a failed one is retried with exponential
backoff until its deadline; a 429 waits for its Retry-After. A process killed mid-send leaves its lease to expire,
and the row is sent again (at least once; each notification's `tag` lets a device show it once).

Pushes go out in parallel (a dead endpoint holds one worker for its timeout, not the others); a campaign's Discord
entries go one at a time in seq order (only a campaign's oldest row is ever claimed).
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.notify.models import OutboxItem
from app.types import utcnow

log = logging.getLogger("fateboard.outbox")


@dataclass(frozen=True)
class Outcome:
    """What became of one attempt: delivered, retry (after `retry_after` seconds, or the backoff), or drop (the
    row is deleted undelivered; the handler has already turned off what was dead)."""

    kind: str  # delivered | retry | drop
    retry_after: float | None = None
    error: str = ""


DELIVERED = Outcome("delivered")

# channel → handler(item, session factory) → Outcome. A handler never raises for a receiver's failure.
Handler = Callable[[OutboxItem, sessionmaker[Session]], Outcome]


def backoff(attempts: int) -> float:
    """Seconds before the next try: 1, 2, 4 … capped at 10 minutes, with jitter."""
    base = min(600.0, float(2 ** max(0, attempts - 1)))
    return base * random.uniform(0.75, 1.25)


class OutboxSender:
    def __init__(self, factory: sessionmaker[Session], handlers: Mapping[str, Handler], *, workers: int = 8,
                 poll_seconds: float = 0.5, lease_seconds: float = 60.0) -> None:
        self.factory = factory
        self.handlers = dict(handlers)
        self.workers = workers
        self.poll_seconds = poll_seconds
        self.lease = timedelta(seconds=lease_seconds)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._inflight = 0
        self._guard = threading.Lock()

    # --- lifecycle ---

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="outbox")
        self._thread = threading.Thread(target=self._run, name="outbox-sender", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def wake(self, *_event: Any) -> None:
        """Something may have been queued (called after every commit that publishes): look now, not at the poll."""
        self._wake.set()

    # --- the loop ---

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                claimed = self.claim()
            except Exception:  # a database hiccup must not end the sender; it tries again at the next poll
                log.exception("outbox: claiming failed")
                claimed = []
            for item in claimed:
                with self._guard:
                    self._inflight += 1
                assert self._pool is not None
                self._pool.submit(self._deliver, item)
            if not claimed:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()
            elif self._free() == 0:
                self._wake.wait(0.05)
                self._wake.clear()

    def _free(self) -> int:
        with self._guard:
            return max(0, self.workers * 4 - self._inflight)

    def claim(self) -> list[OutboxItem]:
        """Lease what is due: pushes oldest first, and each campaign's oldest Discord row."""
        room = self._free()
        if room == 0:
            return []
        now = utcnow()
        free = or_(OutboxItem.lease_until.is_(None), OutboxItem.lease_until < now)
        with self.factory() as db:
            firsts = (select(func.min(OutboxItem.id)).where(OutboxItem.channel != "push")
                      .group_by(OutboxItem.channel, OutboxItem.campaign_id))
            candidates = (select(OutboxItem.id)
                          .where(OutboxItem.due_at <= now, free,
                                 or_(OutboxItem.channel == "push", OutboxItem.id.in_(firsts.scalar_subquery())))
                          .order_by(OutboxItem.id).limit(room).with_for_update(skip_locked=True))
            ids = list(db.scalars(candidates))
            if not ids:
                db.rollback()
                return []
            rows = db.scalars(
                update(OutboxItem).where(OutboxItem.id.in_(ids), free)
                .values(lease_until=now + self.lease, attempts=OutboxItem.attempts + 1)
                .returning(OutboxItem)
            ).all()
            db.commit()
            for row in rows:
                db.expunge(row)
            return sorted(rows, key=lambda r: r.id)

    def _deliver(self, item: OutboxItem) -> None:
        try:
            handler = self.handlers.get(item.channel)
            if handler is None:
                outcome = Outcome("drop", error=f"no handler for {item.channel}")
            else:
                try:
                    outcome = handler(item, self.factory)
                except Exception as exc:  # a bug in a handler: retried with backoff, logged
                    log.exception("outbox: delivering %s failed", item.id)
                    outcome = Outcome("retry", error=f"{type(exc).__name__}: {exc}"[:300])
            self._settle(item, outcome)
        except Exception:
            log.exception("outbox: settling %s failed (its lease will expire and it is sent again)", item.id)
        finally:
            with self._guard:
                self._inflight -= 1
            self._wake.set()

    def _settle(self, item: OutboxItem, outcome: Outcome) -> None:
        now = utcnow()
        with self.factory() as db:
            if outcome.kind in ("delivered", "drop"):
                db.execute(delete(OutboxItem).where(OutboxItem.id == item.id))
                if outcome.kind == "drop" and outcome.error:
                    log.warning("outbox: dropped %s %s: %s", item.channel, item.id, outcome.error)
            else:
                wait = outcome.retry_after if outcome.retry_after is not None else backoff(item.attempts)
                due = now + timedelta(seconds=max(0.0, wait))
                if due > item.deadline_at:
                    db.execute(delete(OutboxItem).where(OutboxItem.id == item.id))
                    log.warning("outbox: gave up on %s %s after %d tries: %s", item.channel, item.id,
                                item.attempts, outcome.error)
                else:
                    db.execute(update(OutboxItem).where(OutboxItem.id == item.id).values(
                        due_at=due, lease_until=None, last_error=outcome.error[:300],
                        # A 429 is the receiver pacing us, not a failed try: it does not grow the backoff.
                        attempts=item.attempts - 1 if outcome.retry_after is not None else item.attempts))
            db.commit()
