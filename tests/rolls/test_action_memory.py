"""What the action route keeps between actions (issue 34) is never served stale: a token's access (its user, the
campaign, its role) is kept by the hub and forgotten at once by any change that touches it — a revocation, a
removal, a promotion, a change of the campaign — as it is written and again after its commit (app/live/access.py);
whether a campaign has a Discord bridge is kept by app/notify and forgotten the same way; the running game session
is read under the head lock. Each test acts first (so the memory is filled), changes the thing behind it, and acts
again at once."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import delete, func, select
from starlette.testclient import TestClient
from utils.tables import Table

from app.accounts import service as accounts
from app.accounts.models import ApiToken, User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign, GameSession, Membership
from app.live.hub import LiveHub
from app.notify.models import DiscordBridge, OutboxItem
from app.rolls.models import LogEntry
from app.types import utcnow

pytestmark = pytest.mark.engines

ROLL = {"system": "dice", "action": "roll", "params": {"expression": "1d6"}, "visibility": "public"}


def _digest(headers: dict[str, str]) -> str:
    return accounts.token_digest(headers["Authorization"].split(" ", 1)[1])


def _act(client: TestClient, table: Table, who: dict[str, str], body: dict[str, Any] = ROLL) -> Any:
    return client.post(f"/api/campaigns/{table.id}/actions", json=body, headers=who)


def test_an_action_is_served_from_memory_after_the_first(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    hub: LiveHub = app.state.hub
    assert hub.token_access(table.id, _digest(table.player)) is None
    assert _act(client, table, table.player).status_code == 201
    known = hub.token_access(table.id, _digest(table.player))
    assert known is not None and known.role == "player" and known.campaign["id"] == table.id
    assert _act(client, table, table.player).status_code == 201


def test_a_removed_member_is_refused_at_once(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    assert _act(client, table, table.player).status_code == 201
    with app.state.sessionmaker() as db:
        user_id = db.scalar(select(ApiToken.user_id).where(ApiToken.token_hash == _digest(table.player)))
        db.execute(delete(Membership).where(Membership.campaign_id == table.id, Membership.user_id == user_id))
        db.commit()
    r = _act(client, table, table.player)
    assert r.status_code == 404, r.text


def test_a_revoked_token_is_refused_at_once(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    assert _act(client, table, table.player).status_code == 201
    with app.state.sessionmaker() as db:
        row = db.scalars(select(ApiToken).where(ApiToken.token_hash == _digest(table.player))).one()
        accounts.revoke_token(db, db.get_one(User, row.user_id), row.id)
        db.commit()
    assert _act(client, table, table.player).status_code == 401


def test_a_promotion_is_seen_by_the_next_action(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    hub: LiveHub = app.state.hub
    assert _act(client, table, table.player).status_code == 201
    with app.state.sessionmaker() as db:
        user_id = db.scalar(select(ApiToken.user_id).where(ApiToken.token_hash == _digest(table.player)))
        db.scalars(select(Membership).where(Membership.user_id == user_id)).one().role = "narrator"
        db.commit()
    assert hub.token_access(table.id, _digest(table.player)) is None  # forgotten by the commit itself
    assert _act(client, table, table.player).status_code == 201
    known = hub.token_access(table.id, _digest(table.player))
    assert known is not None and known.role == "narrator"


def test_a_change_of_the_campaign_is_seen_by_the_next_action(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    cat = {"system": "cat", "action": "test_fate", "params": {}, "visibility": "public"}
    assert _act(client, table, table.narrator).status_code == 201
    refused = _act(client, table, table.narrator, cat)
    assert refused.status_code == 422 and refused.json()["field"] == "system"  # the campaign does not use it
    with app.state.sessionmaker() as db:
        campaign = db.get_one(Campaign, table.id)
        campaign.systems = [*campaign.systems, "cat"]
        db.commit()
    r = _act(client, table, table.narrator, cat)
    assert r.json().get("field") != "system", r.text  # whatever else it says, the campaign uses Cat now


def test_an_access_read_that_a_change_overtook_is_not_kept(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    hub: LiveHub = app.state.hub
    assert _act(client, table, table.player).status_code == 201
    known = hub.token_access(table.id, _digest(table.player))
    assert known is not None
    hub.forget_token(table.id, _digest(table.player))
    before = hub.token_forgets()
    hub.forget_tokens(table.id, "access", None)  # a change lands while a read is under way
    hub.remember_token(table.id, _digest(table.player), known, before)
    assert hub.token_access(table.id, _digest(table.player)) is None


def _discord_rows(app: FastAPI, campaign_id: int) -> int:
    with app.state.sessionmaker() as db:
        return (
            db.scalar(
                select(func.count()).where(OutboxItem.channel == "discord", OutboxItem.campaign_id == campaign_id)
            )
            or 0
        )


def test_a_bridge_set_or_removed_is_seen_by_the_next_entry(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    assert _act(client, table, table.narrator).status_code == 201  # no bridge: remembered as none
    assert _discord_rows(app, table.id) == 0
    with app.state.sessionmaker() as db:
        db.add(DiscordBridge(campaign_id=table.id, webhook_url="http://127.0.0.1:9/hook", post="rolls"))
        db.commit()
    assert _act(client, table, table.narrator).status_code == 201
    assert _discord_rows(app, table.id) == 1
    with app.state.sessionmaker() as db:
        db.execute(delete(OutboxItem).where(OutboxItem.campaign_id == table.id))
        db.delete(db.get_one(DiscordBridge, table.id))
        db.commit()
    assert _act(client, table, table.narrator).status_code == 201
    assert _discord_rows(app, table.id) == 0


def _session_of(app: FastAPI, client: TestClient, table: Table) -> Any:
    seq = _act(client, table, table.player).json()["seq"]
    with app.state.sessionmaker() as db:
        entry = db.scalars(select(LogEntry).where(LogEntry.campaign_id == table.id, LogEntry.seq == seq)).one()
        return entry.body["session"], entry.game_session_id


def test_an_entry_records_the_game_session_running_when_it_was_written(app: FastAPI, client: TestClient) -> None:
    table = Table(client)
    assert _session_of(app, client, table) == (None, None)
    with app.state.sessionmaker() as db, app.state.sessionmaker() as other:
        narrator = other.get_one(User, other.scalar(select(Campaign.created_by).where(Campaign.id == table.id)))
        acc = campaigns.access(db, narrator, table.id)
        campaigns.start_session(db, acc, "Alley")
        db.commit()
    number, game_id = _session_of(app, client, table)
    assert number == 1 and game_id is not None
    with app.state.sessionmaker() as db:
        db.scalars(select(GameSession).where(GameSession.campaign_id == table.id)).one().ended_at = utcnow()
        db.commit()
    assert _session_of(app, client, table) == (None, None)


def test_a_session_started_by_another_process_is_seen_by_the_next_entry(app: FastAPI, client: TestClient) -> None:
    """Another process (here: another engine on the same database, whose changes this app's memory never hears)
    starts a session with its entry: the next entry written here reads the session again (the seq it remembered
    is no longer the head's last), so it records the new one."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    from app.rolls.appending import append_note

    table = Table(client)
    assert _session_of(app, client, table) == (None, None)
    assert _session_of(app, client, table) == (None, None)  # from memory now
    other = create_engine(app.state.engine.url)
    try:
        with sessionmaker(other)() as db:
            narrator = db.get_one(User, db.scalar(select(Campaign.created_by).where(Campaign.id == table.id)))
            acc = campaigns.access(db, narrator, table.id)
            campaigns.start_session(db, acc, "Elsewhere")
            append_note(db, acc, kind="session", action="start", summary="started session 1")
    finally:
        other.dispose()
    number, game_id = _session_of(app, client, table)
    assert number == 1 and game_id is not None
