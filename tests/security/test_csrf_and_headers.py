"""Security middleware (app/security.py): CSRF on forms and HTMX, the security headers and CSP without inline
script, the session cookie's Secure flag."""

from __future__ import annotations

from starlette.testclient import TestClient
from utils.web import csrf_of, signup


def test_csrf_is_required_for_forms_and_htmx(client: TestClient) -> None:
    signup(client, "anna")
    assert client.post("/campaigns", data={"name": "No token"}).status_code == 403
    assert client.post("/campaigns", data={"name": "Bad", "csrf_token": "forged"}).status_code == 403
    token = csrf_of(client, "/account")
    r = client.post(
        "/campaigns", data={"name": "Cross-site"}, headers={"X-CSRF-Token": token, "Origin": "https://evil.example"}
    )
    assert r.status_code == 403 and "another site" in r.text
    r = client.post(
        "/campaigns",
        data={"name": "Fine"},
        headers={"X-CSRF-Token": token, "Origin": "http://testserver"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    r = client.post("/campaigns", data={"name": "Field", "csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303


def test_security_headers_and_no_inline_script(client: TestClient) -> None:
    r = client.get("/signin")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
    import re

    for page in ("/signin", "/signup", "/docs"):
        html = client.get(page).text
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), page
        assert not re.search(r'<script[^>]+src="https?://', html), page


def test_cookie_secure_flag_is_a_setting(settings, tmp_path) -> None:
    from app.main import create_app

    app = create_app(settings.model_copy(update={"cookie_secure": True}))
    with TestClient(app) as c:
        assert "Secure" in c.get("/signin").headers["set-cookie"]
