"""A live stream's access (issue 34): decided when it opens, re-decided on every access event — removal, sign-out,
token revocation, a role change, announced after their commit (app/live/access.py) — and never by a query per
delivery. Through the application, a cut-off stream ends at once (no entry needed) and a new role shows from the
very next entry; a change made behind the application's back (raw SQL) takes effect once the hub's answer is
older than FATEBOARD_LIVE_ACCESS_MAX_AGE_SECONDS (the backstop). Real uvicorn, keepalive set far away so the
quiet-moment check cannot be what ends a stream."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, delete, update
from utils.server import LiveServer, serve_in_thread, stop_server
from utils.web import CSRF_RE

from app.accounts.models import ApiToken, LoginSession
from app.campaigns.models import Membership
from app.types import utcnow

pytestmark = [pytest.mark.server, pytest.mark.engines]
PASSWORD = "correct horse"
BACKSTOP = 1.0  # seconds: the backstop_server's FATEBOARD_LIVE_ACCESS_MAX_AGE_SECONDS


@pytest.fixture
def quiet_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """Events only: the backstop is far away (what ends or changes a stream here is the access event)."""
    env = {"FATEBOARD_SSE_KEEPALIVE_SECONDS": "120", "FATEBOARD_LIVE_ACCESS_MAX_AGE_SECONDS": "600"}
    server = serve_in_thread(database_url, tmp_path, extra_env=env)
    yield server
    stop_server(server)


@pytest.fixture
def backstop_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    env = {"FATEBOARD_SSE_KEEPALIVE_SECONDS": "120", "FATEBOARD_LIVE_ACCESS_MAX_AGE_SECONDS": str(BACKSTOP)}
    server = serve_in_thread(database_url, tmp_path, extra_env=env)
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
        r = httpx2.post(base + "/api/tokens", json={"username": "pia", "password": PASSWORD})
        self.pia, self.pia_token_id = {"Authorization": f"Bearer {r.json()['token']}"}, r.json()["id"]
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


def _ended_at_once(table: Table, events: queue.Queue) -> None:
    """The stream ends without waiting for an entry, and the entries after the change never arrive."""
    assert events.get(timeout=10) is None, "the stream should end at the access event"
    table.roll("blind")
    table.roll("public")
    assert events.empty()


def _as(table: Table, name: str, path: str) -> None:
    """A page form posted by `name`'s browser (signed in for it, closed after)."""
    browser = _browser(table.base, name)
    try:
        r = browser.post(path, data={"csrf_token": _csrf(browser)})
        assert r.status_code in (200, 303), r.text
    finally:
        browser.close()


def _csrf(browser: httpx2.Client, page: str = "/account") -> str:
    match = CSRF_RE.search(browser.get(page).text)
    assert match
    return match.group(1)


@pytest.mark.parametrize("cut", ["removed", "token revoked"])
def test_an_api_stream_ends_at_once_when_access_is_taken_through_the_application(
    quiet_server: LiveServer, cut: str
) -> None:
    table = Table(quiet_server.url, quiet_server.database_url)
    events = _api_stream(table, table.pia)
    table.roll()
    assert json.loads(events.get(timeout=10))["seq"] == 1
    if cut == "removed":
        _as(table, "nora", f"/campaigns/{table.cid}/members/{_user_id(table, table.nora, 'pia')}/remove")
    else:
        _as(table, "pia", f"/account/tokens/{table.pia_token_id}/revoke")
    _ended_at_once(table, events)


def _page_stream(table: Table) -> tuple[httpx2.Client, queue.Queue]:
    """Pia's browser (signed in) and the campaign page's stream opened with its session, past entry 1."""
    browser = _browser(table.base, "pia")
    events = _start(_browser(table.base, "pia", browser.cookies), f"/campaigns/{table.cid}/stream")
    table.roll()
    assert 'id="entry-1"' in events.get(timeout=10)
    return browser, events


def test_a_page_stream_ends_at_once_on_sign_out(quiet_server: LiveServer) -> None:
    table = Table(quiet_server.url, quiet_server.database_url)
    browser, events = _page_stream(table)
    assert browser.post("/signout", data={"csrf_token": _csrf(browser)}).status_code == 303
    browser.close()
    _ended_at_once(table, events)


def test_a_promotion_shows_from_the_next_entry(quiet_server: LiveServer) -> None:
    table = Table(quiet_server.url, quiet_server.database_url)
    events = _api_stream(table, table.pia)
    table.roll("blind")
    assert json.loads(events.get(timeout=10))["outcome"] is None  # a player: the blind result is hidden
    _as(table, "nora", f"/campaigns/{table.cid}/members/{_user_id(table, table.nora, 'pia')}/promote")
    assert events.get(timeout=10) == ""  # the page's `members` event (its data: none)
    table.roll("blind")
    assert json.loads(events.get(timeout=10))["outcome"] is not None  # now a narrator: shown at once


def test_a_reveal_reaches_the_streams_that_may_now_read_it(quiet_server: LiveServer) -> None:
    """Pia's private roll: nora's stream gets it hidden; Pia reveals it: both streams get the reveal, readable."""
    table = Table(quiet_server.url, quiet_server.database_url)
    theirs, mine = _api_stream(table, table.nora), _api_stream(table, table.pia)
    r = httpx2.post(
        f"{table.base}/api/campaigns/{table.cid}/actions",
        headers=table.pia,
        json={"system": "dice", "action": "roll", "params": {"expression": "3d1000"}, "visibility": "self"},
    )
    assert r.status_code == 201, r.text
    seq, total = r.json()["seq"], r.json()["outcome"]["total"]
    hidden, own = json.loads(theirs.get(timeout=10)), json.loads(mine.get(timeout=10))
    assert hidden["seq"] == own["seq"] == seq
    assert hidden["outcome"] is None and own["outcome"]["total"] == total
    r = httpx2.post(f"{table.base}/api/campaigns/{table.cid}/entries/{seq}/reveal", headers=table.pia)
    assert r.status_code == 201, r.text
    for events in (theirs, mine):
        reveal = json.loads(events.get(timeout=10))
        assert reveal["kind"] == "reveal" and reveal["target_seq"] == seq
        readable = {k: v for k, v in reveal.items() if not k.endswith("hash")}
        assert str(total) in json.dumps(readable)  # the revealed result, readable on both streams


# Behind the application's back (raw SQL, as from another tool): no access event; the backstop re-reads.


def _after_backstop(table: Table, events: queue.Queue) -> None:
    time.sleep(BACKSTOP + 0.2)
    table.roll("blind")
    table.roll("public")
    assert events.get(timeout=10) is None, "the stream should end instead of delivering the next entry"
    assert events.empty()


@pytest.mark.parametrize("cut", ["removed", "token revoked", "session deleted"])
def test_a_change_behind_the_applications_back_takes_effect_within_the_backstop(
    backstop_server: LiveServer, cut: str
) -> None:
    table = Table(backstop_server.url, backstop_server.database_url)
    if cut == "session deleted":
        browser, events = _page_stream(table)
        table.db(delete(LoginSession))
        browser.close()
    else:
        events = _api_stream(table, table.pia)
        table.roll()
        assert json.loads(events.get(timeout=10))["seq"] == 1
        if cut == "removed":
            table.db(delete(Membership).where(Membership.campaign_id == table.cid, Membership.role == "player"))
        else:
            table.db(update(ApiToken).values(revoked_at=utcnow()))  # pia's and nora's: nora rolls with a new one
            table.nora = _token(table.base, "nora")
    _after_backstop(table, events)


def test_a_role_changed_behind_the_applications_back_shows_within_the_backstop(backstop_server: LiveServer) -> None:
    table = Table(backstop_server.url, backstop_server.database_url)
    events = _api_stream(table, table.pia)
    table.db(
        update(Membership)
        .where(Membership.campaign_id == table.cid, Membership.role == "player")
        .values(role="narrator")
    )
    time.sleep(BACKSTOP + 0.2)
    table.roll("blind")
    assert json.loads(events.get(timeout=10))["outcome"] is not None


def _user_id(table: Table, headers: dict[str, str], name: str = "nora") -> int:
    members = httpx2.get(f"{table.base}/api/campaigns/{table.cid}", headers=headers).json()["members"]
    return next(m["id"] for m in members if m["username"] == name)
