"""The sign-in throttle and the sign-up limit (app/accounts/throttle.py, docs/LIMITS.md): exact under
concurrency, per account and address, never locking the owner out of a known address, proxies trusted only
when configured."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from utils.server import LiveServer, start_server, stop_server
from utils.web import csrf_of

from app.accounts import throttle as throttle_module
from app.config import Settings
from app.main import create_app
from app.models import Base

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too

RIGHT = "correct horse"


def _app(settings: Settings, **changes: object) -> FastAPI:
    application = create_app(settings.model_copy(update=changes))
    Base.metadata.create_all(application.state.engine)
    return application


def _from(application: FastAPI, address: str) -> TestClient:
    """A client whose socket peer is `address` (loopback only)."""
    return TestClient(application, client=(address, 50000))


def _token(client: TestClient, username: str, password: str, forwarded: str | None = None) -> httpx2.Response:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return client.post("/api/tokens", json={"username": username, "password": password}, headers=headers)


# The race, against a real uvicorn ------------------------------------------------------------------------


def _live_token(server: LiveServer, password: str, *, source: str = "127.0.0.1", **headers: str) -> httpx2.Response:
    with httpx2.Client(transport=httpx2.HTTPTransport(local_address=source), timeout=60) as c:
        return c.post(server.url + "/api/tokens", json={"username": "anna", "password": password}, headers=headers)


@pytest.mark.server
def test_forty_concurrent_wrong_passwords_check_exactly_the_limit(live_server: LiveServer) -> None:
    r = httpx2.post(live_server.url + "/api/users", json={"username": "anna", "password": RIGHT}, timeout=30)
    assert r.status_code == 201, r.text
    with ThreadPoolExecutor(40) as pool:
        answers = list(pool.map(lambda i: _live_token(live_server, f"wrong {i}"), range(40)))
    statuses = Counter(a.status_code for a in answers)
    assert statuses == {422: 5, 429: 35}, statuses
    refused = [a for a in answers if a.status_code == 429]
    assert all(int(a.headers["retry-after"]) > 0 and "Wait" in a.json()["detail"] for a in refused)
    # This pair is blocked, even with the right password, and X-Forwarded-For changes nothing (no trusted proxy)…
    assert _live_token(live_server, RIGHT).status_code == 429
    assert _live_token(live_server, RIGHT, **{"X-Forwarded-For": "127.0.0.9"}).status_code == 429
    # …but the owner, from another address, gets in.
    assert _live_token(live_server, RIGHT, source="127.0.0.2").status_code == 201


# Rules, in process -----------------------------------------------------------------------------------------


def test_the_pair_limit_counts_failures_only(client: TestClient) -> None:
    client.post("/api/users", json={"username": "anna", "password": RIGHT})
    for _round in range(2):  # a right password in between starts the pair afresh
        for _ in range(4):
            assert _token(client, "anna", "wrong horse").status_code == 422
        assert _token(client, "anna", RIGHT).status_code == 201
    for _ in range(5):
        assert _token(client, "anna", "wrong horse").status_code == 422
    r = _token(client, "anna", RIGHT)
    assert r.status_code == 429 and "Too many failed sign-ins" in r.json()["detail"]


def test_the_window_ends(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    client.post("/api/users", json={"username": "anna", "password": RIGHT})
    for _ in range(5):
        _token(client, "anna", "wrong horse")
    r = _token(client, "anna", RIGHT)
    assert r.status_code == 429 and 14 * 60 < int(r.headers["retry-after"]) <= 15 * 60
    later = throttle_module.utcnow() + timedelta(minutes=15, seconds=1)
    monkeypatch.setattr(throttle_module, "utcnow", lambda: later)
    assert _token(client, "anna", RIGHT).status_code == 201


def test_unknown_accounts_are_throttled_alike(client: TestClient) -> None:
    for _ in range(5):
        r = _token(client, "nobody", "wrong horse")
        assert r.status_code == 422 and r.json()["detail"] == "Wrong username or password."
    assert _token(client, "nobody", "wrong horse").status_code == 429


def test_the_web_form_shows_the_wait_next_to_the_form(client: TestClient) -> None:
    client.post("/api/users", json={"username": "anna", "password": RIGHT})
    token = csrf_of(client, "/signin")
    for _ in range(5):
        r = client.post(
            "/signin",
            data={"username": "anna", "password": "wrong", "csrf_token": token},
            headers={"HX-Request": "true"},
        )
        assert r.status_code == 422 and "Wrong username or password" in r.text
    r = client.post(
        "/signin", data={"username": "anna", "password": RIGHT, "csrf_token": token}, headers={"HX-Request": "true"}
    )
    assert r.status_code == 429 and "Wait 15 minutes" in r.text and 'id="signin-form"' in r.text
    assert int(r.headers["retry-after"]) > 0


def test_other_peoples_failures_never_lock_the_owner_out_of_a_known_address(settings: Settings) -> None:
    """max_failures=1: an account may fail 20 times from all addresses, an address 4 times over all accounts.
    Past those, only addresses the account signed in from before get through."""
    application = _app(settings, signin_max_failures=1, trusted_proxies="127.0.0.1")
    proxy = _from(application, "127.0.0.1")
    assert (
        proxy.post(
            "/api/users", json={"username": "anna", "password": RIGHT}, headers={"X-Forwarded-For": "127.0.1.1"}
        ).status_code
        == 201
    )  # anna's home
    for i in range(20):  # twenty addresses, one wrong guess each
        assert _token(proxy, "anna", "wrong horse", f"127.0.2.{i}").status_code == 422
    r = _token(proxy, "anna", RIGHT, "127.0.3.1")  # a new place, after 20 failures: refused unchecked
    assert r.status_code == 429 and "network you have used before" in r.json()["detail"]
    assert _token(proxy, "anna", RIGHT, "127.0.1.1").status_code == 201  # home: in
    application.state.engine.dispose()


def test_a_busy_address_does_not_lock_out_its_known_neighbours(settings: Settings) -> None:
    application = _app(settings, signin_max_failures=1)
    here = _from(application, "127.0.0.5")
    assert here.post("/api/users", json={"username": "nina", "password": RIGHT}).status_code == 201
    for name in ("a-1", "a-2", "a-3", "a-4"):  # spraying four accounts from the same network
        assert _token(here, name, "password1").status_code == 422
    r = _token(here, "a-5", "password1")
    assert r.status_code == 429 and "from your network" in r.json()["detail"]
    assert _token(here, "nina", RIGHT).status_code == 201  # she signed up here: not refused
    application.state.engine.dispose()


def test_forwarded_for_counts_only_from_a_trusted_proxy(settings: Settings) -> None:
    application = _app(settings, trusted_proxies="127.0.0.1, ::1")
    proxy, stranger = _from(application, "127.0.0.1"), _from(application, "127.0.0.2")
    proxy.post("/api/users", json={"username": "anna", "password": RIGHT}, headers={"X-Forwarded-For": "127.0.9.9"})
    for _ in range(5):
        assert _token(proxy, "anna", "wrong horse", "127.0.5.5").status_code == 422
    assert _token(proxy, "anna", RIGHT, "127.0.5.5").status_code == 429
    # A client-made prefix is ignored: the right-most address the proxy appended counts.
    assert _token(proxy, "anna", RIGHT, "127.0.6.6, 127.0.5.5").status_code == 429
    assert _token(proxy, "anna", RIGHT, "127.0.5.6").status_code == 201  # another client behind the proxy
    # Not a trusted proxy: its header is ignored, it is counted as itself.
    for _ in range(5):
        assert _token(stranger, "anna", "wrong horse", "127.0.7.7").status_code == 422
    assert _token(stranger, "anna", RIGHT, "127.0.8.8").status_code == 429
    application.state.engine.dispose()


def test_forwarded_proto_only_from_a_trusted_proxy(settings: Settings) -> None:
    from app.security import ProxyHeadersMiddleware, parse_networks

    seen: dict[str, object] = {}

    async def inner(scope, receive, send) -> None:
        seen.update(client=scope["client"], scheme=scope["scheme"])

    middleware = ProxyHeadersMiddleware(inner, trusted=parse_networks("127.0.0.0/30"))
    headers = [(b"x-forwarded-for", b"127.0.0.1, 127.0.4.4, 127.0.0.2"), (b"x-forwarded-proto", b"https")]
    import anyio

    for peer, client, scheme in (("127.0.0.1", "127.0.4.4", "https"), ("127.0.0.9", "127.0.0.9", "http")):
        scope = {"type": "http", "client": (peer, 1234), "scheme": "http", "headers": headers}
        anyio.run(middleware, scope, None, None)
        assert seen == {"client": (client, 0) if client != peer else (peer, 1234), "scheme": scheme}
    with pytest.raises(ValueError, match="not an IP address"):
        create_app(settings.model_copy(update={"trusted_proxies": "127.0.0.1, proxy.local"}))


def test_ipv6_clients_are_counted_by_their_64(settings: Settings) -> None:
    from starlette.requests import Request

    def key(host: str) -> str:
        from app.security import client_address

        return client_address(Request({"type": "http", "client": (host, 1), "headers": []}))

    assert key("::1") == key("::2") == "::/64"
    assert key("::ffff:127.0.0.1") == "127.0.0.1" and key("127.0.0.1") == "127.0.0.1"
    assert key("testclient") == "testclient"


# The sign-up limit ------------------------------------------------------------------------------------------


def test_ten_sign_ups_per_address_per_hour(settings: Settings) -> None:
    application = _app(settings, signup_max_per_hour=Settings().signup_max_per_hour)  # the default: 10
    client = _from(application, "127.0.0.2")
    assert client.post("/api/users", json={"username": "anna", "password": "password"}).status_code == 422
    for i in range(10):  # the refused one above did not count
        assert client.post("/api/users", json={"username": f"user{i}", "password": RIGHT}).status_code == 201
    r = client.post("/api/users", json={"username": "user10", "password": RIGHT})
    assert r.status_code == 429 and "Too many new accounts from your network" in r.json()["detail"]
    assert 59 * 60 < int(r.headers["retry-after"]) <= 3600
    browser = _from(application, "127.0.0.2")
    r = browser.post(
        "/signup",
        data={"username": "user11", "password": RIGHT, "password2": RIGHT, "csrf_token": csrf_of(browser, "/signup")},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 429 and "Too many new accounts" in r.text and "retry-after" in r.headers
    with application.state.sessionmaker() as db:
        from app.accounts.service import count_users

        assert count_users(db) == 10  # nothing written for the refused ones
    other = _from(application, "127.0.0.3")
    assert other.post("/api/users", json={"username": "user12", "password": RIGHT}).status_code == 201
    application.state.engine.dispose()


@pytest.mark.server
def test_concurrent_sign_ups_create_exactly_the_limit(database_url: str, tmp_path: Path) -> None:
    from utils.server import PG_URL, reset_postgres

    if database_url == PG_URL:
        reset_postgres(PG_URL)
    server = start_server(database_url, tmp_path, extra_env={"FATEBOARD_SIGNUP_MAX_PER_HOUR": "3"})
    try:

        def sign_up(i: int) -> int:
            return httpx2.post(
                server.url + "/api/users", json={"username": f"flood{i}", "password": RIGHT}, timeout=60
            ).status_code

        with ThreadPoolExecutor(12) as pool:
            statuses = Counter(pool.map(sign_up, range(12)))
    finally:
        stop_server(server)
    assert statuses == {201: 3, 429: 9}, statuses
