"""A send has a total deadline inside its lease (issue 35, item 7a): a receiver that never finishes answering
holds its row until the deadline, which ends the try (retried later) before the lease expires — so no second
claim ever sends the same row while the first send is still going (a slow receiver got one entry 4 times)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db import make_engine, make_sessionmaker
from app.models import Base
from app.notify.models import OutboxItem
from app.notify.outbox import OutboxSender, Outcome
from app.types import utcnow

pytestmark = pytest.mark.engines

LEASE = 1.2


@pytest.fixture
def factory(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    Base.metadata.create_all(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


def test_a_slow_receiver_never_gets_one_row_twice_at_once(factory: sessionmaker[Session]) -> None:
    from datetime import timedelta

    with factory() as db:
        now = utcnow()
        db.add(OutboxItem(channel="push", payload={}, tag="t", due_at=now, deadline_at=now + timedelta(hours=1)))
        db.commit()
    sending: list[float] = []  # start times of sends still going
    overlaps: list[int] = []
    ended: list[float] = []

    async def slow(item: OutboxItem, _factory: Any, _http: Any) -> Outcome:
        started = time.monotonic()
        sending.append(started)
        overlaps.append(len(sending))
        try:
            await asyncio.sleep(3600)  # a receiver that trickles its answer for an hour
        finally:
            sending.remove(started)
            ended.append(time.monotonic() - started)
        return Outcome("delivered")

    sender = OutboxSender(factory, {"push": slow}, poll_seconds=0.05, lease_seconds=LEASE)
    sender.start()
    try:
        deadline = time.monotonic() + 3 * LEASE
        while time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        sender.stop()
    assert overlaps and max(overlaps) == 1, overlaps  # never two sends of the row at once
    assert ended and all(took < LEASE for took in ended), ended  # each try ended inside its lease
    with factory() as db:
        row = db.scalar(select(OutboxItem))
        assert row is not None and row.last_error.startswith("no answer within")
