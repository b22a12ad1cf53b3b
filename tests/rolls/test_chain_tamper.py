"""The chain covers every displayed field and the head is checkable: tampering with any displayed column,
deleting, reordering or truncating entries makes /verify and `python -m app.verify` name the entry and fail."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, select, update
from utils.tables import Table
from utils.web import CSRF_RE, signup

from app import verify as offline
from app.campaigns.models import Campaign
from app.rolls import chain
from app.rolls.models import LogEntry

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


def _world(table: Table) -> None:
    table.roll(table.player, "1d6")
    table.roll(table.player, "1d6", "blind")
    seq = table.roll(table.other, "1d6", "self").json()["seq"]
    table.client.post(f"/api/campaigns/{table.id}/entries/{seq - 1}/reveal", headers=table.narrator)
    table.roll(table.narrator, "2d6")


def _verify(table: Table, who: dict[str, str] | None = None) -> dict[str, Any]:
    r = table.client.get(f"/api/campaigns/{table.id}/verify", headers=who or table.player)
    assert r.status_code == 200
    return r.json()


def _export(table: Table, who: dict[str, str] | None = None) -> dict[str, Any]:
    return table.client.get(f"/api/campaigns/{table.id}/export", headers=who or table.player).json()


def _offline(tmp_path: Path, data: dict[str, Any], *args: str) -> int:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    return offline.main([str(path), *args])


def _tamper(app: Any, table: Table, at: int, **values: Any) -> None:
    with app.state.sessionmaker() as db:
        db.execute(update(LogEntry).where(LogEntry.campaign_id == table.id, LogEntry.seq == at).values(**values))
        db.commit()


def test_an_untouched_log_verifies_online_and_offline(table: Table, tmp_path: Path) -> None:
    _world(table)
    result = _verify(table)
    assert result["ok"] and result["count"] == 5 and result["head_seq"] == 5 and result["bodies_checked"] == 5
    for who in (table.player, table.other, table.narrator):
        data = _export(table, who)
        assert data["format"] == chain.FORMAT and data["head"]["seq"] == 5
        assert _offline(tmp_path, data) == 0
        assert _offline(tmp_path, data, "--head", f"5:{data['head']['hash']}") == 0


@pytest.mark.parametrize(
    "column,value",
    [
        ("actor_name", "mallory"),
        ("target_seq", 1),
        ("kind", "session"),
        ("visibility", "public"),
        ("character_id", 1),
        ("system", "cat"),
        ("action", "test_fate"),
        ("subject_id", 3),
    ],
)
def test_changing_a_displayed_column_breaks_the_chain(
    app: Any, table: Table, tmp_path: Path, column: str, value: Any
) -> None:
    _world(table)
    _tamper(app, table, 2, **{column: value})
    result = _verify(table)
    assert not result["ok"] and any(p.startswith("entry 2:") for p in result["problems"])
    assert _offline(tmp_path, _export(table)) == 1


def test_changing_the_time_breaks_the_chain(app: Any, table: Table) -> None:
    _world(table)
    with app.state.sessionmaker() as db:
        row = db.scalar(select(LogEntry).where(LogEntry.campaign_id == table.id, LogEntry.seq == 3))
        row.created_at = row.created_at - timedelta(hours=1)
        db.commit()
    assert "entry 3:" in _verify(table)["problems"][0]


def test_a_changed_body_is_caught_even_where_the_viewer_cannot_read_it(app: Any, table: Table) -> None:
    _world(table)
    with app.state.sessionmaker() as db:
        row = db.scalar(select(LogEntry).where(LogEntry.campaign_id == table.id, LogEntry.seq == 3))
        row.body = {**row.body, "summary": "rolled 1d6 [7] = 7"}  # otto's self roll: nobody else reads it
        db.commit()
    result = _verify(table, table.narrator)
    assert not result["ok"] and "entry 3: body does not match body_hash" in result["problems"]


def test_deleting_the_tail_or_reordering_is_caught(app: Any, table: Table, tmp_path: Path) -> None:
    _world(table)
    noted = _export(table)["head"]
    with app.state.sessionmaker() as db:
        db.execute(delete(LogEntry).where(LogEntry.campaign_id == table.id, LogEntry.seq == 5))
        db.commit()
    result = _verify(table)
    assert not result["ok"] and "head is entry 5 but the log has 4" in result["problems"][0]
    assert _offline(tmp_path, _export(table)) == 1
    # Rolling the head back as well still fails against a head noted earlier.
    with app.state.sessionmaker() as db:
        last = db.scalar(select(LogEntry.hash).where(LogEntry.campaign_id == table.id, LogEntry.seq == 4))
        db.execute(update(Campaign).where(Campaign.id == table.id).values(last_seq=4, head_hash=last))
        db.commit()
    assert _verify(table)["ok"]  # consistent with itself: only a head noted earlier can tell
    assert _offline(tmp_path, _export(table), "--head", f"5:{noted['hash']}") == 1

    _tamper(app, table, 1, seq=100)
    _tamper(app, table, 2, seq=1)
    _tamper(app, table, 100, seq=2)
    assert any("entry 1:" in p for p in _verify(table)["problems"])


def test_readable_fields_of_an_export_must_equal_the_hashed_body(table: Table, tmp_path: Path) -> None:
    _world(table)
    for field, value in (
        ("summary", "rolled 1d6 [7] = 7"),
        ("outcome", {"total": 6}),
        ("actor", "mallory"),
        ("created_at", "2020-01-01T00:00:00+00:00"),
    ):
        data = _export(table)
        data["entries"][0][field] = value
        assert _offline(tmp_path, data) == 1, field
    data = _export(table)
    data["entries"][0]["body"]["summary"] = "rolled 1d6 [7] = 7"
    data["entries"][0]["summary"] = "rolled 1d6 [7] = 7"
    assert _offline(tmp_path, data) == 1
    data = _export(table)
    data["entries"].pop()
    assert _offline(tmp_path, data) == 1  # the export's own head says 5


def test_a_consistently_rewritten_history_fails_against_a_noted_head(table: Table, tmp_path: Path) -> None:
    _world(table)
    data = _export(table)
    noted = f"{data['head']['seq']}:{data['head']['hash']}"
    first = data["entries"][0]
    first["body"]["summary"] = first["summary"] = "rolled 1d6 [7] = 7"
    first["body_hash"] = chain.body_hash(first["salt"], first["body"])
    prev = chain.GENESIS_HASH
    for entry in data["entries"]:  # the forger recomputes every link and the head
        entry["prev_hash"] = prev
        entry["hash"] = prev = chain.entry_hash(prev, entry, entry["body_hash"])
    data["head"]["hash"] = prev
    assert _offline(tmp_path, data) == 0  # consistent with itself
    assert _offline(tmp_path, data, "--head", noted) == 1


def test_a_signed_in_player_exports_and_checks_from_the_browser(client: Any, tmp_path: Path) -> None:
    table = Table(client)
    _world(table)
    signup(client, "pia-web")
    code = client.post(f"/api/campaigns/{table.id}/invites", json={}, headers=table.narrator).json()["code"]
    page = client.get(f"/join/{code}")
    match = CSRF_RE.search(page.text)
    assert match
    client.post(f"/join/{code}", data={"csrf_token": match.group(1)})
    page = client.get(f"/campaigns/{table.id}")
    assert page.status_code == 200
    head = _export(table)["head"]
    assert f"#{head['seq']}" in page.text and head["hash"] in page.text and "Export log" in page.text
    r = client.get(f"/campaigns/{table.id}/export.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    assert _offline(tmp_path, r.json(), "--head", f"{head['seq']}:{head['hash']}") == 0
    assert "Intact" in client.get(f"/campaigns/{table.id}/verify").text
