"""Redis fan-out across processes: every process publishes ids to one channel and feeds its own hub.

Messages are ids only ("campaign:event:seq"); each process's subscribers re-read what their viewer may
see from the database, exactly as with the in-process broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import redis
import redis.asyncio as aioredis

from app.live.broker import Listener

CHANNEL = "fateboard:log"
log = logging.getLogger(__name__)


def encode(campaign_id: int, event: str, seq: int | None) -> str:
    return f"{campaign_id}:{event}:{'' if seq is None else seq}"


def decode(message: str) -> tuple[int, str, int | None]:
    campaign, event, seq = message.split(":", 2)
    return int(campaign), event, int(seq) if seq else None


class RedisBroker:
    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        self.url = url
        self.channel = channel
        self._publisher = redis.Redis.from_url(url)
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    def publish(self, campaign_id: int, event: str, seq: int | None) -> None:
        self._publisher.publish(self.channel, encode(campaign_id, event, seq))

    async def start(self, listener: Listener) -> None:
        self._ready = asyncio.Event()
        self._task = asyncio.create_task(self._listen(listener))
        await asyncio.wait_for(self._ready.wait(), timeout=10)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._publisher.close()

    async def _listen(self, listener: Listener) -> None:
        client = aioredis.Redis.from_url(self.url)
        pubsub = client.pubsub()
        try:
            await pubsub.subscribe(self.channel)
            self._ready.set()
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
                if message is None:
                    continue
                try:
                    listener(*decode(message["data"].decode()))
                except (ValueError, UnicodeDecodeError):
                    log.warning("ignored a malformed broker message: %r", message["data"])
        finally:
            await pubsub.aclose()
            await client.aclose()
