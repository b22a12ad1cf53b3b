"""Access is re-checked before every delivery on a live stream (real uvicorn, keepalive set far away so the
quiet-moment check cannot be what ends the stream): removal, sign-out, token revocation and a role change
each take effect at the very next entry."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, delete, update
from utils.server import LiveServer, start_server, stop_server
from utils.web import CSRF_RE

from app.accounts.models import ApiToken, LoginSession
from app.campaigns.models import Membership
from app.types import utcnow

pytestmark = [pytest.mark.server, pytest.mark.engines]
PASSWORD = "correct horse"


@pytest.fixture
def quiet_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    server = start_server(database_url, tmp_path, extra_env={"FATEBOARD_SSE_KEEPALIVE_SECONDS": "120"})
    yield server
    stop_server(server)


def _token(base: str, name: str) -> dict[str, str]:
    httpx2.post(base + "/api/users", json={"username": name, "password": PASSWORD})
    r = httpx2.post(base + "/api/tokens", json={"username": name, "password": PASSWORD})
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _browser(base: str, name: str, cookies: Any = None) -> httpx2.Client:
    client = httpx2.Client(base_url=base, timeout=20, cookies=cookies)
    if cookies is not None:
        return client
    match = CSRF_RE.search(client.get("/signin").text)
    assert match
    r = client.post("/signin", data={"username": name, "password": PASSWORD, "csrf_token": match.group(1)})
    assert r.status_code == 303, r.text
    return client


class Table:
    def __init__(self, base: str, database_url: str) -> None:
        self.base, self.database_url = base, database_url
        self.nora, self.pia = _token(base, "nora"), _token(base, "pia")
        self.cid = httpx2.post(base + "/api/campaigns", json={"name": "Trust"}, headers=self.nora).json()["id"]
        code = httpx2.post(f"{base}/api/campaigns/{self.cid}/invites", json={}, headers=self.nora).json()["code"]
        httpx2.post(f"{base}/api/invites/{code}/accept", headers=self.pia)

    def roll(self, visibility: str = "public", expression: str = "3d1000") -> int:
        r = httpx2.post(
            f"{self.base}/api/campaigns/{self.cid}/actions",
            headers=self.nora,
            json={"system": "dice", "action": "roll", "params": {"expression": expression}, "visibility": visibility},
        )
        assert r.status_code == 201, r.text
        return r.json()["seq"]

    def db(self, statement: Any) -> None:
        engine = create_engine(self.database_url)
        with engine.begin() as conn:
            conn.execute(statement)
        engine.dispose()


def _listen(
    client: httpx2.Client, path: str, headers: dict[str, str], events: queue.Queue, ready: threading.Event
) -> None:
    try:
        with client, client.stream("GET", path, headers=headers) as response:
            ready.set()
            data: list[str] = []
            for line in response.iter_lines():
                if line.startswith("data: "):
                    data.append(line[6:])
                elif line == "" and data:
                    events.put("\n".join(data))
                    data = []
    except httpx2.TransportError:  # the server stopped at the end of the test
        pass
    events.put(None)  # the stream ended


def _start(client: httpx2.Client, path: str, headers: dict[str, str] | None = None) -> queue.Queue:
    events: queue.Queue = queue.Queue()
    ready = threading.Event()
    threading.Thread(target=_listen, args=(client, path, headers or {}, events, ready), daemon=True).start()
    assert ready.wait(10)
    return events


def _api_stream(table: Table, headers: dict[str, str]) -> queue.Queue:
    return _start(httpx2.Client(base_url=table.base, timeout=30), f"/api/campaigns/{table.cid}/events", headers)


def _assert_cut_off(table: Table, events: queue.Queue) -> None:
    """After the change, the next entry (a blind roll) and every later one never arrive; the stream ends."""
    table.roll("blind")
    table.roll("public")
    assert events.get(timeout=10) is None, "the stream should end instead of delivering the next entry"
    assert events.empty()


@pytest.mark.parametrize("cut", ["removed", "token revoked"])
def test_an_api_stream_stops_at_the_next_entry(quiet_server: LiveServer, cut: str) -> None:
    table = Table(quiet_server.url, quiet_server.database_url)
    events = _api_stream(table, table.pia)
    table.roll()
    assert json.loads(events.get(timeout=10))["seq"] == 1
    if cut == "removed":
        table.db(delete(Membership).where(Membership.campaign_id == table.cid, Membership.role == "player"))
    else:
        table.db(update(ApiToken).values(revoked_at=utcnow()))  # pia's and nora's: nora rolls with hers below
        table.nora = _token(table.base, "nora")
    _assert_cut_off(table, events)


def _page_stream(table: Table) -> tuple[httpx2.Client, queue.Queue]:
    """Pia's browser (signed in) and the campaign page's stream opened with its session, past entry 1."""
    browser = _browser(table.base, "pia")
    events = _start(_browser(table.base, "pia", browser.cookies), f"/campaigns/{table.cid}/stream")
    table.roll()
    assert 'id="entry-1"' in events.get(timeout=10)
    return browser, events


def test_a_page_stream_stops_at_the_next_entry_after_sign_out(quiet_server: LiveServer) -> None:
    table = Table(quiet_server.url, quiet_server.database_url)
    browser, events = _page_stream(table)
    match = CSRF_RE.search(browser.get("/account").text)
    assert match
    assert browser.post("/signout", data={"csrf_token": match.group(1)}).status_code == 303
    browser.close()
    _assert_cut_off(table, events)


def test_a_new_role_shows_from_the_next_entry(quiet_server: LiveServer) -> None:
    table = Table(quiet_server.url, quiet_server.database_url)
    events = _api_stream(table, table.pia)
    table.roll("blind")
    assert json.loads(events.get(timeout=10))["outcome"] is None  # a player: the blind result is hidden
    table.db(
        update(Membership)
        .where(Membership.campaign_id == table.cid, Membership.role == "player")
        .values(role="narrator")
    )
    table.roll("blind")
    assert json.loads(events.get(timeout=10))["outcome"] is not None  # now a narrator: shown
    table.db(
        update(Membership)
        .where(Membership.campaign_id == table.cid, Membership.user_id != _user_id(table, table.nora))
        .values(role="player")
    )
    table.roll("blind")
    assert json.loads(events.get(timeout=10))["outcome"] is None  # back to player, at once


def _user_id(table: Table, headers: dict[str, str]) -> int:
    members = httpx2.get(f"{table.base}/api/campaigns/{table.cid}", headers=headers).json()["members"]
    return next(m["id"] for m in members if m["username"] == "nora")


def test_login_sessions_are_what_the_page_stream_checks(quiet_server: LiveServer) -> None:
    """Deleting the session row (what sign-out does on any process) is enough."""
    table = Table(quiet_server.url, quiet_server.database_url)
    browser, events = _page_stream(table)
    table.db(delete(LoginSession))
    browser.close()
    _assert_cut_off(table, events)
