"""Issue 15's audit: strings a German or Danish reader met in English (invite problems, odds hints, ART table
upload errors, the Rabbits rules' choice words, the chain check's failures), each now in the reader's language."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.english import english_words
from utils.tables import Table
from utils.web import signed_in

from app import i18n
from app.i18n import rule_message
from app.rolls import chain
from app.rules import art
from app.rules.rabbits import RabbitRuleError
from app.rules.rabbits.rolls import tiebreak_ability


def browser(new_client: Any, name: str, lang: str) -> TestClient:
    """A signed-in browser whose account language is `lang` (chosen on the account page)."""
    c = signed_in(new_client, name)
    r = c.post("/account/language", data={"locale": lang}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return c


@pytest.fixture
def reset_locale():
    yield
    i18n.set_locale(i18n.DEFAULT)


def test_invite_problems_are_in_the_readers_language(client: TestClient, new_client: Any) -> None:
    t = Table(client)
    r = client.get("/join/no-such-code", headers={"Accept-Language": "de"})
    assert "Dieser Einladungslink ist ungültig." in r.text and "not valid" not in r.text
    r = client.get("/join/no-such-code", headers={"Accept-Language": "da"})
    assert "Dette invitationslink er ikke gyldigt." in r.text
    # A revoked invite: the narrator's list and the API's 404 say so in the reader's language.
    invite = client.post(f"/api/campaigns/{t.id}/invites", json={}, headers=t.narrator).json()
    nora = browser(new_client, "nora", "de")
    r = nora.post(f"/campaigns/{t.id}/invites/{invite['id']}/revoke", headers={"HX-Request": "true"})
    assert r.status_code == 200, r.text
    page = nora.get(f"/campaigns/{t.id}").text
    assert "Dieser Einladungslink wurde zurückgezogen." in page and "was revoked" not in page
    r = client.post(f"/api/invites/{invite['code']}/accept", headers={**t.outsider, "Accept-Language": "da"})
    assert r.status_code == 404 and "trukket tilbage" in r.json()["detail"], r.text


def test_the_odds_hint_is_in_the_readers_language(client: TestClient, new_client: Any) -> None:
    t = Table(client, systems=("rabbits",))
    r = client.post(f"/api/campaigns/{t.id}/characters", headers=t.player,
                    json={"name": "Clover", "system": "rabbits", "sheet": {"nature": 4, "skills": {"Scout": 3}}})
    clover = r.json()["id"]
    pia = browser(new_client, "pia", "da")
    r = pia.get(f"/campaigns/{t.id}/characters/{clover}/odds/test", params={"skill": "Scout", "ob": "lots"})
    assert "Vælg mulighederne for at se chancen." in r.text, r.text


@pytest.mark.usefixtures("reset_locale")
def test_an_art_table_upload_error_is_translated() -> None:
    rows = art.DEFAULT_TABLE.to_csv().strip().splitlines()
    cells = rows[2].split(",")
    cells[2], cells[3] = cells[3], cells[2]  # a bound below the one before it
    broken = "\n".join(rows[:2] + [",".join(cells)] + rows[3:])
    with pytest.raises(art.TableError) as caught:
        art.load_table(broken)
    assert "bounds never decrease" in caught.value.message
    i18n.set_locale("de")
    assert "die Grenzen fallen nie" in rule_message(caught.value)
    i18n.set_locale("da")
    assert "grænserne falder aldrig" in rule_message(caught.value)


@pytest.mark.usefixtures("reset_locale")
def test_the_rabbit_rules_choice_words_are_translated() -> None:
    with pytest.raises(RabbitRuleError) as caught:
        tiebreak_ability("dance")
    assert caught.value.message.startswith("Unknown kind of roll 'dance'")
    i18n.set_locale("da")
    text = rule_message(caught.value)
    said, _sep, _choices = text.partition(";")  # the choices are the ids a request sends: as they are
    assert "slags slag" in said and english_words(said, "da") == [], text
    i18n.set_locale("de")
    assert "Art des Wurfs" in rule_message(caught.value)


@pytest.mark.usefixtures("reset_locale")
def test_chain_failures_are_translated() -> None:
    entries = [{"seq": 2, "prev_hash": "x", "hash": "y", "body_hash": "z"}]
    result = chain.verify_entries(entries, head={"seq": 5, "hash": "q" * 64})
    assert not result.ok and result.problems == [str(p) for p in result.details]
    assert "entry 2: expected seq 1 (a gap or a reordering)" in result.problems
    for lang in ("de", "da"):
        i18n.set_locale(lang)
        texts = [rule_message(p) for p in result.details]
        assert not any(english_words(text, lang) for text in texts), texts
    assert "post 2: forventede nummer 1 (et hul eller en ombytning)" in texts
