"""Fan-out of log entries to connected streams, one process's worth.

The broker says "campaign 7 has entry 42". The hub reads new entries once per campaign (not once per
subscriber), keeps a short cache, and wakes every subscriber; each subscriber then takes the entry as its view
reads it, rendered and framed once per distinct view (`render_once`), so 200 streams cost one query and a few
renders per entry.

Access (issue 34): a stream's access is decided when it opens (the opener's own check gives the role) and
re-decided only when something that may change it happens — the internal `access` event (app/live/access.py:
a member removed or given another role, a token revoked, a session ended, an account deleted, announced after
its commit through the broker to every process) or a resync — and, as a backstop for changes made outside the
application, once its answer is older than ACCESS_MAX_AGE. Never a query per delivery. The event arrives before
any entry committed after the change, so the next delivery already waits for the new answer.

The cache answers only when it reaches the newest seq the broker announced; after `resync` (the broker may
have lost messages) the next read of every campaign goes to the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.accounts.models import ApiToken, LoginSession
from app.campaigns.models import Membership
from app.live.access import ACCESS, CHANGED, EVERY_CAMPAIGN
from app.live.tokens import TokenAccess
from app.rolls.models import LogEntry

CACHE_SIZE = 1000
TICK = "tick"  # the hub's ticker: a stream quiet for its keepalive sends one (and checks its access)
_COLUMNS = tuple(column.key for column in LogEntry.__table__.columns)
FETCH_LIMIT = 500
ACCESS_MAX_AGE = 60.0  # seconds: a feed's access answers are re-read after this, events or not (a backstop)
TOKENS_MAX = 100_000  # (campaign, token) pairs known to act, per process (app/api/action.py)


Credential = tuple[str, str]  # ("session", login session id) or ("token", API token digest)
Wake = tuple[str, int | None]  # (event, seq or id)


class Mailbox:
    """A subscriber's queue, for its one reader: asyncio.Queue's get / put_nowait / get_nowait / empty without
    its getter and putter deques and its `join` event, and no deque at all while empty — an idle stream holds
    ~0.2 KiB here instead of ~3 KiB (docs/PERFORMANCE.md)."""

    __slots__ = ("_items", "_waiter", "maxsize")

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: deque[Wake] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: Wake) -> None:
        if self._items is None:
            self._items = deque()
        elif len(self._items) >= self.maxsize:
            raise asyncio.QueueFull
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def get_nowait(self) -> Wake:
        if not self._items:
            raise asyncio.QueueEmpty
        item = self._items.popleft()
        if not self._items:
            self._items = None
        return item

    async def get(self) -> Wake:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.get_nowait()


@dataclass(eq=False)
class Subscriber:
    campaign_id: int
    user_id: int = 0
    credential: Credential | None = None
    gone: bool = False  # the client hung up (set by the stream that owns this subscriber)
    queue: Mailbox = field(default_factory=lambda: Mailbox(maxsize=1000))

    def wake(self, event: str, seq: int | None) -> None:
        # A stuck client: the next read catches up from the database anyway.
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait((event, seq))


AccessKey = tuple[int, Credential | None]


@dataclass
class _Feed:
    subscribers: set[Subscriber] = field(default_factory=set)
    cache: OrderedDict[int, LogEntry] = field(default_factory=OrderedDict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Who may read this campaign's stream, as last decided: (user, credential) -> role (None: no longer).
    access: dict[AccessKey, str | None] = field(default_factory=dict)
    access_read: float = field(default_factory=time.monotonic)  # when `access` was last read whole
    access_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    access_changes: int = 0  # access events seen (a read that an event overtook is read again)
    newest: int = 0  # the highest seq known to exist (announced, or read from the database)
    # The cache cannot tell what is newest: a new feed (entries before its first subscriber were announced to no
    # one), or messages may have been lost. Until a read from the database reaches the end, reads go there.
    stale: bool = True
    resyncs: int = 0


class LiveHub:
    def __init__(self, session_factory: sessionmaker[Session], access_max_age: float = ACCESS_MAX_AGE) -> None:
        self._factory = session_factory
        self._feeds: dict[int, _Feed] = {}
        self.render_cache: dict[tuple[int, int, str], bytes] = {}
        self.access_max_age = access_max_age
        # (campaign, token digest) -> what the action route needs of it: tokens that acted in the campaign are
        # served without a query, before the writer and in it. Forgotten on every access or campaign change
        # (app/live/access.py: in this process synchronously, from others through the broker) and once
        # ACCESS_MAX_AGE old (a change behind the application's back). Read and written from any thread.
        self.tokens: dict[tuple[int, str], TokenAccess] = {}
        self._tokens_guard = threading.Lock()
        self._token_forgets = 0  # forgets so far: a read that one overtook is not kept
        self.access_reads = 0  # how often access was read from the database (tests, benchmarks)
        self._ticker: asyncio.Task[None] | None = None
        self._tick = 0.0

    def tick_every(self, seconds: float) -> None:
        """One timer for every stream of the process (not one per stream and event): every `seconds` (the
        shortest asked for), each subscriber is woken with TICK while there are any. On the running loop."""
        if self._ticker is not None and not self._ticker.done() and self._tick <= seconds:
            return
        if self._ticker is not None:
            self._ticker.cancel()
        self._tick = seconds
        self._ticker = asyncio.get_running_loop().create_task(self._ticking(seconds))

    async def _ticking(self, seconds: float) -> None:
        while self._feeds:
            await asyncio.sleep(seconds)
            for feed in list(self._feeds.values()):
                for sub in list(feed.subscribers):
                    sub.wake(TICK, None)

    def subscribe(
        self, campaign_id: int, user_id: int = 0, credential: Credential | None = None, role: str | None = None
    ) -> Subscriber:
        """`role`: what the opener's access check just found (so the first delivery needs no query)."""
        sub = Subscriber(campaign_id, user_id, credential)
        feed = self._feeds.setdefault(campaign_id, _Feed())
        feed.subscribers.add(sub)
        if role is not None:
            feed.access[(user_id, credential)] = role
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        feed = self._feeds.get(sub.campaign_id)
        if feed is None:
            return
        feed.subscribers.discard(sub)
        if not feed.subscribers:
            del self._feeds[sub.campaign_id]

    async def role_of(self, sub: Subscriber) -> str | None:
        """The subscriber's role in the campaign, or None if they may no longer read it (removed, signed out,
        token revoked): as decided when the stream opened or at the last access event, re-read (for every
        subscriber of the campaign at once) only after such an event or once the answer is ACCESS_MAX_AGE old."""
        key = (sub.user_id, sub.credential)
        feed = self._feeds.get(sub.campaign_id)
        if feed is None:
            found = await run_in_threadpool(self._read_access, sub.campaign_id, [key])
            return found.get(key)
        if key in feed.access and time.monotonic() - feed.access_read < self.access_max_age:
            return feed.access[key]
        async with feed.access_lock:
            while key not in feed.access or time.monotonic() - feed.access_read >= self.access_max_age:
                keys = {(s.user_id, s.credential) for s in feed.subscribers} | {key}
                read_at, changes = time.monotonic(), feed.access_changes
                found = await run_in_threadpool(self._read_access, sub.campaign_id, list(keys))
                if feed.access_changes != changes:
                    continue  # an access event came in while reading: what was read may predate it
                feed.access.update(found)
                feed.access_read = read_at
            return feed.access[key]

    def access_changed(self, campaign_id: int, user_id: int | None) -> None:
        """An `access` event (app/live/access.py), on the event loop: forget what was decided for the streams it
        is about and wake them, so each re-decides now (and a removed member's stream ends even when nothing
        else happens); entries published after it are delivered only once that is done."""
        feeds = list(self._feeds.values()) if campaign_id == EVERY_CAMPAIGN else [self._feeds.get(campaign_id)]
        for feed in feeds:
            if feed is None:
                continue
            feed.access_changes += 1
            for sub in list(feed.subscribers):
                if user_id is None or sub.user_id == user_id:
                    feed.access.pop((sub.user_id, sub.credential), None)
                    sub.wake(ACCESS, None)
        self.forget_tokens(campaign_id, ACCESS, user_id)

    def forget_tokens(self, campaign_id: int, event: str, user_id: int | None) -> None:
        """An access or campaign change (app/live/access.py's `listen`, any thread): forget what it may touch."""
        with self._tokens_guard:
            self._token_forgets += 1
            self.tokens = {
                (cid, digest): known
                for (cid, digest), known in self.tokens.items()
                if not (
                    (campaign_id == EVERY_CAMPAIGN or cid == campaign_id)
                    and (user_id is None or known.user["id"] == user_id)
                )
            }

    def token_access(self, campaign_id: int, digest: str) -> TokenAccess | None:
        known = self.tokens.get((campaign_id, digest))
        if known is None or time.monotonic() - known.read_at >= self.access_max_age:
            return None
        return known

    def token_forgets(self) -> int:
        """Take this before reading a token's access, and give it to `remember_token`."""
        return self._token_forgets

    def remember_token(self, campaign_id: int, digest: str, known: TokenAccess, forgets: int) -> None:
        """Keep what was read, unless something was forgotten since the read began (it may predate that)."""
        with self._tokens_guard:
            if forgets != self._token_forgets:
                return
            if len(self.tokens) >= TOKENS_MAX:
                self.tokens = {}
            self.tokens[(campaign_id, digest)] = known

    def forget_token(self, campaign_id: int, digest: str) -> None:
        with self._tokens_guard:
            self.tokens.pop((campaign_id, digest), None)

    def _read_access(self, campaign_id: int, keys: list[AccessKey]) -> dict[AccessKey, str | None]:
        self.access_reads += 1
        with self._factory() as db:
            return self._access_in(db, campaign_id, keys)

    @staticmethod
    def _access_in(db: Session, campaign_id: int, keys: list[AccessKey]) -> dict[AccessKey, str | None]:
        users = {user for user, _cred in keys}
        sessions = {cred[1] for _user, cred in keys if cred and cred[0] == "session"}
        tokens = {cred[1] for _user, cred in keys if cred and cred[0] == "token"}
        roles = dict(
            db.execute(
                select(Membership.user_id, Membership.role).where(
                    Membership.campaign_id == campaign_id, Membership.user_id.in_(users)
                )
            ).all()
        )
        live: set[tuple[str, str, int]] = set()
        if sessions:
            live |= {
                ("session", sid, uid)
                for sid, uid in db.execute(
                    select(LoginSession.id, LoginSession.user_id).where(LoginSession.id.in_(sessions))
                ).all()
            }
        if tokens:
            live |= {
                ("token", digest, uid)
                for digest, uid in db.execute(
                    select(ApiToken.token_hash, ApiToken.user_id).where(
                        ApiToken.token_hash.in_(tokens), ApiToken.revoked_at.is_(None)
                    )
                ).all()
            }
        return {
            (user, cred): roles.get(user) if cred is not None and (*cred, user) in live else None for user, cred in keys
        }

    def dispatch(self, campaign_id: int, event: str, seq: int | None) -> None:
        """The broker's listener: runs on the event loop."""
        if event == ACCESS:
            self.access_changed(campaign_id, seq)
            return
        if event == CHANGED:
            self.forget_tokens(campaign_id, event, seq)
            return
        feed = self._feeds.get(campaign_id)
        if feed is None:
            return
        if event == "entry" and seq is not None:
            feed.newest = max(feed.newest, seq)
        for sub in list(feed.subscribers):
            sub.wake(event, seq)

    def resync(self) -> None:
        """The broker (re)started listening: whatever it missed meanwhile, every stream of every campaign now
        reads from the database by seq (`seq > last`: nothing missed, nothing twice)."""
        self.forget_tokens(EVERY_CAMPAIGN, ACCESS, None)
        for feed in self._feeds.values():
            feed.stale = True
            feed.resyncs += 1
            feed.access.clear()  # an access event may have been lost too
            feed.access_changes += 1
            for sub in list(feed.subscribers):
                sub.wake("entry", None)

    async def entries_after(self, campaign_id: int, after: int) -> list[LogEntry]:
        """Entries with seq > after, in order, at most FETCH_LIMIT; served from the cache when it can."""
        feed = self._feeds.get(campaign_id) or _Feed()
        cached = self._from_cache(feed, after)
        if cached is not None:
            return cached
        async with feed.lock:
            cached = self._from_cache(feed, after)
            if cached is not None:
                return cached
            stale, resyncs = feed.stale, feed.resyncs
            rows = await run_in_threadpool(self._fetch, campaign_id, after)
            for row in rows:
                feed.cache[row.seq] = row
            if rows:
                feed.newest = max(feed.newest, rows[-1].seq)
            if stale and len(rows) < FETCH_LIMIT and feed.resyncs == resyncs:
                feed.stale = False  # read to the end since the last resync: the cache knows the newest again
            while len(feed.cache) > CACHE_SIZE:
                feed.cache.popitem(last=False)
            return rows

    def keep(self, entries: list[LogEntry]) -> None:
        """Committed entries this process wrote (the group writer hands them over, on the event loop, before their
        announcement): cached for the campaigns with open streams, so the announcement costs no read. Each is
        kept as the database gives it back (its body through JSON), so a stream reads the same either way."""
        for entry in entries:
            feed = self._feeds.get(entry.campaign_id)
            if feed is None or feed.stale or entry.seq in feed.cache:
                continue
            kept = LogEntry(**{column: getattr(entry, column) for column in _COLUMNS})
            kept.body = json.loads(json.dumps(entry.body))
            feed.cache[entry.seq] = kept
            while len(feed.cache) > CACHE_SIZE:
                feed.cache.popitem(last=False)

    def _from_cache(self, feed: _Feed, after: int) -> list[LogEntry] | None:
        # Only trustworthy if the cache holds after+1 and is contiguous up to the newest seq known to exist
        # (a newer entry may be committed and announced while another subscriber's read is still filling it).
        if feed.stale:
            return None
        if after >= feed.newest:
            return []  # nothing newer was announced or read (a stream woken for what it already sent)
        if after + 1 not in feed.cache:
            return None
        out: list[LogEntry] = []
        seq = after + 1
        while seq in feed.cache and len(out) < FETCH_LIMIT:
            out.append(feed.cache[seq])
            seq += 1
        if len(out) < FETCH_LIMIT and seq <= feed.newest:
            return None
        return out

    def _fetch(self, campaign_id: int, after: int) -> list[LogEntry]:
        """The entries after `after` (one trip to the thread pool and one pooled connection per entry and process)."""
        with self._factory() as db:
            return list(
                db.scalars(
                    select(LogEntry)
                    .where(LogEntry.campaign_id == campaign_id, LogEntry.seq > after)
                    .order_by(LogEntry.seq)
                    .limit(FETCH_LIMIT)
                )
            )

    def render_once(self, key: tuple[int, int, str], render: Callable[[], bytes]) -> bytes:
        """An entry's event as one view reads it, rendered and framed once for every stream with that view."""
        text = self.render_cache.get(key)
        if text is None:
            if len(self.render_cache) > 20_000:
                self.render_cache.clear()
            text = self.render_cache[key] = render()
        return text
