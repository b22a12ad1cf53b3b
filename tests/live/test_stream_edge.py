"""What the two live streams answer at their edge, for every role and for odd input, in-process: the status, every
response header (the security headers and cache headers included) and the first chunk. The streams are served
outside the middleware stack (app/live/routes.py, `StreamDispatcher`); these answers are what they were when
the streams went through it, so the lean path cannot quietly drop a header or let someone in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from utils.streams import http_scope, one_request
from utils.tables import Table
from utils.web import signed_in

from app.security import CSP

SECURITY = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}
STREAM_HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
    **SECURITY,
}


async def _open(app: Any, method: str, path: str, query: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """Open the stream, keep what arrives until the first body chunk (or the end), then hang up."""
    got: dict[str, Any] = {"status": None, "headers": [], "body": b""}
    done = anyio.Event()
    scope = http_scope(method, path, query, headers)
    receive = one_request(done)

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            got["status"] = message["status"]
            got["headers"] = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message["headers"]]
        elif message["type"] == "http.response.body":
            got["body"] += message.get("body", b"")
            if got["body"] or not message.get("more_body", False):
                done.set()

    with anyio.fail_after(10):
        await app(scope, receive, send)
    return got


def _call(
    client: TestClient, path: str, headers: dict[str, str] | None = None, *, query: str = "", method: str = "GET"
) -> dict[str, Any]:
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    assert client.portal is not None, "a TestClient used as a context manager (the app fixture)"
    return client.portal.call(_open, _app(client), method, path, query, raw)


def _app(client: TestClient) -> FastAPI:
    assert isinstance(client.app, FastAPI)
    return client.app


def _cookie(browser: TestClient) -> dict[str, str]:
    return {"Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items())}


def _header_names(got: dict[str, Any]) -> list[str]:
    return [k for k, _v in got["headers"]]


def _assert_stream(got: dict[str, Any], after: int) -> None:
    assert got["status"] == 200, got
    assert dict(got["headers"]) == STREAM_HEADERS, got["headers"]
    assert len(got["headers"]) == len(STREAM_HEADERS), got["headers"]  # nothing twice, no cookie, no gzip
    assert got["body"] == f"retry: 2000\n: connected, after {after}\n\n".encode()


@pytest.fixture
def browsers(client: TestClient, new_client: Callable[[], TestClient]) -> tuple[Table, dict[str, dict[str, str]]]:
    table = Table(client)
    table.roll(table.player)
    table.roll(table.player)
    cookies = {"anonymous": {}}
    for role, name in (("outsider", "olga"), ("other", "otto"), ("player", "pia"), ("narrator", "nora")):
        cookies[role] = _cookie(signed_in(new_client, name))
    return table, cookies


def test_the_api_stream_for_every_role(client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]]) -> None:
    table, cookies = browsers
    path = f"/api/campaigns/{table.id}/events"
    for headers in (table.other, table.player, table.narrator):
        _assert_stream(_call(client, path, headers), 2)
        _assert_stream(_call(client, path, headers, query="after=1"), 1)
        _assert_stream(_call(client, path, {**headers, "Last-Event-ID": "0"}, query="after=1"), 0)
    refused = _call(client, path, table.outsider)
    assert refused["status"] == 404 and b"not a member" in refused["body"], refused
    assert _call(client, f"/api/campaigns/{table.id + 1000}/events", table.narrator)["status"] == 404
    for headers in (
        {},
        {"Authorization": "Bearer nonsense"},
        {"Authorization": "Basic " + table.narrator["Authorization"].split()[1]},
        cookies["narrator"],
    ):  # a browser's session is no way into the API
        got = _call(client, path, headers)
        assert got["status"] == 401 and b"Bearer" in got["body"], got
        assert dict(got["headers"])["content-type"] == "application/json"
        assert {k: v for k, v in got["headers"] if k in SECURITY} == SECURITY


def test_the_page_stream_for_every_role(client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]]) -> None:
    table, cookies = browsers
    path = f"/campaigns/{table.id}/stream"
    for role in ("other", "player", "narrator"):
        _assert_stream(_call(client, path, cookies[role]), 2)
        _assert_stream(_call(client, path, {**cookies[role], "Last-Event-ID": "1"}), 1)
    anonymous = _call(client, path)
    assert anonymous["status"] == 303 and dict(anonymous["headers"])["location"].startswith("/signin?next=")
    assert "set-cookie" in _header_names(anonymous)  # a new visitor gets a session (and its CSRF token), as ever
    forged = _call(client, path, {"Cookie": "fb_session=forged.value.sig"})
    assert forged["status"] == 303 and "set-cookie" in _header_names(forged)
    outsider = _call(client, path, cookies["outsider"])
    assert outsider["status"] == 404 and b"<" in outsider["body"], outsider  # the HTML error page
    assert {k: v for k, v in outsider["headers"] if k in SECURITY} == SECURITY
    assert _call(client, path, table.narrator)["status"] == 303  # a bearer token is no way into a page


@pytest.mark.parametrize(
    "query, header",
    [
        ("after=2147483648", None),
        ("after=-1", None),
        ("after=x", None),
        ("after=%C2%B2", None),
        ("after=1%002", None),
        ("", "2147483648"),
        ("", "-3"),
        ("", "x"),
        ("", "\u00b2"),
    ],
)
def test_bad_resume_points_are_422_on_both_streams(
    client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]], query: str, header: str | None
) -> None:
    table, cookies = browsers
    for path, auth in (
        (f"/api/campaigns/{table.id}/events", table.narrator),
        (f"/campaigns/{table.id}/stream", cookies["narrator"]),
    ):
        headers = {**auth, **({"Last-Event-ID": header} if header is not None else {})}
        got = _call(client, path, headers, query=query)
        assert got["status"] == 422, (path, query, header, got)


@pytest.mark.parametrize("campaign", ["0", "2147483648", "99999999999999999999", "x", "1%002", "\u00b2"])
def test_bad_campaign_ids_are_refused_on_both_streams(
    client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]], campaign: str
) -> None:
    table, cookies = browsers
    from urllib.parse import unquote

    campaign = unquote(campaign)
    api = _call(client, f"/api/campaigns/{campaign}/events", table.narrator)
    page = _call(client, f"/campaigns/{campaign}/stream", cookies["narrator"])
    assert api["status"] == 422 and page["status"] == 422, (api, page)


def test_nul_in_headers_is_422_and_other_methods_405(
    client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]]
) -> None:
    table, cookies = browsers
    api, page = f"/api/campaigns/{table.id}/events", f"/campaigns/{table.id}/stream"
    assert _call(client, api, {**table.narrator, "X-Note": "a\x00b"})["status"] == 422
    assert _call(client, page, {**cookies["narrator"], "X-Note": "a\x00b"})["status"] == 422
    for method in ("POST", "HEAD", "DELETE"):
        assert _call(client, api, table.narrator, method=method)["status"] == 405
        assert _call(client, page, cookies["narrator"], method=method)["status"] in (403, 405)


def test_a_removed_or_revoked_viewer_is_refused_at_the_door(
    client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]]
) -> None:
    table, cookies = browsers
    path = f"/api/campaigns/{table.id}/events"
    members = client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["members"]
    otto = next(m["id"] for m in members if m["username"] == "otto")
    nora_browser_cookie = cookies["narrator"]
    r = client.post(
        f"/campaigns/{table.id}/members/{otto}/remove",
        headers={**nora_browser_cookie, "X-CSRF-Token": _csrf(client, nora_browser_cookie), "HX-Request": "true"},
    )
    assert r.status_code == 200, r.text
    assert _call(client, path, table.other)["status"] == 404
    assert _call(client, f"/campaigns/{table.id}/stream", cookies["other"])["status"] == 404


def _csrf(client: TestClient, cookie: dict[str, str]) -> str:
    from utils.web import CSRF_RE

    match = CSRF_RE.search(client.get("/account", headers=cookie).text)
    assert match
    return match.group(1)


def test_streams_are_opened_in_front_of_the_middleware_stack(
    client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]]
) -> None:
    """A well-formed request of a member never reaches the stack (the point of the dispatcher); a refused one
    always does, so it gets the stack's own answer."""
    from app.live.routes import StreamDispatcher

    table, cookies = browsers
    dispatcher = _app(client).middleware_stack
    assert isinstance(dispatcher, StreamDispatcher)
    stack, reached = dispatcher.app, []

    async def spy(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        await stack(scope, receive, send)

    dispatcher.app = spy
    try:
        _assert_stream(_call(client, f"/api/campaigns/{table.id}/events", table.player, query="after=0&x=1"), 0)
        _assert_stream(_call(client, f"/campaigns/{table.id}/stream", cookies["player"], query="after=2"), 2)
        assert reached == []
        assert _call(client, f"/api/campaigns/{table.id}/events", table.outsider)["status"] == 404
        assert _call(client, f"/campaigns/{table.id}/stream", cookies["outsider"])["status"] == 404
        assert len(reached) == 2
        # Input the dispatcher does not read itself but the route accepts: the same stream, opened the long way.
        _assert_stream(_call(client, f"/api/campaigns/{table.id}/events", {**table.player, "Last-Event-ID": " 1"}), 1)
        assert len(reached) == 3
    finally:
        dispatcher.app = stack


def test_a_client_that_hangs_up_is_unsubscribed(
    client: TestClient, browsers: tuple[Table, dict[str, dict[str, str]]]
) -> None:
    """The raw stream has no task group watching the connection: its listener must notice the hang-up, even
    while the stream waits for the next entry (keepalive far away)."""
    table, cookies = browsers
    hub = _app(client).state.hub
    hub_feeds = hub._feeds
    _assert_stream(_call(client, f"/api/campaigns/{table.id}/events", table.player), 2)
    _assert_stream(_call(client, f"/campaigns/{table.id}/stream", cookies["narrator"]), 2)
    assert table.id not in hub_feeds  # both hung up after their first chunk: nobody left subscribed
