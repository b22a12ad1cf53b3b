"""Safety tools as ../shared/contracts/BETWEEN-SESSIONS-API.md (sections 4 and 5) names them: an X-card with no
author anywhere — not in the log, any row of the database, the export, the push, the access log — and lines and
veils added anonymously, curated by the narrator."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, inspect, select, text, update
from utils.settings import app_settings
from utils.tables import Table

from app.between.models import Replay, SafetyCounter
from app.between.reminders import purge
from app.between.safety import QuietSafetyFilter
from app.main import create_app
from app.models import Base
from app.notify.models import DiscordBridge, OutboxItem, PushSubscription
from app.rolls import chain

pytestmark = pytest.mark.engines


@pytest.fixture
def quiet_app(database_url: str, tmp_path: Path) -> Iterator[FastAPI]:
    application = create_app(app_settings(database_url, tmp_path, outbox_sender=False))
    Base.metadata.create_all(application.state.engine)
    yield application
    application.state.engine.dispose()


def x(t: Table, who: dict[str, str], key: str | None = None) -> Any:
    headers = {**who, **({"Idempotency-Key": key} if key else {})}
    return t.client.post(f"/api/campaigns/{t.id}/safety/x", json={}, headers=headers)


def uid(t: Table, name: str) -> int:
    members = t.client.get(f"/api/campaigns/{t.id}", headers=t.narrator).json()["members"]
    return int(next(m["id"] for m in members if m["username"] == name))


def every_row(app: FastAPI) -> str:
    """Every row of every table, as text (what someone with the database file could read)."""
    out = []
    with app.state.engine.connect() as conn:
        for table in sorted(inspect(conn).get_table_names()):
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                out.append(f"{table}: {json.dumps([str(v) for v in row])}")
    return "\n".join(out)


def test_the_x_card_is_an_entry_without_an_author_for_every_reader(t: Table, quiet_app: FastAPI) -> None:
    with quiet_app.state.sessionmaker() as db:
        for name in ("nora", "pia", "otto"):
            db.add(
                PushSubscription(
                    user_id=uid(t, name), endpoint=f"http://127.0.0.1:9/{name}", p256dh="p" * 87, auth="a" * 22
                )
            )
        db.commit()
    r = x(t, t.player, key="card-1")
    assert r.status_code == 201, r.text
    card = r.json()
    assert card["kind"] == "safety" and card["visibility"] == "public"
    assert card["outcome"] == {"card": "x"}
    assert card["actor"] is None and card["actor_id"] is None and card["replayed"] is False
    for who in (t.narrator, t.player, t.other):
        (entry,) = t.log(who)
        assert entry["actor"] is None and entry["actor_id"] is None and entry["outcome"] == {"card": "x"}
        export = t.client.get(f"/api/campaigns/{t.id}/export", headers=who).json()
        (exported,) = export["entries"]
        assert exported["body"]["actor"] is None and exported["body"]["actor_id"] is None
        assert chain.verify_entries(export["entries"], head=export["head"]).ok
        assert t.client.get(f"/api/campaigns/{t.id}/verify", headers=who).json()["ok"] is True
    # Every member's devices are told, the sender's too (leaving them out would name them).
    with quiet_app.state.sessionmaker() as db:
        pushes = db.scalars(select(OutboxItem).where(OutboxItem.channel == "push")).all()
        assert len(pushes) == 3
        assert {p.payload["tag"] for p in pushes} == {f"safety-{t.id}-1"}
    # Nothing in the database names pia or her token: not the entry, a counter, a replay, a delivery.
    rows = every_row(quiet_app)
    card_rows = [
        line
        for line in rows.splitlines()
        if line.startswith(("log_entries", "safety_counters", "between_replays", "outbox"))
    ]
    pia = str(uid(t, "pia"))
    for line in card_rows:
        assert "pia" not in line and "card-1" not in line
    (log_row,) = [line for line in card_rows if line.startswith("log_entries")]
    values = json.loads(log_row.partition(": ")[2])
    columns = [c["name"] for c in inspect(quiet_app.state.engine).get_columns("log_entries")]
    row = dict(zip(columns, values, strict=True))
    assert row["actor_id"] == "None" and row["actor_name"] == "None" and row["idempotency_key"] == "None"
    assert pia not in (row["actor_id"], row["subject_id"])


def test_the_discord_bridge_never_posts_a_card(t: Table, quiet_app: FastAPI) -> None:
    with quiet_app.state.sessionmaker() as db:
        db.add(DiscordBridge(campaign_id=t.id, webhook_url="http://127.0.0.1:9/hook", post="rolls,talk,sessions"))
        db.commit()
    assert x(t, t.player).status_code == 201
    t.client.post(f"/api/campaigns/{t.id}/messages", json={"text": "after the card"}, headers=t.narrator)
    with quiet_app.state.sessionmaker() as db:
        posted = [o.payload["seq"] for o in db.scalars(select(OutboxItem).where(OutboxItem.channel == "discord"))]
    assert posted == [2]  # the message; the card is no Discord post


def test_one_card_per_member_per_minute_and_a_retry_is_a_replay(t: Table) -> None:
    first = x(t, t.player, key="k")
    assert first.status_code == 201
    again = x(t, t.player, key="k")
    assert again.status_code == 201 and again.json()["replayed"] is True and again.json()["seq"] == first.json()["seq"]
    refused = x(t, t.player)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1 and refused.json()["detail"]
    other = x(t, t.other)  # another member's card is not held back
    assert other.status_code == 201
    assert len(t.log(t.narrator)) == 2
    assert x(t, t.outsider).status_code == 404
    assert t.client.post(f"/api/campaigns/{t.id}/safety/x", json={}).status_code == 401


def test_the_counter_and_the_replay_are_gone_once_their_window_has_passed(t: Table, quiet_app: FastAPI) -> None:
    assert x(t, t.player, key="k").status_code == 201
    with quiet_app.state.sessionmaker() as db:
        assert db.scalar(select(func.count()).select_from(SafetyCounter)) == 1
        assert db.scalar(select(func.count()).select_from(Replay)) == 1
        assert purge(db) == 0  # still within the 60 seconds
        past = datetime.now(UTC) - timedelta(seconds=1)
        db.execute(update(SafetyCounter).values(expires_at=past))
        db.execute(update(Replay).values(expires_at=past))
        db.commit()
        assert purge(db) == 2
        assert db.scalar(select(func.count()).select_from(SafetyCounter)) == 0
        assert db.scalar(select(func.count()).select_from(Replay)) == 0
    assert x(t, t.player).status_code == 201  # a new window


def test_the_card_counts_as_unread_for_everyone_its_sender_included(t: Table) -> None:
    x(t, t.player)
    for who in (t.narrator, t.player, t.other):
        r = t.client.get(f"/api/campaigns/{t.id}/unread", headers=who)
        assert r.json() == {"last_read_seq": 0, "unread": 1, "first_unread_seq": 1}


def test_lines_and_veils_are_anonymous_and_curated_by_the_narrator(t: Table, quiet_app: FastAPI) -> None:
    base = f"/api/campaigns/{t.id}/safety"
    assert t.client.get(base, headers=t.player).json() == {"lines": [], "veils": []}
    r = t.client.post(
        base, json={"kind": "line", "text": "  harm to  children "}, headers={**t.player, "Idempotency-Key": "l1"}
    )
    assert r.status_code == 201
    line = r.json()
    assert line == {"id": line["id"], "text": "harm to children"}
    replay = t.client.post(
        base, json={"kind": "line", "text": "  harm to  children "}, headers={**t.player, "Idempotency-Key": "l1"}
    )
    assert replay.status_code == 201 and replay.json() == {**line, "replayed": True}
    veil = t.client.post(base, json={"kind": "veil", "text": "romance"}, headers=t.other).json()
    assert t.client.get(base, headers=t.narrator).json() == {"lines": [line], "veils": [veil]}
    for body, field in (
        ({"kind": "line", "text": ""}, "text"),
        ({"kind": "line", "text": "x" * 201}, "text"),
        ({"kind": "wall", "text": "x"}, "kind"),
        ({"kind": "line"}, "text"),
    ):
        bad = t.client.post(base, json=body, headers=t.player)
        assert bad.status_code == 422 and bad.json()["field"] == field
    assert t.client.delete(f"{base}/{line['id']}", headers=t.player).status_code == 403
    assert t.client.delete(f"{base}/{line['id']}", headers=t.outsider).status_code == 404
    gone = {**t.narrator, "Idempotency-Key": "rm-1"}
    assert t.client.delete(f"{base}/{line['id']}", headers=gone).status_code == 204
    assert t.client.delete(f"{base}/{line['id']}", headers=gone).status_code == 204  # a retry: the first answer
    assert t.client.delete(f"{base}/{line['id']}", headers=t.narrator).status_code == 404
    assert t.client.get(base, headers=t.player).json() == {"lines": [], "veils": [veil]}
    assert t.log(t.narrator) == []  # lines and veils are the campaign's setting, not log entries
    rows = every_row(quiet_app)
    safety_rows = [r for r in rows.splitlines() if r.startswith(("safety_items", "safety_counters", "between_replays"))]
    assert safety_rows and not any(
        str(uid(t, "otto")) in r.split('"')[1:2] for r in safety_rows if r.startswith("safety_items")
    )
    assert not any("l1" in r or "otto" in r or "pia" in r for r in safety_rows)


@pytest.mark.parametrize(
    ("path", "dropped"),
    [
        ("/api/campaigns/3/safety/x", True),
        ("/api/campaigns/3/safety", True),
        ("/api/campaigns/3/safety/12", True),
        ("/campaigns/3/between/x", True),
        ("/campaigns/3/between/safety", True),
        ("/api/campaigns/3/messages", False),
        ("/campaigns/3", False),
    ],
)
def test_the_access_log_says_nothing_of_the_safety_tools(path: str, dropped: bool) -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "POST", path, "1.1", 201),
        None,
    )
    assert QuietSafetyFilter().filter(record) is not dropped
