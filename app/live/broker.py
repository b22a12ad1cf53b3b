"""The broker: a small interface between the rules service (which publishes) and the live streams.

Messages carry only ids — (campaign, event, seq) — never content: each subscriber re-reads what its own
role may see. The in-process broker is the default; a Redis or PostgreSQL LISTEN/NOTIFY broker only has
to implement `send` and feed `LiveHub.dispatch` in every process.

Publishing happens after the commit, so the broker is only a hint that something is new: `publish` logs a
failed send and returns, never turning a committed action into an error (a client would retry it). A broker
that may have lost messages calls `resync` once it hears again, and every stream re-reads from the database.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable

Listener = Callable[[int, str, int | None], None]
Resync = Callable[[], None]

log = logging.getLogger(__name__)


class Broker(ABC):
    """Subclasses implement `send` (which may raise), `start` and `stop`; `publish` is the one place where a
    failed send is caught."""

    def publish(self, campaign_id: int, event: str, seq: int | None) -> None:
        """Called from any thread after a commit; never raises."""
        try:
            if event not in self._local:
                self.send(campaign_id, event, seq)
        except Exception as exc:  # anything: the action is committed, its answer must not become a 500
            log.warning(
                "could not publish %s %s of campaign %s: %r (streams catch up when the broker is back)",
                event,
                seq,
                campaign_id,
                exc,
            )
        for hook in self._hooks:
            hook(campaign_id, event, seq)

    _hooks: tuple[Listener, ...] = ()
    _local: frozenset[str] = frozenset()

    def keep_local(self, event: str) -> None:
        """Publishing `event` only calls this process's hooks: it is not sent (no other process, no stream)."""
        self._local = self._local | {event}

    def on_publish(self, hook: Listener) -> None:
        """Also call `hook` in this process after every publish (the outbox sender looks for new deliveries)."""
        self._hooks = (*self._hooks, hook)

    @abstractmethod
    def send(self, campaign_id: int, event: str, seq: int | None) -> None: ...

    @abstractmethod
    async def start(self, listener: Listener, resync: Resync) -> None:
        """Deliver every published message (from any process) to `listener` on the event loop, and call
        `resync` there whenever listening (re)starts: messages sent while nobody listened are lost."""

    @abstractmethod
    async def stop(self) -> None: ...


class InProcessBroker(Broker):
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: Listener | None = None

    async def start(self, listener: Listener, resync: Resync) -> None:
        self._loop = asyncio.get_running_loop()
        self._listener = listener
        resync()

    async def stop(self) -> None:
        self._listener = None

    def send(self, campaign_id: int, event: str, seq: int | None) -> None:
        loop, listener = self._loop, self._listener
        if loop is None or listener is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            listener(campaign_id, event, seq)
        else:
            loop.call_soon_threadsafe(listener, campaign_id, event, seq)
