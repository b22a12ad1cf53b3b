"""Redirects never leave the site: `next` on sign-in and sign-up, plain (303) and HTMX (HX-Redirect)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient
from utils.web import csrf_of, signup

from app.web import same_origin_path

# What arrives in `next` once the query string or form is decoded: each one a browser would take off-site
# (or that would split the header).
OFF_SITE = [
    "/\\evil.example/phish",  # ?next=/%5Cevil.example/phish: browsers read "/\" as "//"
    "//evil.example",
    "/\\\\evil",
    "\\\\evil.example",
    "https://evil.example",
    "javascript:alert(1)",
    "/\r\nSet-Cookie: owned=1",
    "/\t/evil.example",  # browsers drop tabs and newlines: "//evil.example"
    "/\n/evil.example",
    "/\x00/evil.example",
    " /evil",
    "",
]


@pytest.mark.parametrize("url", OFF_SITE)
def test_off_site_targets_fall_back_to_the_front_page(url: str) -> None:
    assert same_origin_path(url) == "/"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/campaigns/3", "/campaigns/3"),
        ("/join/abc?x=1&y=2#log", "/join/abc?x=1&y=2#log"),
        ("/a b/ü", "/a%20b/%C3%BC"),  # a header carries ASCII only
        ("/%5Cevil.example", "/%5Cevil.example"),  # an escaped backslash is a path on this site, not a host
        ("/..//evil.example", "/..//evil.example"),  # the browser resolves it to a path here
    ],
)
def test_paths_on_this_site_are_kept(url: str, expected: str) -> None:
    assert same_origin_path(url) == expected


def _signed_up(client: TestClient) -> TestClient:
    signup(TestClient(client.app), "anna")
    return client


def _signin(client: TestClient, next: str, *, htmx: bool):
    """A fresh browser signs in (the CSRF token rotates at every sign-in)."""
    browser = TestClient(client.app)
    form = {"username": "anna", "password": "correct horse", "next": next, "csrf_token": csrf_of(browser, "/signin")}
    return browser.post("/signin", data=form, headers={"HX-Request": "true"} if htmx else {}, follow_redirects=False)


@pytest.mark.parametrize("url", OFF_SITE)
def test_signin_with_an_off_site_next_lands_on_the_front_page(client: TestClient, url: str) -> None:
    _signed_up(client)
    r = _signin(client, url, htmx=False)
    if "\x00" in url:  # the input guard refuses NUL anywhere before any route sees it (docs/INPUT_LIMITS.md)
        assert r.status_code == 422 and "location" not in r.headers
        return
    assert r.status_code == 303 and r.headers["location"] == "/"
    r = _signin(client, url, htmx=True)
    assert r.status_code == 204 and r.headers["hx-redirect"] == "/"


def test_the_probe_from_the_report(client: TestClient) -> None:
    """/signin?next=/%5Cevil.example/phish, then the page's own form (HTMX): it used to answer
    HX-Redirect: /\\evil.example/phish."""
    _signed_up(client)
    page = client.get("/signin?next=/%5Cevil.example/phish")
    assert 'name="next" value="/"' in page.text and "evil" not in page.text
    r = client.post(
        "/signin",
        data={
            "username": "anna",
            "password": "correct horse",
            "next": "/\\evil.example/phish",
            "csrf_token": csrf_of(client, "/signin"),
        },
        headers={"HX-Request": "true"},
        follow_redirects=False,
    )
    assert r.headers["hx-redirect"] == "/"


def test_a_good_next_is_followed_on_both_paths(client: TestClient) -> None:
    _signed_up(client)
    assert _signin(client, "/campaigns?tab=mine", htmx=False).headers["location"] == "/campaigns?tab=mine"
    assert _signin(client, "/campaigns?tab=mine", htmx=True).headers["hx-redirect"] == "/campaigns?tab=mine"


@pytest.mark.parametrize(
    "query", ["/%5Cevil.example", "//evil.example", "https://evil.example", "/%0D%0Aa:b", "/%09/evil.example"]
)
def test_signed_in_visit_to_signin_redirects_home(client: TestClient, query: str) -> None:
    signup(client, "anna")
    r = client.get(f"/signin?next={query}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    r = client.get(f"/signin?next={query}", headers={"HX-Request": "true"}, follow_redirects=False)
    assert r.status_code == 204 and r.headers["hx-redirect"] == "/"


@pytest.mark.parametrize("htmx", [False, True])
@pytest.mark.parametrize("url", ["/\\evil.example", "//evil.example", "https://evil.example", "/\r\nX: y"])
def test_signup_with_an_off_site_next_lands_on_the_front_page(client: TestClient, url: str, htmx: bool) -> None:
    assert 'name="next" value="/"' in client.get("/signup", params={"next": url}).text
    form = {
        "username": "anna",
        "password": "correct horse",
        "password2": "correct horse",
        "next": url,
        "csrf_token": csrf_of(client, "/signup"),
    }
    r = client.post("/signup", data=form, headers={"HX-Request": "true"} if htmx else {}, follow_redirects=False)
    assert (r.headers["hx-redirect"] if htmx else r.headers["location"]) == "/"


def test_the_signin_detour_keeps_an_odd_path_escaped(client: TestClient) -> None:
    """A page that needs a signed-in user sends you to /signin?next=<its path>: the path is escaped, so CR/LF
    in it cannot split the header, and the sign-in page reads it back as a path here."""
    r = client.get("/campaigns/new%0D%0AX-Evil:%201", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/signin?next=/campaigns/new")
    assert "\r" not in r.headers["location"] and "x-evil" not in r.headers
    r = client.get("/campaigns/a%20b%5C", follow_redirects=False)
    next = parse_qs(urlsplit(r.headers["location"]).query)["next"][0]
    assert same_origin_path(next) == "/campaigns/a%20b%5C"  # where the sign-in then goes: the same page
    r = client.get("/account", follow_redirects=False)
    assert r.headers["location"] == "/signin?next=/account"
