"""The hub's cache never hides an entry: it answers only up to the newest announced seq, and after a resync
(the broker may have lost messages) the next read goes to the database."""

from __future__ import annotations

import asyncio
import time

from fastapi import FastAPI
from sqlalchemy import delete, event
from utils.tables import seat_table

from app.accounts import service as accounts
from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Membership
from app.live import access
from app.live.hub import LiveHub
from app.rolls import service as rolls
from app.rolls.log import entry_html
from app.rolls.models import LogEntry
from app.rolls.present import entry_json
from app.rolls.visibility import View


def _table(app: FastAPI, name: str = "Hub", narrator: str = "nora") -> tuple[int, int]:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, (narrator,), name=name)
        db.commit()
        return campaign.id, users[narrator].id


def _roll(app: FastAPI, campaign_id: int, user_id: int) -> int:
    with app.state.sessionmaker() as db:
        acc = campaigns.access(db, db.get(User, user_id), campaign_id)
        req = rolls.ActionRequest(system="dice", action="roll", params={"expression": "1d6"})
        return rolls.perform_action(db, acc, req).entry.seq


def test_an_announced_entry_is_read_even_when_the_cache_holds_older_ones(app: FastAPI) -> None:
    campaign_id, nora = _table(app)
    for _ in range(3):
        _roll(app, campaign_id, nora)

    async def scenario() -> list[int]:
        hub = LiveHub(app.state.sessionmaker)
        hub.subscribe(campaign_id)
        assert [e.seq for e in await hub.entries_after(campaign_id, 0)] == [1, 2, 3]  # cached now
        hub.dispatch(campaign_id, "entry", _roll(app, campaign_id, nora))
        return [e.seq for e in await hub.entries_after(campaign_id, 1)]  # a slower stream, still at 1

    assert asyncio.run(scenario()) == [2, 3, 4]


def test_resync_wakes_every_stream_and_reads_what_the_broker_lost(app: FastAPI) -> None:
    campaign_id, nora = _table(app)
    other_id, _ = _table(app, "Other", "otto")
    for _ in range(3):
        _roll(app, campaign_id, nora)

    async def scenario() -> tuple[list[tuple[str, int | None]], list[int], list[int]]:
        hub = LiveHub(app.state.sessionmaker)
        subs = [hub.subscribe(campaign_id), hub.subscribe(campaign_id), hub.subscribe(other_id)]
        await hub.entries_after(campaign_id, 0)
        _roll(app, campaign_id, nora)  # committed while the broker was away: never announced
        hub.resync()
        woken = [sub.queue.get_nowait() for sub in subs]
        assert all(sub.queue.empty() for sub in subs)
        first = [e.seq for e in await hub.entries_after(campaign_id, 1)]
        second = [e.seq for e in await hub.entries_after(campaign_id, 3)]  # now from the refreshed cache
        return woken, first, second

    woken, first, second = asyncio.run(scenario())
    assert woken == [("entry", None)] * 3
    assert first == [2, 3, 4]
    assert second == [4]


def test_a_subscribers_mailbox_is_a_bounded_queue_for_one_reader() -> None:
    from app.live.hub import Subscriber

    async def scenario() -> list[tuple[str, int | None]]:
        sub = Subscriber(1)
        sub.queue.maxsize = 2
        assert sub.queue.empty()
        waiting = asyncio.create_task(sub.queue.get())
        await asyncio.sleep(0)
        sub.wake("entry", 1)
        first = await asyncio.wait_for(waiting, 1)
        for seq in (2, 3, 4):  # the third does not fit: a stuck client catches up from the database anyway
            sub.wake("entry", seq)
        rest = [sub.queue.get_nowait(), sub.queue.get_nowait()]
        assert sub.queue.empty()
        return [first, *rest]

    assert asyncio.run(scenario()) == [("entry", 1), ("entry", 2), ("entry", 3)]


def test_an_entry_costs_one_connection_per_process_and_access_is_read_only_after_an_access_event(
    app: FastAPI,
) -> None:
    """Delivering an entry to every stream of a campaign takes one pooled connection in all (the entry) and no
    access query: each stream's role is what its opener found. An access event (here: a token revoked, announced
    by app/live/access.py after its commit) makes the hub re-read the access of that campaign's streams once, and
    from then on the revoked stream's answer is None."""
    campaign_id, nora = _table(app)
    with app.state.sessionmaker() as db:
        user = db.get(User, nora)
        assert user is not None
        _row, live_token = accounts.create_token(db, user, "live")
        revoked, revoked_token = accounts.create_token(db, user, "revoked")
        db.commit()
        revoked_id = revoked.id
    checkouts: list[object] = []
    engine = app.state.engine
    announced: list[tuple[int, str, int | None]] = []
    access.watch(engine, lambda *message: announced.append(message))

    def count(*args: object) -> None:
        checkouts.append(args)

    async def scenario() -> tuple[list[str | None], list[str | None], int, int]:
        hub = LiveHub(app.state.sessionmaker)
        subs = [
            hub.subscribe(campaign_id, nora, ("token", accounts.token_digest(live_token)), "narrator"),
            hub.subscribe(campaign_id, nora, ("token", accounts.token_digest(revoked_token)), "narrator"),
            hub.subscribe(campaign_id, nora, ("token", accounts.token_digest(live_token)), "narrator"),
        ]
        hub.dispatch(campaign_id, "entry", _roll(app, campaign_id, nora))
        event.listen(engine, "checkout", count)
        try:
            for _sub in subs:
                assert [e.seq for e in await hub.entries_after(campaign_id, 0)] == [1]
            before = [await hub.role_of(sub) for sub in subs]
        finally:
            event.remove(engine, "checkout", count)
        with app.state.sessionmaker() as db:
            accounts.revoke_token(db, db.get_one(User, nora), revoked_id)
            db.commit()
        for message in announced:
            hub.dispatch(*message)
        woken = sum(1 for sub in subs if not sub.queue.empty())
        after = [await hub.role_of(sub) for sub in subs]
        return before, after, woken, hub.access_reads

    before, after, woken, reads = asyncio.run(scenario())
    assert len(checkouts) == 1  # the entry, read once for three streams; no access query
    assert before == ["narrator", "narrator", "narrator"]
    assert announced == [(0, access.ACCESS, nora)]  # every campaign, this user
    assert woken == 3  # each of the user's streams re-decides at once
    assert after == ["narrator", None, "narrator"]
    assert reads == 1  # one read for the whole campaign


def test_an_access_answer_is_re_read_once_it_is_older_than_the_backstop(app: FastAPI) -> None:
    """A change made outside the application (raw SQL: no access event) takes effect within the max age."""
    campaign_id, nora = _table(app)
    with app.state.sessionmaker() as db:
        _row, token = accounts.create_token(db, db.get_one(User, nora), "live")
        db.commit()

    async def scenario() -> tuple[str | None, str | None, int]:
        hub = LiveHub(app.state.sessionmaker, access_max_age=0.5)
        sub = hub.subscribe(campaign_id, nora, ("token", accounts.token_digest(token)), "narrator")
        hub._feeds[campaign_id].access_read = time.monotonic() + 60  # fresh for this first look, however slow
        with app.state.engine.begin() as conn:
            conn.execute(delete(Membership).where(Membership.campaign_id == campaign_id))
        first = await hub.role_of(sub)  # as decided at the opening
        hub._feeds[campaign_id].access_read = time.monotonic() - 0.6  # the answer is now older than the max age
        return first, await hub.role_of(sub), hub.access_reads

    assert asyncio.run(scenario()) == ("narrator", None, 1)


def test_an_entry_kept_from_the_writer_reads_as_the_database_gives_it_back(app: FastAPI) -> None:
    """What the group writer hands to the hub (so the announcement costs no read) is what a stream would have read
    from the database: the same JSON and the same log line, for every view."""
    campaign_id, nora = _table(app)
    with app.state.sessionmaker() as db:
        acc = campaigns.access(db, db.get_one(User, nora), campaign_id)
        req = rolls.ActionRequest(
            system="dice", action="roll", params={"expression": "4d6kh3+2 [str]"}, note="the gate", visibility="blind"
        )
        written = rolls.perform_action(db, acc, req).entry

    async def scenario() -> tuple[list[LogEntry], list[LogEntry]]:
        hub = LiveHub(app.state.sessionmaker)
        hub.subscribe(campaign_id, nora, None, "narrator")
        hub.keep([written])
        hub.dispatch(campaign_id, "entry", written.seq)
        kept = await hub.entries_after(campaign_id, 0)
        fresh = LiveHub(app.state.sessionmaker)
        fresh.subscribe(campaign_id)
        return kept, await fresh.entries_after(campaign_id, 0)

    kept, read = asyncio.run(scenario())
    assert [e.seq for e in kept] == [e.seq for e in read] == [1]
    assert kept[0] is not written  # a copy: the writer's object is not shared with the streams
    for view in View:
        assert entry_json(kept[0], view, with_body=True) == entry_json(read[0], view, with_body=True)
    assert entry_html(kept[0], nora, True) == entry_html(read[0], nora, True)
