"""The narrator's "call for a roll" on a sheet (Cat, ART, Rabbits): the answer swapped into the card is a short
confirmation (or the error), never the campaign page's prompt list with its `prompt-N` ids (issue 14)."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from typing import Any

import pytest
from utils.art import balanced_fields
from utils.cat import NEW_CAT
from utils.rabbits import NEW_RABBIT
from utils.web import api_token, form_post, signed_in

SHEETS: dict[str, dict[str, Any]] = {"cat": NEW_CAT, "rabbits": NEW_RABBIT, "art": balanced_fields()}


class _Page(HTMLParser):
    """Every element id, and the forms that post to the campaign's /prompts with the values they would send."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.forms: list[dict[str, Any]] = []
        self._form: dict[str, Any] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(str(a["id"]))
        if tag == "form" and str(a.get("hx-post") or "").endswith("/prompts"):
            self._form = {"attrs": a, "data": {}}
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input" and a.get("name") and a.get("type") not in ("checkbox", "radio"):
            self._form["data"][a["name"]] = a.get("value") or ""
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select:
            data = self._form["data"]
            if self._select not in data or "selected" in a:
                data[self._select] = a.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


@pytest.mark.parametrize("system_id", list(SHEETS))
def test_a_call_from_the_sheet_answers_with_a_short_confirmation(client, new_client, system_id: str) -> None:
    nora, pia = api_token(client, "nora"), api_token(client, "pia")
    cid = client.post("/api/campaigns", json={"name": "Calls", "systems": [system_id]}, headers=nora).json()["id"]
    code = client.post(f"/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
    assert client.post(f"/api/invites/{code}/accept", headers=pia).status_code == 200
    # Another character's open prompt: it must not show up in this sheet's card.
    for name in ("Hero", "Other"):
        r = client.post(
            f"/api/campaigns/{cid}/characters",
            headers=pia,
            json={"name": name, "system": system_id, "sheet": SHEETS[system_id]},
        )
        assert r.status_code == 201, r.text
    hero, other = (c["id"] for c in client.get(f"/api/campaigns/{cid}", headers=nora).json()["characters"])
    browser = signed_in(new_client, "nora")
    page = _parse(browser.get(f"/campaigns/{cid}/characters/{other}").text)
    assert page.forms, "no call for a roll on the sheet"
    assert form_post(browser, f"/campaigns/{cid}/prompts", page.forms[0]["data"]).status_code == 200

    sheet = browser.get(f"/campaigns/{cid}/characters/{hero}")
    page = _parse(sheet.text)
    assert page.forms
    for form in page.forms:
        assert "hx-select" not in form["attrs"]
        r = form_post(browser, f"/campaigns/{cid}/prompts", form["data"])
        assert r.status_code == 200, r.text
        assert "Called for a roll from Hero" in r.text
        assert "Other" not in r.text and "prompt-" not in r.text
        swapped = _parse(r.text)
        ids = Counter(page.ids + swapped.ids)  # the sheet with the answer swapped into its card
        assert [i for i, n in ids.items() if n > 1] == []
        assert 'class="ok result" role="status"' in r.text

    # A refused call: only the error, in the card.
    bad = {**page.forms[0]["data"], "locked.no_such_thing": "1"}
    r = form_post(browser, f"/campaigns/{cid}/prompts", bad)
    assert r.status_code == 422
    assert '<p class="error" role="alert">Unknown parameter: no_such_thing.</p>' in r.text
    assert "prompt-" not in r.text and "<form" not in r.text


def test_the_campaign_page_shows_an_error_without_a_field_at_the_top_of_the_panel(client, new_client) -> None:
    nora, pia = api_token(client, "nora"), api_token(client, "pia")
    cid = client.post("/api/campaigns", json={"name": "Calls", "systems": ["rabbits"]}, headers=nora).json()["id"]
    code = client.post(f"/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
    assert client.post(f"/api/invites/{code}/accept", headers=pia).status_code == 200
    hero = client.post(
        f"/api/campaigns/{cid}/characters",
        headers=pia,
        json={"name": "Hero", "system": "rabbits", "sheet": SHEETS["rabbits"]},
    ).json()["id"]
    browser = signed_in(new_client, "nora")
    r = form_post(
        browser,
        f"/campaigns/{cid}/prompts",
        {"character_id": hero, "system": "rabbits", "action": "test", "locked.bogus": "1"},
    )
    assert r.status_code == 422
    panel = r.text.split('<ul class="plain prompts">')[0]  # before the list: the panel's own error
    assert '<p class="error" role="alert">Unknown parameter: bogus.</p>' in panel


def test_a_dice_call_with_an_unknown_locked_field_is_a_422_and_creates_nothing(client, new_client) -> None:
    nora, pia = api_token(client, "nora"), api_token(client, "pia")
    cid = client.post("/api/campaigns", json={"name": "Dice calls", "systems": ["dice"]}, headers=nora).json()["id"]
    code = client.post(f"/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
    assert client.post(f"/api/invites/{code}/accept", headers=pia).status_code == 200
    hero = client.post(
        f"/api/campaigns/{cid}/characters", headers=pia, json={"name": "Hero", "system": "dice", "sheet": {}}
    ).json()["id"]
    browser = signed_in(new_client, "nora")
    for extra in ({"locked.bogus": "1"}, {"locked.bogus": "1", "expression": "2d6"}):
        r = form_post(browser, f"/campaigns/{cid}/prompts", {"character_id": hero, **extra})
        assert r.status_code == 422, r.text
        assert 'role="alert"' in r.text
    assert not re.search(r'id="prompt-\d', browser.get(f"/campaigns/{cid}").text)  # no prompt was made
