"""The outbox sender: delivers what the outbox holds, after the commit that queued it, in this process.

Rows are claimed with a lease (`lease_until`) in one UPDATE whose candidates are picked with
`FOR UPDATE SKIP LOCKED` on PostgreSQL (several processes share the work; none sends a row another holds) and by
the database's single writer on SQLite. A delivered row is deleted; a failed one is retried with exponential
backoff until its deadline; a 429 waits for its Retry-After. A process killed mid-send leaves its lease to expire,
and the row is sent again (at least once; each notification's `tag` lets a device show it once).

Pushes and e-mails go out concurrently on an event loop (a dead endpoint holds one task until its timeout, not the
others); a campaign's Discord entries go one at a time in seq order (only a campaign's oldest row is ever claimed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp
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

# The share of the lease a send may take in all (connecting, sending, reading the answer); the rest is for settling.
SEND_SHARE = 0.5

# Channels whose rows go one at a time per campaign, in order (a campaign's Discord posts); every other channel's
# rows (pushes, e-mails) are independent: one never waits for another.
ORDERED = ("discord",)

# channel → handler(item, session factory, http client) → Outcome, on the sender's event loop. A handler never
# raises for a receiver's failure; its database work goes through asyncio.to_thread.
Handler = Callable[[OutboxItem, sessionmaker[Session], aiohttp.ClientSession], Awaitable[Outcome]]


def backoff(attempts: int) -> float:
    """Seconds before the next try: 1, 2, 4 … capped at 10 minutes, with jitter."""
    base = min(600.0, float(2 ** max(0, attempts - 1)))
    return base * random.uniform(0.75, 1.25)


class OutboxSender:
    """One thread with its own event loop: claims in a worker thread (the database is synchronous), sends on the
    loop — up to `concurrency` at once, so a receiver that hangs holds one cheap task until its timeout, not a
    thread the others need."""

    def __init__(
        self,
        factory: sessionmaker[Session],
        handlers: Mapping[str, Handler],
        *,
        concurrency: int = 256,
        poll_seconds: float = 0.5,
        lease_seconds: float = 60.0,
    ) -> None:
        self.factory = factory
        self.handlers = dict(handlers)
        self.concurrency = concurrency
        self.poll_seconds = poll_seconds
        self.lease = timedelta(seconds=lease_seconds)
        # A send's total deadline, well inside its lease: a receiver that trickles its answer can never hold a row
        # past the lease, when another claim would send it again (a slow receiver got one entry 4 times).
        self.send_seconds = lease_seconds * SEND_SHARE
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False
        self._inflight = 0
        self._ready = threading.Event()

    # --- lifecycle ---

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stopping = False
        self._ready.clear()
        self._thread = threading.Thread(target=self._run, name="outbox-sender", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def stop(self) -> None:
        self._stopping = True
        self.wake()
        if self._thread is not None:
            self._thread.join(timeout=15)
            self._thread = None

    def wake(self, *_event: Any) -> None:
        """Something may have been queued (called after every commit that publishes): look now, not at the poll."""
        loop, event = self._loop, self._wake
        if loop is not None and event is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed in between: nothing to wake
                loop.call_soon_threadsafe(event.set)

    # --- the loop ---

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        tasks: set[asyncio.Task[None]] = set()
        async with aiohttp.ClientSession(trust_env=False) as http:
            self._ready.set()
            while not self._stopping:
                try:
                    claimed = await asyncio.to_thread(self.claim)
                except Exception:  # a database hiccup must not end the sender; it tries again at the next poll
                    log.exception("outbox: claiming failed")
                    claimed = []
                for item in claimed:
                    self._inflight += 1
                    task = asyncio.create_task(self._deliver(item, http))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                if not claimed or self._free() == 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), self.poll_seconds)
                    self._wake.clear()
            for task in tasks:
                task.cancel()  # leases expire; another sender (or this one after a restart) sends them again
            await asyncio.gather(*tasks, return_exceptions=True)
        self._loop = None

    def _free(self) -> int:
        return max(0, self.concurrency - self._inflight)

    def claim(self) -> list[OutboxItem]:
        """Lease what is due: pushes and e-mails oldest first, each on its own, and each campaign's oldest Discord
        row (a campaign's posts keep their order). E-mail rows have no campaign: grouped with the Discord rows
        they would all be one group, and one address the server cannot take would hold up every mail."""
        room = self._free()
        if room == 0:
            return []
        now = utcnow()
        free = or_(OutboxItem.lease_until.is_(None), OutboxItem.lease_until < now)
        with self.factory() as db:
            firsts = (
                select(func.min(OutboxItem.id))
                .where(OutboxItem.channel.in_(ORDERED))
                .group_by(OutboxItem.channel, OutboxItem.campaign_id)
            )
            candidates = (
                select(OutboxItem.id)
                .where(
                    OutboxItem.due_at <= now,
                    free,
                    or_(OutboxItem.channel.not_in(ORDERED), OutboxItem.id.in_(firsts.scalar_subquery())),
                )
                .order_by(OutboxItem.id)
                .limit(room)
                .with_for_update(skip_locked=True)
            )
            ids = list(db.scalars(candidates))
            if not ids:
                db.rollback()
                return []
            rows = db.scalars(
                update(OutboxItem)
                .where(OutboxItem.id.in_(ids), free)
                .values(lease_until=now + self.lease, attempts=OutboxItem.attempts + 1)
                .returning(OutboxItem)
            ).all()
            db.commit()
            for row in rows:
                db.expunge(row)
            return sorted(rows, key=lambda r: r.id)

    async def _deliver(self, item: OutboxItem, http: aiohttp.ClientSession) -> None:
        try:
            handler = self.handlers.get(item.channel)
            if handler is None:
                outcome = Outcome("drop", error=f"no handler for {item.channel}")
            else:
                try:
                    async with asyncio.timeout(self.send_seconds):
                        outcome = await handler(item, self.factory, http)
                except TimeoutError:
                    outcome = Outcome("retry", error=f"no answer within {self.send_seconds:g} s")
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # a bug in a handler: retried with backoff, logged
                    log.exception("outbox: delivering %s failed", item.id)
                    outcome = Outcome("retry", error=f"{type(exc).__name__}: {exc}"[:300])
            await asyncio.to_thread(self._settle, item, outcome)
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("outbox: settling %s failed (its lease will expire and it is sent again)", item.id)
        finally:
            self._inflight -= 1
            if self._wake is not None:
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
                    log.warning(
                        "outbox: gave up on %s %s after %d tries: %s",
                        item.channel,
                        item.id,
                        item.attempts,
                        outcome.error,
                    )
                else:
                    db.execute(
                        update(OutboxItem)
                        .where(OutboxItem.id == item.id)
                        .values(
                            due_at=due,
                            lease_until=None,
                            last_error=outcome.error[:300],
                            # A 429 is the receiver pacing us, not a failed try: it does not grow the backoff.
                            attempts=item.attempts - 1 if outcome.retry_after is not None else item.attempts,
                        )
                    )
            db.commit()
