"""Forms, CSRF tokens, sign-ups and API tokens, as a browser or an API client does them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from httpx2 import Response
from starlette.testclient import TestClient

CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_of(client: TestClient, path: str = "/signin") -> str:
    match = CSRF_RE.search(client.get(path).text)
    assert match, f"no csrf token on {path}"
    return match.group(1)


def form_post(
    client: TestClient, path: str, data: dict[str, Any] | None = None, *, htmx: bool = True, token: str | None = None
) -> Response:
    headers = {"X-CSRF-Token": token or csrf_of(client, "/signin" if not client.cookies else "/account")}
    if htmx:
        headers["HX-Request"] = "true"
    return client.post(path, data=data or {}, headers=headers, follow_redirects=False)


def signup(client: TestClient, username: str, password: str = "correct horse") -> TestClient:
    token = csrf_of(client, "/signup")
    r = client.post(
        "/signup",
        data={"username": username, "password": password, "password2": password, "csrf_token": token},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return client


def api_token(client: TestClient, username: str, password: str = "correct horse") -> dict[str, str]:
    r = client.post("/api/users", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    r = client.post("/api/tokens", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def signed_in(
    new_client: Callable[[], TestClient], username: str, *, lang: str | None = None, password: str = "correct horse"
) -> TestClient:
    """A fresh browser signed in as `username` (optionally asking for a language), with its CSRF header set."""
    c = new_client()
    if lang is not None:
        c.headers["Accept-Language"] = lang
    r = c.post(
        "/signin",
        data={"username": username, "password": password, "csrf_token": csrf_of(c, "/signin"), "next": "/"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    c.headers["X-CSRF-Token"] = csrf_of(c, "/account")
    return c
