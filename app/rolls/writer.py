"""Group commit: one writer thread per database (SQLite) or per campaign (PostgreSQL) takes every queued action,
runs each through the rules service in arrival order, commits once for the batch, and only then answers and
publishes.

Each job gets its own Session on the batch's connection with `join_transaction_mode="create_savepoint"`: the
service's own `commit()` releases a SAVEPOINT and its `rollback()` returns to it, so `perform_action` and
`appending` run unchanged, an action that fails in a batch leaves nothing behind and does not disturb the
others, and a later job reads what earlier ones wrote (seq, the chain's head, an Idempotency-Key). Nothing is
acknowledged or published before the batch's COMMIT: a job's `publish` calls are held until then, and if the
COMMIT fails every job of the batch gets the error. Why: one thread doing the work of 32 request threads does
not trade the GIL and the writer lock back and forth, and one COMMIT serves many actions
(docs/PERFORMANCE.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from app.live.events import LiveEvent
from app.rolls.appending import Publish, writer_lock
from app.rolls.effects import Internal
from app.rolls.models import LogEntry

MAX_BATCH = 64  # jobs per COMMIT: bounds how long one batch holds the database's write lock
IDLE_SECONDS = 10.0  # a writer with nothing to do for this long ends its thread (PostgreSQL: one per campaign)

Job = Callable[[Session, Publish], Any]
Committed = Callable[[list[LogEntry]], None]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Written:
    """What a job may return: its answer, and the entries it wrote. Once the batch is committed, the writer hands
    the entries to `GroupWriter.committed` on the job's event loop (the hub keeps them, so this process's streams
    need not read them back: issue 34) before the job's announcements go out; the job's caller gets `answer`."""

    answer: Any
    entries: tuple[LogEntry, ...]


@dataclass(eq=False)
class _Pending:
    job: Job
    context: contextvars.Context
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    publishes: list[tuple[int, LiveEvent | Internal, int | None]] = field(default_factory=list)
    result: Any = None
    error: BaseException | None = None


def _settle(done: list[_Pending]) -> None:
    """On the event loop: answer every job of a committed (or failed) batch."""
    for item in done:
        if item.future.done():  # the request was cancelled meanwhile
            continue
        if item.error is not None:
            item.future.set_exception(item.error)
        else:
            item.future.set_result(item.result)


class _Writer:
    def __init__(self, group: GroupWriter, key: tuple[str, int]) -> None:
        self.group, self.key = group, key
        self.queue: deque[_Pending] = deque()
        self.wakeup = threading.Condition(threading.Lock())
        self.thread = threading.Thread(target=self._run, name=f"fateboard-writer-{key[1]}", daemon=True)

    def _take(self) -> list[_Pending] | None:
        with self.wakeup:
            if not self.queue:
                self.wakeup.wait(IDLE_SECONDS)
            if not self.queue:
                return None
            return [self.queue.popleft() for _ in range(min(MAX_BATCH, len(self.queue)))]

    def _run(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                with self.group.guard, self.wakeup:
                    if not self.queue:  # nothing arrived while we decided to go: retire
                        self.group.writers.pop(self.key, None)
                        return
                continue
            self._batch(batch)

    def _batch(self, batch: list[_Pending]) -> None:
        try:
            self._commit(batch)
        except BaseException as exc:  # a bug here must not strand the requests (nor kill the thread silently)
            for item in batch:
                if item.error is None:
                    item.error, item.publishes = exc, []
            log.exception("group writer: a batch failed outside its jobs")
        finally:
            self._answer(batch)

    def _commit(self, batch: list[_Pending]) -> None:
        conn = self.group.engine.connect()
        try:
            with writer_lock(conn, self.key[1]):
                trans = conn.begin()
                if conn.dialect.name == "sqlite":
                    # pysqlite opens a transaction only before DML, and a SAVEPOINT outside one would COMMIT
                    # on release: take the write lock now, for the whole batch.
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                for item in batch:
                    self._one(conn, item)
                trans.commit()
        except Exception as exc:  # the COMMIT (or the connection) failed: nothing of the batch is durable
            # Close the DBAPI connection whatever state it is in (its transaction rolls back with it): a
            # failed COMMIT can leave SQLAlchemy believing the transaction is over while the database holds it.
            conn.invalidate()
            for item in batch:
                if item.error is None:
                    item.error, item.publishes = exc, []
        finally:
            conn.close()

    def _answer(self, batch: list[_Pending]) -> None:
        entries: dict[asyncio.AbstractEventLoop, list[LogEntry]] = {}
        for item in batch:
            if isinstance(item.result, Written):
                written, item.result = item.result, item.result.answer
                if item.error is None:
                    entries.setdefault(item.loop, []).extend(written.entries)
        if self.group.committed is not None:
            for loop, kept in entries.items():
                if kept:
                    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                        # One callback for the batch, before its announcements (a loop runs callbacks in order).
                        loop.call_soon_threadsafe(self.group.committed, kept)
        for item in batch:
            for message in item.publishes:
                self.group.publish(*message)  # Broker.publish never raises
        by_loop: dict[asyncio.AbstractEventLoop, list[_Pending]] = {}
        for item in batch:
            by_loop.setdefault(item.loop, []).append(item)
        for loop, items in by_loop.items():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is waiting
                loop.call_soon_threadsafe(_settle, items)

    @staticmethod
    def _one(conn: Connection, item: _Pending) -> None:
        def deferred(campaign_id: int, event: LiveEvent | Internal, seq: int | None) -> None:
            item.publishes.append((campaign_id, event, seq))

        db = Session(bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False)
        try:
            item.result = item.context.run(item.job, db, deferred)
        except BaseException as exc:  # the job's savepoint is rolled back (below): it changed nothing
            item.error, item.publishes = exc, []
        finally:
            db.close()


class GroupWriter:
    """`await writer.run(campaign_id, job)` runs `job(session, publish)` in a batch and returns its result once
    the batch is committed (or raises what the job raised). `publish` is where the job's announcements go;
    they reach the real broker after the COMMIT."""

    def __init__(self, engine: Engine, publish: Publish, committed: Committed | None = None) -> None:
        self.engine = engine
        self.publish = publish
        self.committed = committed
        self.per_campaign = engine.dialect.name != "sqlite"
        self.writers: dict[tuple[str, int], _Writer] = {}
        self.guard = threading.Lock()

    async def run(self, campaign_id: int, job: Job) -> Any:
        loop = asyncio.get_running_loop()
        item = _Pending(job, contextvars.copy_context(), loop, loop.create_future())
        key = (str(self.engine.url), campaign_id if self.per_campaign else 0)
        with self.guard:
            writer = self.writers.get(key)
            if writer is None:
                writer = self.writers[key] = _Writer(self, key)
                writer.thread.start()
            with writer.wakeup:
                writer.queue.append(item)
                writer.wakeup.notify()
        return await item.future
