"""The broker: a small interface between the rules service (which publishes) and the live streams.

Messages carry only ids — (campaign, event, seq) — never content: each subscriber re-reads what its own
role may see. The in-process broker is the default; a Redis or PostgreSQL LISTEN/NOTIFY broker only has
to implement `publish` and feed `LiveHub.dispatch` in every process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

Listener = Callable[[int, str, int | None], None]


class Broker(Protocol):
    def publish(self, campaign_id: int, event: str, seq: int | None) -> None:
        """Called from any thread after a commit."""

    async def start(self, listener: Listener) -> None:
        """Deliver every published message (from any process) to `listener` on the event loop."""

    async def stop(self) -> None: ...


class InProcessBroker:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: Listener | None = None

    async def start(self, listener: Listener) -> None:
        self._loop = asyncio.get_running_loop()
        self._listener = listener

    async def stop(self) -> None:
        self._listener = None

    def publish(self, campaign_id: int, event: str, seq: int | None) -> None:
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
