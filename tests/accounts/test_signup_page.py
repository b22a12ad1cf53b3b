"""What a new player reads before they have an account (issue 21): the sign-up form states the password rule's
minimum next to the field, from the rule's own constant (app/accounts/passwords.py), and an invite's main action
for a signed-out visitor is creating an account (signing in is the second)."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient
from utils.web import csrf_of, signup

from app.accounts import passwords


def _password_field(html: str) -> str:
    found = re.search(r'<input id="password" [^>]*>', html)
    assert found, html
    return found.group(0)


@pytest.mark.parametrize("minimum", [passwords.MIN_PASSWORD, 11])
def test_the_signup_form_states_the_minimum_the_rule_enforces(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, minimum: int
) -> None:
    monkeypatch.setattr(passwords, "MIN_PASSWORD", minimum)
    html = client.get("/signup").text
    assert f'minlength="{minimum}"' in _password_field(html)
    assert 'aria-describedby="password-help"' in _password_field(html)
    help_text = re.search(r'<p class="help" id="password-help">([^<]*)</p>', html)
    assert help_text and f"At least {minimum} characters." in help_text.group(1)
    # The rule refuses one character fewer, and the page answered then still states it next to the field.
    token = csrf_of(client, "/signup")
    short = "q" * (minimum - 1)
    r = client.post("/signup", data={"username": "ada", "password": short, "password2": short, "csrf_token": token})
    assert r.status_code == 422
    assert f"Use at least {minimum} characters." in r.text and f"At least {minimum} characters." in r.text


def test_the_signup_template_has_no_copy_of_the_number() -> None:
    from app.web import ENV

    assert ENV.loader is not None
    source = ENV.loader.get_source(ENV, "accounts/signup.html")[0]
    assert "min_password" in source and not re.search(r"minlength=\"\d", source)


def test_an_invites_main_action_for_a_new_player_is_creating_an_account(new_client) -> None:  # type: ignore[no-untyped-def]
    narrator = signup(new_client(), "nora")
    token = csrf_of(narrator, "/campaigns")
    r = narrator.post("/campaigns", data={"name": "Night Watch", "csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303, r.text
    campaign = r.headers["location"]
    page = narrator.get(campaign).text
    token = csrf_of(narrator, campaign)
    r = narrator.post(f"{campaign}/invites", data={"csrf_token": token}, headers={"HX-Request": "true"})
    code = re.search(r"/join/([A-Za-z0-9_-]+)", r.text) or re.search(r"/join/([A-Za-z0-9_-]+)", page)
    assert code, r.text
    visitor = new_client()
    html = visitor.get(f"/join/{code.group(1)}").text
    links = re.findall(r'<a class="button (primary|secondary)" href="(/sign(?:up|in))\?', html)
    assert links == [("primary", "/signup"), ("secondary", "/signin")], links
