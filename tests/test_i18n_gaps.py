"""Issue 15's audit: strings a German or Danish reader met in English (invite problems, odds hints, ART table
upload errors, the Rabbits rules' choice words, the chain check's failures), each now in the reader's language."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.cat import NEW_CAT
from utils.english import english_words
from utils.tables import Table
from utils.web import signed_in

from app import i18n
from app.i18n import rule_message
from app.rolls import chain
from app.systems.art import rules as art
from app.systems.art.sheet import FOE_TRAITS
from app.systems.rabbits.rules import RabbitRuleError
from app.systems.rabbits.rules.rolls import tiebreak_ability


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
    r = client.post(
        f"/api/campaigns/{t.id}/characters",
        headers=t.player,
        json={"name": "Clover", "system": "rabbits", "sheet": {"nature": 4, "skills": {"Scout": 3}}},
    )
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


# --- validation messages (pydantic) in the reader's language ------------------------------------------------


class Table3:
    """nora narrates (English); greta (de) and dorte (da) play; a rabbit and a cat each, made through the API."""

    def __init__(self, client: TestClient, new_client: Any) -> None:
        self.t = Table(client, systems=("rabbits", "cat"), names=("nora", "greta", "dorte"))
        self.client = client
        self.base = f"/campaigns/{self.t.id}"
        self.browsers = {
            "nora": signed_in(new_client, "nora"),
            "greta": browser(new_client, "greta", "de"),
            "dorte": browser(new_client, "dorte", "da"),
        }
        self.rabbit = {
            who: self.character(token, f"Rabbit {who}", "rabbits", {"nature": 4, "skills": {"Scout": 3}})
            for who, token in (("greta", self.t.player), ("dorte", self.t.other))
        }
        r = self.browsers["greta"].post(
            f"{self.base}/characters/new/cat", data={"name": "Smoke", **NEW_CAT}, follow_redirects=False
        )
        assert r.status_code == 303, r.text
        self.cat = int(r.headers["location"].rsplit("/", 1)[1])

    def character(self, token: dict[str, str], name: str, system: str, sheet: dict[str, Any]) -> int:
        return self.t.character(token, name, system, sheet)

    def post(self, who: str, path: str, data: dict[str, Any]):
        return self.browsers[who].post(
            f"{self.base}{path}", data=data, headers={"HX-Request": "true"}, follow_redirects=False
        )


def errors_of(html: str) -> list[str]:
    import re

    return [re.sub(r"<[^>]+>", "", e).strip() for e in re.findall(r'class="[^"]*error[^"]*"[^>]*>(.*?)</', html, re.S)]


def test_a_bad_form_value_is_named_in_the_readers_language(client: TestClient, new_client: Any) -> None:
    table = Table3(client, new_client)
    expect = {
        "greta": ("Hindernis muss eine ganze Zahl sein.", "Hindernis darf höchstens 20 sein."),
        "dorte": ("Forhindring skal være et helt tal.", "Forhindring må højst være 20."),
    }
    for who, lang in (("greta", "de"), ("dorte", "da")):
        for ob, wanted in zip(("lots", "99"), expect[who]):
            r = table.post(
                who,
                f"/characters/{table.rabbit[who]}/act/test",
                {"skill": "Scout", "ob": ob, "idempotency_key": f"{who}-{ob}"},
            )
            assert r.status_code == 422, r.text
            found = errors_of(r.text)
            assert wanted in found, found
            assert not any(english_words(e, lang) for e in found), found
            assert "Input should" not in r.text


def test_the_narrators_adjust_form_names_the_field_in_her_language(client: TestClient, new_client: Any) -> None:
    table = Table3(client, new_client)
    for lang in ("de", "da"):  # nora narrates in German, then in Danish
        r = table.browsers["nora"].post("/account/language", data={"locale": lang}, follow_redirects=False)
        assert r.status_code == 303
        r = table.post("nora", f"/characters/{table.cat}/adjust", {"sheet.lives": "-1", "reason": "test"})
        found = errors_of(r.text)
        assert {"de": "Leben muss mindestens 0 sein.", "da": "Liv skal være mindst 0."}[lang] in found, found
        r = table.post("nora", f"/characters/{table.cat}/adjust", {"sheet.lives": "many", "reason": "test"})
        found = errors_of(r.text)
        assert {"de": "Leben: gib eine ganze Zahl ein.", "da": "Liv: skriv et helt tal."}[lang] in found, found
        assert not any(english_words(e, lang) for e in found) and "lives" not in " ".join(found), found


def test_the_api_says_it_in_the_accept_language(client: TestClient, new_client: Any) -> None:
    table = Table3(client, new_client)
    body = {
        "system": "cat",
        "action": "test_fate",
        "character_id": table.cat,
        "params": {"trait": "legs", "difficulty": "insane"},
    }
    r = client.post(
        f"/api/campaigns/{table.t.id}/actions", json=body, headers={**table.t.player, "Accept-Language": "de"}
    )
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert detail.startswith("Schwierigkeit muss eins hiervon sein: easy, moderate, hard"), detail
    r = client.post(
        f"/api/campaigns/{table.t.id}/characters/{table.cat}/adjust",
        json={"changes": {"lives": -1}, "reason": "test"},
        headers={**table.t.narrator, "Accept-Language": "da"},
    )
    assert r.status_code == 422 and r.json()["detail"] == "Liv skal være mindst 0.", r.text
    # FastAPI's own check of a request body (RequestValidationError): a missing field.
    r = client.post(
        f"/api/campaigns/{table.t.id}/actions",
        json={"system": "cat"},
        headers={**table.t.player, "Accept-Language": "de"},
    )
    assert r.status_code == 422 and "ist erforderlich" in r.json()["detail"], r.text
    assert "Field required" not in r.text


@pytest.mark.usefixtures("reset_locale")
def test_sheet_validators_complain_translatably() -> None:
    from pydantic import ValidationError

    from app.errors import validation_message
    from app.systems.catfight.sheet import CatSheet
    from app.systems.rabbits.sheet import RabbitSheet

    i18n.set_locale("de")
    with pytest.raises(ValidationError) as caught:
        CatSheet.model_validate({"attack": 20, "defend": 20, "jump": 20, "sneak": 20, "quickness": 20})
    text = validation_message(caught.value, CatSheet)[0]
    assert text.startswith("Die fünf Werte ergeben 100"), text
    i18n.set_locale("da")
    with pytest.raises(ValidationError) as caught:
        RabbitSheet.model_validate({"skills": {"Scout": {"rating": 7}}})
    text = validation_message(caught.value, RabbitSheet)[0]
    assert text.startswith("Spejder skal"), text


# --- the narrator's "Adjust sheet" form: labels, not sheet keys -------------------------------------------------


def test_every_adjustable_field_has_a_label() -> None:
    from app.forms import editable_fields
    from app.systems import SYSTEMS

    checked = []
    for system in SYSTEMS.values():
        sheet = system.sheet.model_construct().model_dump()
        for f in editable_fields(system.sheet, sheet, system.labels):
            assert f.name in system.labels, (system.id, f.name)
            checked.append(f.name)
    assert checked, "no system has a field to adjust: the check above saw nothing"


def test_the_adjust_form_shows_labels_in_the_narrators_language(client: TestClient, new_client: Any) -> None:
    import re

    t = Table(client, systems=("cat", "catfight", "rabbits", "art"), names=("nora", "greta", "dorte"))
    for system, sheet in (
        ("rabbits", {"nature": 4, "skills": {"Scout": 3}}),
        ("catfight", {"attack": 14, "defend": 14, "jump": 14, "sneak": 14, "quickness": 14}),
        (
            "art",
            {
                "sheet_kind": "foe",
                **{f"level_{code}": "PR" for code in FOE_TRAITS},
                "health_0": "PR",
                "damage_rating": "1",
            },
        ),
    ):
        t.character(t.narrator, f"{system} one", system, sheet, kind="npc")
    nora = signed_in(new_client, "nora")
    r = nora.post(f"/campaigns/{t.id}/characters/new/cat", data={"name": "Smoke", **NEW_CAT}, follow_redirects=False)
    assert r.status_code == 303, r.text
    for lang in ("de", "da"):
        assert nora.post("/account/language", data={"locale": lang}, follow_redirects=False).status_code == 303
        page = nora.get(f"/campaigns/{t.id}").text
        labels = re.findall(r'<label for="adj-\d+-(\w+)">([^<]*)</label>', page)
        keys = {key for key, _label in labels} - {"reason"}
        assert {"lives", "fate_spent", "between_adventures", "unconscious", "henchman", "attack", "fighting"} <= keys
        for key, label in labels:
            assert label.strip() and label.strip() != key, (key, label)
            assert english_words(label, lang, {"ATTACK", "DEFEND", "JUMP", "SNEAK", "QUICKNESS"}) == [], (key, label)
        assert 'name="sheet.fate_spent"' in page  # the key stays the input's name


# --- encounter titles the system made up: in each reader's language ---------------------------------------------


def test_made_up_encounter_titles_are_in_the_readers_language(art: Any) -> None:
    from utils.art import FOE

    maren = art.hero(art.pia)
    r = art.client.post(
        f"/api/campaigns/{art.t.id}/characters",
        headers=art.t.narrator,
        json={"name": "Goblin", "system": "art", "kind": "npc", "sheet": dict(FOE)},
    )
    goblin = r.json()["id"]
    for action, params in (
        ("combat_setup", {"adventurers": [maren], "foes": [goblin], "bands": 8, "adventurer_band": 2, "foe_band": 2}),
        ("explore_start", {"scale": "minutes", "participants": [maren]}),
    ):
        r = art.client.post(
            f"/api/campaigns/{art.t.id}/actions",
            headers=art.t.narrator,  # an English narrator
            json={"system": "art", "action": action, "params": params},
        )
        assert r.status_code == 201, r.text
    for lang, words in (("de", ("Kampf: Goblin", "Erkundung")), ("da", ("Kamp: Goblin", "Udforskning"))):
        assert art.pia.post("/account/language", data={"locale": lang}, follow_redirects=False).status_code == 303
        page = art.pia.get(art.base).text
        assert all(w in page for w in words), (lang, words)
        assert "Combat: Goblin" not in page and ">Exploration<" not in page


def test_the_api_docs_page_says_its_descriptions_are_english(client: TestClient) -> None:
    page = client.get("/docs", headers={"Accept-Language": "de"}).text
    assert "sind auf Englisch beschrieben" in page and "body:" not in page and 'lang="en"' in page
    assert "beskrevet på engelsk" in client.get("/docs", headers={"Accept-Language": "da"}).text


def test_whole_numbers_in_log_lines_are_grouped_in_the_readers_format() -> None:
    line = i18n.msg("{name} rolls {total} ({diff:+d}) on #{seq}", name="Tom", total=12345, diff=1500, seq=4567)
    assert i18n.render(line, "en") == "Tom rolls 12,345 (+1500) on #4567"
    assert i18n.render(line, "de") == "Tom rolls 12.345 (+1500) on #4567"  # (no msgid: the English template)
    assert i18n.render(i18n.msg("%(n)s and %(k)d", n=2500, k=2500), "da") == "2.500 and 2500"
    assert i18n.render(i18n.msg("{n} dice", n=12), "de") == "12 dice"
