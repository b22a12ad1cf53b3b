"""One log entry, read in each reader's language: the page, the API (Accept-Language) and the export; the
stored body stays the same (language-neutral) whoever acted or reads. Also the language pickers and the
campaign's language as a new member's default."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import api_token, signed_in

from app import i18n

WORDS = {
    "de": {"rolled {detail}": "würfelte {detail}", "Your account": "Dein Konto"},
    "da": {"rolled {detail}": "slog {detail}", "Your account": "Din konto"},
}


class _Catalog:
    def __init__(self, words: dict[str, str]) -> None:
        self.words = words

    def gettext(self, message: str) -> str:
        return self.words.get(message, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


@pytest.fixture
def catalogs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Known translations, whatever the committed catalogs hold yet."""
    monkeypatch.setattr(i18n, "translations", lambda loc: _Catalog(WORDS.get(loc, {})))


def test_one_entry_in_each_readers_language(client: TestClient, new_client: Any, catalogs: None) -> None:
    t = Table(client)
    r = t.roll(t.player, "1d6+1", character_id=t.pia_char)
    assert r.status_code == 201, r.text
    seq, detail = r.json()["seq"], r.json()["outcome"]["detail"]
    texts = {}
    for lang in ("en", "de", "da"):
        got = client.get(f"/api/campaigns/{t.id}/log", headers={**t.other, "Accept-Language": lang}).json()["entries"]
        entry = next(e for e in got if e["seq"] == seq)
        assert entry["summary"] == {"msg": "rolled {detail}", "args": {"detail": detail}}  # as stored, for everyone
        texts[lang] = entry["text"]
    assert texts == {"en": f"rolled {detail}", "de": f"würfelte {detail}", "da": f"slog {detail}"}
    # The pages: a German and a Danish player at the same table each read the roll in their language.
    for lang, name in (("de", "pia"), ("da", "otto")):
        page = signed_in(new_client, name, lang=lang).get(f"/campaigns/{t.id}").text
        assert WORDS[lang]["rolled {detail}"].format(detail=detail) in page
    # The export keeps the body as written, so it still verifies; `text` follows the request's language.
    export = client.get(f"/api/campaigns/{t.id}/export", headers={**t.narrator, "Accept-Language": "da"}).json()
    entry = next(e for e in export["entries"] if e["seq"] == seq)
    assert entry["body"]["summary"] == entry["summary"] and entry["text"] == f"slog {detail}"
    assert client.get(f"/api/campaigns/{t.id}/verify", headers=t.narrator).json()["ok"] is True


def test_pickers_name_each_language_in_itself(client: TestClient, new_client: Any) -> None:
    api_token(client, "pia")
    browser = signed_in(new_client, "pia")
    account = browser.get("/account").text
    assert ">Deutsch</option>" in account and ">Dansk</option>" in account and ">English</option>" in account
    assert ">de</option>" not in account
    campaigns = (
        browser.get("/campaigns").text if browser.get("/campaigns").status_code == 200 else browser.get("/").text
    )
    assert ">Deutsch</option>" in campaigns and ">Dansk</option>" in campaigns


def test_a_new_member_gets_a_danish_campaigns_language(client: TestClient, new_client: Any, catalogs: None) -> None:
    nora, pia = api_token(client, "nora"), api_token(client, "pia")
    r = client.post("/api/campaigns", json={"name": "Kaninerne", "systems": ["dice"], "language": "da"}, headers=nora)
    assert r.status_code == 201, r.text
    code = client.post(f"/api/campaigns/{r.json()['id']}/invites", json={}, headers=nora).json()["code"]
    assert client.post(f"/api/invites/{code}/accept", headers=pia).status_code == 200
    # pia never chose a language and her browser asks for none of ours: the campaign's language it is.
    browser = signed_in(new_client, "pia", lang="fr")
    page = browser.get("/account").text
    assert '<html lang="da">' in page and "Din konto" in page
    # Choosing one on the account page wins from then on.
    assert browser.post("/account/language", data={"locale": "en"}, follow_redirects=False).status_code == 303
    assert '<html lang="en">' in browser.get("/account").text


def test_an_english_browser_joining_keeps_its_language(client: TestClient, new_client: Any) -> None:
    nora = api_token(client, "nora")
    r = client.post("/api/campaigns", json={"name": "Katzen", "systems": ["dice"], "language": "de"}, headers=nora)
    code = client.post(f"/api/campaigns/{r.json()['id']}/invites", json={}, headers=nora).json()["code"]
    api_token(client, "otto")
    browser = signed_in(new_client, "otto", lang="en-GB,en;q=0.9")
    assert browser.post(f"/join/{code}", follow_redirects=False).status_code == 303
    assert '<html lang="en">' in browser.get("/account").text
