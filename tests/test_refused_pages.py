"""A form refused with a whole page (a plain post answered 4xx) marks the page (body[data-refused]): static/js/app.js
then brings its first error into view and focuses the field (tests/browser/test_phone_forms_browser.py). A page
answered 200, or an HTMX fragment, carries no mark."""

from __future__ import annotations

import re

from starlette.testclient import TestClient
from utils.web import csrf_of, form_post

BODY = re.compile(r"<body[^>]*>")


def _body(html: str) -> str:
    found = BODY.search(html)
    assert found, html[:300]
    return found.group(0)


def test_a_refused_whole_page_is_marked(client: TestClient) -> None:
    token = csrf_of(client, "/signup")
    r = client.post(
        "/signup",
        data={"username": "ada", "password": "short", "password2": "short", "csrf_token": token},
        follow_redirects=False,
    )
    assert r.status_code == 422, r.text
    assert "data-refused" in _body(r.text)
    assert 'class="error field-error"' in r.text


def test_a_page_answered_200_is_not_marked(client: TestClient) -> None:
    assert "data-refused" not in _body(client.get("/signup").text)


def test_an_htmx_fragment_has_no_body_to_mark(client: TestClient) -> None:
    r = form_post(client, "/signup", {"username": "ada", "password": "short", "password2": "short"})
    assert r.status_code == 422, r.text
    assert "<body" not in r.text and "field-error" in r.text
