"""The group-commit writer (app/rolls/writer.py) under concurrency: many actions share a COMMIT, yet seq stays
gapless, the chain verifies, an Idempotency-Key rolls once, a failing action in a batch changes nothing and
does not disturb the others, nothing is answered or published before the COMMIT, and a failed COMMIT fails
every action of its batch. On SQLite and (with TEST_DATABASE_URL) PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import event, func, select
from utils.tables import seat_table

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.errors import BadRequest, Conflict
from app.rolls import log as rolllog
from app.rolls import service as rolls
from app.rolls.models import LogEntry
from app.rolls.writer import GroupWriter

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


def _setup(app) -> tuple[int, list[int], int]:
    from app.characters.service import create_character

    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, tuple(f"user{i}" for i in range(4)), name="Batch")
        acc = campaigns.access(db, users["user1"], campaign.id)
        hero = create_character(db, acc, name="Hero", system="dice")
        db.commit()
        return campaign.id, [u.id for u in users.values()], hero.id


def _job(campaign_id: int, user_id: int, req: rolls.ActionRequest, key: str | None = None):
    def job(db, publish) -> tuple[int, bool]:
        acc = campaigns.access(db, db.get(User, user_id), campaign_id)
        result = rolls.perform_action(db, acc, req, idempotency_key=key, publish=publish)
        return result.entry.seq, result.replayed

    return job


ROLL = rolls.ActionRequest(system="dice", action="roll", params={"expression": "3d6"})


def _count_commits(app) -> list[int]:
    commits: list[int] = []
    event.listen(app.state.engine, "commit", lambda conn: commits.append(1))
    return commits


def _verify(app, campaign_id: int, user_id: int) -> tuple[int, int]:
    with app.state.sessionmaker() as db:
        acc = campaigns.access(db, db.get(User, user_id), campaign_id)
        result = rolllog.verify(db, acc)
        assert result.ok, result.problems
        rows = db.scalar(select(func.count(LogEntry.id)).where(LogEntry.campaign_id == campaign_id))
        return result.count, rows or 0


def test_a_batch_shares_commits_and_keeps_seq_gapless_and_the_chain_intact(app) -> None:
    campaign_id, users, _hero = _setup(app)
    published: list[tuple[int, str, int | None]] = []
    writer = GroupWriter(app.state.engine, lambda *msg: published.append(msg))
    commits = _count_commits(app)
    jobs = 60

    async def main() -> list[Any]:
        return await asyncio.gather(
            *(writer.run(campaign_id, _job(campaign_id, users[i % 4], ROLL)) for i in range(jobs))
        )

    results = asyncio.run(main())
    assert sorted(seq for seq, _replayed in results) == list(range(1, jobs + 1))
    assert len(commits) < jobs / 2, "the actions were not grouped into shared COMMITs"
    assert _verify(app, campaign_id, users[0]) == (jobs, jobs)
    assert sorted(seq for _c, kind, seq in published if kind == "entry") == list(range(1, jobs + 1))


def test_retries_with_one_idempotency_key_in_one_batch_return_the_first_entry(app) -> None:
    campaign_id, users, _hero = _setup(app)
    writer = GroupWriter(app.state.engine, lambda *msg: None)

    async def main() -> list[Any]:
        return await asyncio.gather(
            *(writer.run(campaign_id, _job(campaign_id, users[1], ROLL, "double-tap")) for _ in range(20))
        )

    results = asyncio.run(main())
    assert {seq for seq, _replayed in results} == {1}
    assert sorted(replayed for _seq, replayed in results) == [False] + [True] * 19
    assert _verify(app, campaign_id, users[0]) == (1, 1)


def test_a_failing_action_in_a_batch_changes_nothing_and_spares_the_others(app) -> None:
    campaign_id, users, hero = _setup(app)
    published: list[tuple[int, str, int | None]] = []
    writer = GroupWriter(app.state.engine, lambda *msg: published.append(msg))
    bad_input = rolls.ActionRequest(system="dice", action="roll", params={"expression": "banana"})
    # Fails under the log lock, after the head was bumped: its savepoint must take the bump back.
    stale = rolls.ActionRequest(
        system="dice", action="roll", character_id=hero, expected_version=99, params={"expression": "1d6"}
    )
    plan = [ROLL, bad_input, ROLL, stale, ROLL, ROLL, stale, ROLL]

    async def main() -> list[Any]:
        return await asyncio.gather(
            *(writer.run(campaign_id, _job(campaign_id, users[1], req)) for req in plan), return_exceptions=True
        )

    results = asyncio.run(main())
    assert isinstance(results[1], BadRequest)
    assert isinstance(results[3], Conflict) and isinstance(results[6], Conflict)
    good = [r for r in results if not isinstance(r, Exception)]
    assert sorted(seq for seq, _replayed in good) == [1, 2, 3, 4, 5]
    assert _verify(app, campaign_id, users[0]) == (5, 5)
    with app.state.sessionmaker() as db:
        assert db.get(Campaign, campaign_id).last_seq == 5
    assert sorted(seq for _c, kind, seq in published if kind == "entry") == [1, 2, 3, 4, 5]


def test_nothing_is_answered_or_published_before_the_commit(app) -> None:
    campaign_id, users, _hero = _setup(app)
    seen: list[tuple[int, int]] = []

    def publish(cid: int, kind: str, seq: int | None) -> None:
        # Another connection must already see the entry: it is committed.
        with app.state.sessionmaker() as db:
            seen.append(
                (
                    seq or 0,
                    db.scalar(select(func.count(LogEntry.id)).where(LogEntry.campaign_id == cid, LogEntry.seq == seq))
                    or 0,
                )
            )

    writer = GroupWriter(app.state.engine, publish)

    async def main() -> list[Any]:
        return await asyncio.gather(*(writer.run(campaign_id, _job(campaign_id, users[2], ROLL)) for _ in range(12)))

    asyncio.run(main())
    assert sorted(seen) == [(seq, 1) for seq in range(1, 13)]


def test_a_failed_commit_fails_every_action_of_its_batch_and_publishes_nothing(app) -> None:
    campaign_id, users, _hero = _setup(app)
    published: list[tuple[int, str, int | None]] = []
    writer = GroupWriter(app.state.engine, lambda *msg: published.append(msg))

    def refuse(conn) -> None:
        raise RuntimeError("disk full")

    event.listen(app.state.engine, "commit", refuse)
    try:

        async def main() -> list[Any]:
            return await asyncio.gather(
                *(writer.run(campaign_id, _job(campaign_id, users[1], ROLL)) for _ in range(5)), return_exceptions=True
            )

        results = asyncio.run(main())
    finally:
        event.remove(app.state.engine, "commit", refuse)
    assert all(isinstance(r, RuntimeError) for r in results), results
    assert published == []
    assert _verify(app, campaign_id, users[0]) == (0, 0)

    async def again() -> Any:
        return await writer.run(campaign_id, _job(campaign_id, users[1], ROLL))

    assert asyncio.run(again()) == (1, False)  # the writer goes on after a failed batch


@pytest.mark.parametrize("idle", [0.05])
def test_an_idle_writer_retires_and_a_new_one_takes_over(app, monkeypatch: pytest.MonkeyPatch, idle: float) -> None:
    from app.rolls import writer as writer_module

    monkeypatch.setattr(writer_module, "IDLE_SECONDS", idle)
    campaign_id, users, _hero = _setup(app)
    writer = GroupWriter(app.state.engine, lambda *msg: None)

    async def main() -> list[Any]:
        first = await writer.run(campaign_id, _job(campaign_id, users[1], ROLL))
        for _ in range(100):  # bounded: the writer retires after `idle` seconds with nothing to do
            if not writer.writers:
                break
            await asyncio.sleep(0.02)
        assert not writer.writers
        return [first, await writer.run(campaign_id, _job(campaign_id, users[1], ROLL))]

    assert [seq for seq, _r in asyncio.run(main())] == [1, 2]


def test_the_api_fast_path_refuses_as_before(app, table) -> None:
    """POST /actions authenticates and checks access in one query: a revoked or unknown token is still a 401,
    an outsider still a 404 (the same answer as for a campaign that does not exist), a member acts."""
    from datetime import UTC, datetime

    from sqlalchemy import update

    from app.accounts.models import ApiToken
    from app.accounts.service import token_digest

    assert table.roll(table.player).status_code == 201
    assert table.roll(table.outsider).status_code == 404
    assert table.roll({"Authorization": "Bearer fb_nonsense"}).status_code == 401
    assert table.roll({"Authorization": "Basic abc"}).status_code == 401
    r = table.client.post(
        f"/api/campaigns/{table.id + 99}/actions",
        headers=table.player,
        json={"system": "dice", "action": "roll", "params": {"expression": "1d6"}},
    )
    assert r.status_code == 404
    with app.state.sessionmaker() as db:
        digest = token_digest(table.player["Authorization"].split(" ", 1)[1])
        db.execute(update(ApiToken).where(ApiToken.token_hash == digest).values(revoked_at=datetime.now(UTC)))
        db.commit()
    r = table.roll(table.player)
    assert r.status_code == 401 and "token" in r.json()["detail"]
    assert [e["seq"] for e in table.log(table.narrator)] == [1]
