"""The session cookie's `Secure` flag and Strict-Transport-Security follow from how the site is served (issue 21,
point 2): an https FATEBOARD_BASE_URL, or a request that arrived over https (uvicorn's own TLS, or a proxy in
FATEBOARD_TRUSTED_PROXIES saying X-Forwarded-Proto: https); FATEBOARD_COOKIE_SECURE, when set, decides alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.models import Base

HSTS = "max-age=31536000"


def _client(
    settings: Settings, peer: str = "192.0.2.10", base: str = "http://testserver", **changes: Any
) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update=changes))
    Base.metadata.create_all(app.state.engine)
    with TestClient(app, base_url=base, client=(peer, 50000)) as c:
        yield c
    app.state.engine.dispose()


def _transport(client: TestClient, headers: dict[str, str] | None = None) -> tuple[bool, str | None]:
    """(the new session cookie is Secure, the HSTS header) of a first page view."""
    client.cookies.clear()
    r = client.get("/signin", headers=headers or {})
    assert r.status_code == 200
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("fb_session=") and "HttpOnly" in cookie
    return "; Secure" in cookie, r.headers.get("strict-transport-security")


@pytest.mark.parametrize("base_url", ["", "http://fateboard.example"])
def test_plain_http_gets_neither(settings: Settings, base_url: str) -> None:
    for client in _client(settings, base_url=base_url):
        assert _transport(client) == (False, None)
        assert "strict-transport-security" not in client.get("/api/ping").headers


def test_an_https_base_url_gets_both(settings: Settings) -> None:
    for client in _client(settings, base_url="https://fateboard.example/"):
        assert _transport(client) == (True, HSTS)
        assert client.get("/api/ping").headers["strict-transport-security"] == HSTS


def test_a_trusted_proxy_saying_https_gets_both(settings: Settings) -> None:
    for client in _client(settings, peer="10.0.0.5", trusted_proxies="10.0.0.0/8"):
        assert _transport(client, {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}) == (True, HSTS)
        assert _transport(client, {"X-Forwarded-Proto": "http"}) == (False, None)
        assert _transport(client) == (False, None)


def test_an_untrusted_peer_saying_https_is_ignored(settings: Settings) -> None:
    for client in _client(settings, peer="192.0.2.10", trusted_proxies="10.0.0.0/8"):
        assert _transport(client, {"X-Forwarded-Proto": "https"}) == (False, None)
    for client in _client(settings, peer="10.0.0.5"):  # no trusted proxies at all: nobody's header counts
        assert _transport(client, {"X-Forwarded-Proto": "https"}) == (False, None)


def test_a_request_over_tls_gets_both(settings: Settings) -> None:
    """uvicorn holding the certificate itself (--ssl-keyfile): the request's scheme is https."""
    for client in _client(settings, base="https://testserver"):
        assert _transport(client) == (True, HSTS)


def test_the_explicit_setting_decides_alone(settings: Settings) -> None:
    for client in _client(settings, base_url="https://fateboard.example", cookie_secure=False):
        assert _transport(client) == (False, None)
    for client in _client(settings, base_url="http://fateboard.example", cookie_secure=True):
        assert _transport(client) == (True, HSTS)


def test_hsts_can_be_turned_off_or_shortened(settings: Settings) -> None:
    for client in _client(settings, base_url="https://fateboard.example", hsts_seconds=0):
        assert _transport(client) == (True, None)
    for client in _client(settings, base_url="https://fateboard.example", hsts_seconds=300):
        assert _transport(client) == (True, "max-age=300")


def test_the_environment_reads_unset_empty_and_booleans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FATEBOARD_COOKIE_SECURE", raising=False)
    assert Settings(_env_file=None).cookie_secure is None  # type: ignore[call-arg]
    for value, expected in (("", None), ("  ", None), ("true", True), ("false", False), ("1", True)):
        monkeypatch.setenv("FATEBOARD_COOKIE_SECURE", value)
        assert Settings(_env_file=None).cookie_secure is expected, value  # type: ignore[call-arg]
