"""Accounts: argon2, session cookies, the sign-in throttle, API tokens, the language choice. CSRF, headers and the
cookie's Secure flag: tests/security/test_csrf_and_headers.py."""

from __future__ import annotations

from starlette.testclient import TestClient
from utils.web import api_token, csrf_of, signup

from app.accounts import service


def test_production_hasher_is_argon2id_with_real_cost() -> None:
    hasher = service.make_password_hasher()  # as production builds it, not the tests' cheap one
    digest = hasher.hash("correct horse")
    assert digest.startswith("$argon2id$") and "m=65536" in digest and "t=3" in digest
    assert hasher.verify("correct horse", digest) and not hasher.verify("wrong horse", digest)


def test_signup_signs_in_with_a_rotated_httponly_cookie(client: TestClient) -> None:
    client.get("/signin")
    anonymous_cookie = client.cookies["fb_session"]
    token = csrf_of(client, "/signup")
    r = client.post(
        "/signup",
        data={"username": "Anna", "password": "correct horse", "password2": "correct horse", "csrf_token": token},
        follow_redirects=False,
    )
    assert r.status_code == 303
    set_cookie = r.headers["set-cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Lax" in set_cookie and "Secure" not in set_cookie
    assert client.cookies["fb_session"] != anonymous_cookie
    assert csrf_of(client, "/account") != token  # the CSRF token rotates at sign-in too
    assert "Anna" in client.get("/account").text


def test_signup_errors_are_shown_next_to_the_field_and_change_nothing(client: TestClient) -> None:
    token = csrf_of(client, "/signup")
    cases = [
        ({"username": "ab", "password": "correct horse", "password2": "correct horse"}, "3–40 letters"),
        ({"username": "anna", "password": "short", "password2": "short"}, "at least 8"),
        ({"username": "anna", "password": "correct horse", "password2": "other horse"}, "differ"),
    ]
    for data, message in cases:
        r = client.post("/signup", data={**data, "csrf_token": token}, headers={"HX-Request": "true"})
        assert r.status_code == 422 and message in r.text and "field-error" in r.text
    signup(client, "anna")
    other = TestClient(client.app)
    token = csrf_of(other, "/signup")
    r = other.post(
        "/signup",
        data={"username": "ANNA", "password": "correct horse", "password2": "correct horse", "csrf_token": token},
    )
    assert r.status_code == 422 and "taken" in r.text


def test_signout_ends_the_session(client: TestClient) -> None:
    signup(client, "anna")
    r = client.post("/signout", data={"csrf_token": csrf_of(client, "/account")}, follow_redirects=False)
    assert r.status_code == 303
    assert client.get("/account", follow_redirects=False).status_code == 303


def test_repeated_failed_signins_are_slowed_down(client: TestClient) -> None:
    signup(TestClient(client.app), "anna")
    token = csrf_of(client, "/signin")
    for _ in range(5):
        r = client.post("/signin", data={"username": "anna", "password": "wrong", "csrf_token": token})
        assert r.status_code == 422 and "Wrong username or password" in r.text
    r = client.post("/signin", data={"username": "anna", "password": "correct horse", "csrf_token": token})
    assert r.status_code == 429 and "Too many failed sign-ins" in r.text
    assert int(r.headers["retry-after"]) > 0
    r = client.post("/api/tokens", json={"username": "anna", "password": "correct horse"})
    assert r.status_code == 429 and "Wait" in r.json()["detail"]


def test_api_tokens_are_hashed_and_revocable(client: TestClient) -> None:
    from app.accounts.models import ApiToken

    headers = api_token(client, "anna")
    token = headers["Authorization"].split()[1]
    assert client.get("/api/campaigns", headers=headers).status_code == 200
    with client.app.state.sessionmaker() as db:
        rows = db.query(ApiToken).all()
        assert all(token not in (r.token_hash, r.prefix) and len(r.token_hash) == 64 for r in rows)
    token_id = rows[0].id
    signup_client = TestClient(client.app)
    csrf = csrf_of(signup_client, "/signin")
    signup_client.post("/signin", data={"username": "anna", "password": "correct horse", "csrf_token": csrf})
    page = signup_client.post(
        "/account/tokens",
        data={"name": "bot"},
        headers={"X-CSRF-Token": csrf_of(signup_client, "/account"), "HX-Request": "true"},
    )
    assert "fb_" in page.text and "shown only once" in page.text
    r = signup_client.post(
        f"/account/tokens/{token_id}/revoke",
        headers={"X-CSRF-Token": csrf_of(signup_client, "/account"), "HX-Request": "true"},
    )
    assert r.status_code == 200
    r = client.get("/api/campaigns", headers=headers)
    assert r.status_code == 401 and "Bearer" in r.json()["detail"]


def test_language_choice_is_kept_in_the_session(client: TestClient) -> None:
    from app import i18n

    assert i18n.negotiate("da-DK,da;q=0.9,en;q=0.5") == "da"
    assert i18n.negotiate("fr, de;q=0.4") == "de"
    assert i18n.negotiate(None) == "en" and i18n.negotiate("de", "en") == "en"
    assert 'lang="de"' in client.get("/signin", headers={"Accept-Language": "de"}).text
    signup(client, "anna")
    r = client.post(
        "/account/language", data={"locale": "da", "csrf_token": csrf_of(client, "/account")}, follow_redirects=False
    )
    assert r.status_code == 303
    assert 'lang="da"' in client.get("/account", headers={"Accept-Language": "de"}).text
