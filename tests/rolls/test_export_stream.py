"""The export is streamed in chunks (memory flat however long the log) and is byte for byte the one-piece
export it replaced, for every viewer; it ends at the head it names. Responses of /api/ and /static/ are
gzipped when the client asks, pages are not (BREACH), and a compressed export is the same JSON."""

from __future__ import annotations

import gzip
import json

import pytest
from starlette.responses import JSONResponse
from utils.tables import Table

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.rolls import log as rolllog

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


def _old_export(app, table: Table, username: str) -> bytes:
    with app.state.sessionmaker() as db:
        from sqlalchemy import select

        user = db.scalar(select(User).where(User.username == username))
        acc = campaigns.access(db, user, table.id)
        return JSONResponse(rolllog.export(db, acc)).body


@pytest.fixture
def busy_table(table: Table) -> Table:
    for i in range(7):
        r = table.roll(
            table.player if i % 2 else table.other,
            "2d6",
            visibility="public" if i % 3 else "narrator",
            note=f"roll «{i}»",
        )
        assert r.status_code == 201, r.text
    return table


@pytest.mark.parametrize("chunk", [1, 3, 500])
def test_the_streamed_export_is_the_old_export_byte_for_byte(
    app, busy_table: Table, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rolllog, "EXPORT_CHUNK", chunk)
    t = busy_table
    for who, name in ((t.narrator, "nora"), (t.player, "pia"), (t.other, "otto")):
        r = t.client.get(f"/api/campaigns/{t.id}/export", headers=who)
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        assert r.content == _old_export(app, t, name)
        assert len(r.json()["entries"]) == 7


def test_an_empty_log_exports_as_before(app, table: Table) -> None:
    r = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.narrator)
    assert r.content == _old_export(app, table, "nora")
    assert r.json()["entries"] == [] and r.json()["head"]["seq"] == 0


def test_the_export_stops_at_the_head_it_names(app, busy_table: Table) -> None:
    t = busy_table
    with app.state.sessionmaker() as db:
        from sqlalchemy import select

        acc = campaigns.access(db, db.scalar(select(User).where(User.username == "nora")), t.id)
    stream = rolllog.export_stream(app.state.sessionmaker, acc)
    first = next(stream)  # the head is fixed now; an entry appended meanwhile is not in this export
    assert t.roll(t.player, "1d6").status_code == 201
    data = json.loads(first + "".join(stream))
    assert data["head"]["seq"] == 7 and [e["seq"] for e in data["entries"]] == list(range(1, 8))


def test_api_and_static_are_compressed_and_pages_are_not(busy_table: Table) -> None:
    t = busy_table
    r = t.client.get(f"/api/campaigns/{t.id}/export", headers={**t.narrator, "Accept-Encoding": "gzip"})
    assert r.headers.get("content-encoding") == "gzip"
    assert json.loads(r.content) == json.loads(
        t.client.get(f"/api/campaigns/{t.id}/export", headers=t.narrator).content
    )
    raw = t.client.get("/static/js/htmx-2.0.11.min.js", headers={"Accept-Encoding": "gzip"})
    assert raw.headers.get("content-encoding") == "gzip" and len(gzip.compress(raw.content)) < len(raw.content)
    page = t.client.get("/signin", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and "content-encoding" not in page.headers
