"""Redis fan-out across processes: every process publishes ids to one channel and feeds its own hub.

Messages are ids only ("campaign:event:seq"); each process's subscribers re-read what their viewer may
see from the database, exactly as with the in-process broker.

Redis may go away. Publishing then fails fast (short timeouts, one retry) and `Broker.publish` logs it; the
listener reconnects forever with capped backoff and, once subscribed again, asks the hub to resync: every
open stream re-reads what it missed from the database by seq. redis-py's own retries are off for the
listener, since they would resubscribe silently and the hub would never hear that messages were lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.retry import Retry

from app.live.broker import Broker, Listener, Resync

CHANNEL = "fateboard:log"
BACKOFF_FIRST = 0.1  # seconds before the first reconnect; doubles up to BACKOFF_CAP
BACKOFF_CAP = 5.0
START_WAIT = 5.0  # how long start-up waits for the first subscription before serving without it
TIMEOUT = 2.0  # socket connect/read timeout for commands; the listener's reads wait on their own timeout
log = logging.getLogger(__name__)


def encode(campaign_id: int, event: str, seq: int | None) -> str:
    return f"{campaign_id}:{event}:{'' if seq is None else seq}"


def decode(message: str) -> tuple[int, str, int | None]:
    campaign, event, seq = message.split(":", 2)
    return int(campaign), event, int(seq) if seq else None


def backoff_delays(first: float = BACKOFF_FIRST, cap: float = BACKOFF_CAP) -> Iterator[float]:
    """0.1, 0.2, 0.4 … 5, 5, 5 … seconds: forever, capped."""
    delay = first
    while True:
        yield delay
        delay = min(delay * 2, cap)


class RedisBroker(Broker):
    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        self.url = url
        self.channel = channel
        # One retry without waiting: after Redis restarts, the pooled connection is dead and the first
        # command on it fails; the retry reconnects. Down for real, a publish costs one refused connect.
        self._publisher = redis.Redis.from_url(
            url, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT, retry=Retry(NoBackoff(), 1)
        )
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()

    def send(self, campaign_id: int, event: str, seq: int | None) -> None:
        self._publisher.publish(self.channel, encode(campaign_id, event, seq))

    async def start(self, listener: Listener, resync: Resync) -> None:
        self._subscribed = asyncio.Event()
        self._task = asyncio.create_task(self._listen(listener, resync))
        try:
            await asyncio.wait_for(self._subscribed.wait(), timeout=START_WAIT)
        except TimeoutError:
            log.error("Redis at %s is not answering; serving anyway, live updates resume when it does", self.url)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._publisher.close()

    async def _listen(self, listener: Listener, resync: Resync) -> None:
        delays = backoff_delays()
        while True:
            try:
                await self._listen_once(listener, resync)
            except (redis.RedisError, OSError) as exc:
                if self._subscribed.is_set():
                    delays = backoff_delays()  # it was up: the first retry comes quickly again
                delay = next(delays)
                log.warning("Redis listener lost (%r); reconnecting in %.1f s", exc, delay)
                await asyncio.sleep(delay)

    async def _listen_once(self, listener: Listener, resync: Resync) -> None:
        self._subscribed.clear()
        client = aioredis.Redis.from_url(
            self.url, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT, retry=AsyncRetry(NoBackoff(), 0)
        )
        pubsub = client.pubsub()
        try:
            await pubsub.subscribe(self.channel)
            self._subscribed.set()
            resync()  # whatever was published before this subscription is read from the database
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
                if message is None:
                    continue
                try:
                    listener(*decode(message["data"].decode()))
                except (ValueError, UnicodeDecodeError):
                    log.warning("ignored a malformed broker message: %r", message["data"])
        finally:
            with contextlib.suppress(redis.RedisError, OSError):
                await pubsub.aclose()
                await client.aclose()
