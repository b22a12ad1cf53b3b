"""Many simultaneous actions: seq stays gapless, the chain intact, and one idempotency key rolls once.

Run against the service with real threads and separate sessions (as the server's threadpool does), on
SQLite and PostgreSQL."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select
from utils.tables import seat_table

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.rolls import chain
from app.rolls import log as rolllog
from app.rolls import service as rolls
from app.rolls.models import LogEntry

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


def _setup(app) -> tuple[int, list[int]]:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, tuple(f"user{i}" for i in range(4)), name="Rush")
        db.commit()
        return campaign.id, [u.id for u in users.values()]


def _roll(app, campaign_id: int, user_id: int, key: str | None) -> int:
    with app.state.sessionmaker() as db:
        acc = campaigns.access(db, db.get(User, user_id), campaign_id)
        req = rolls.ActionRequest(system="dice", action="roll", params={"expression": "3d6"})
        return rolls.perform_action(db, acc, req, idempotency_key=key).entry.seq


def test_concurrent_writers_get_gapless_seq_and_an_intact_chain(app) -> None:
    campaign_id, users = _setup(app)
    jobs = 80
    with ThreadPoolExecutor(max_workers=16) as pool:
        seqs = list(pool.map(lambda i: _roll(app, campaign_id, users[i % 4], None), range(jobs)))
    assert sorted(seqs) == list(range(1, jobs + 1))
    with app.state.sessionmaker() as db:
        acc = campaigns.access(db, db.get(User, users[0]), campaign_id)
        result = rolllog.verify(db, acc)
        assert result.ok, result.problems
        assert result.count == jobs
        head = db.scalar(select(LogEntry.hash).where(LogEntry.campaign_id == campaign_id, LogEntry.seq == jobs))
        assert acc.campaign.head_hash == head == result.head


def test_one_idempotency_key_rolls_once_under_a_race(app) -> None:
    campaign_id, users = _setup(app)
    with ThreadPoolExecutor(max_workers=12) as pool:
        seqs = list(pool.map(lambda _i: _roll(app, campaign_id, users[1], "double-tap"), range(24)))
    assert set(seqs) == {1}
    with app.state.sessionmaker() as db:
        count = len(list(db.scalars(select(LogEntry.id).where(LogEntry.campaign_id == campaign_id))))
        assert count == 1


def test_chain_links_each_entry_to_the_previous(app) -> None:
    campaign_id, users = _setup(app)
    for _ in range(3):
        _roll(app, campaign_id, users[2], None)
    with app.state.sessionmaker() as db:
        rows = list(db.scalars(select(LogEntry).where(LogEntry.campaign_id == campaign_id).order_by(LogEntry.seq)))
    prev = chain.GENESIS_HASH
    for row in rows:
        assert row.prev_hash == prev
        assert row.body_hash == chain.body_hash(row.salt, row.body)
        assert row.hash == chain.entry_hash(prev, row.header(), row.body_hash)
        prev = row.hash
