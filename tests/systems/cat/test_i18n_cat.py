"""Cat and the cat fight in German and Danish: the names from the rule tables (Traits, ranks, difficulties, the
duel's values and moves) in log lines, rule errors and pages. The log keeps them language-neutral (English ids
and msgids); each reader gets them in their own language."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.cat import NEW_CAT, CatTable
from utils.catfight import TECKA
from utils.said import said
from utils.tables import Table
from utils.web import signed_in

from app import i18n
from app.systems.cat import rules as cat_rules
from app.systems.cat.rules.sheet import validate_new_cat
from app.systems.cat.sheet import cat_rule_message
from app.systems.catfight import rules as catfight
from app.systems.catfight.duel import rule_text
from app.systems.catfight.log import describe
from app.systems.catfight.rules.duel import start_duel, step


@pytest.fixture
def reader() -> Iterator[Any]:
    """Sets the request language for code that translates with `_()`; back to English afterwards."""
    yield i18n.set_locale
    i18n.set_locale("en")


def test_a_test_of_fate_names_the_trait_in_the_readers_language(app: Any) -> None:
    t = CatTable(app)
    cat = t.cat()
    entry = t.act("pia", "test_fate", cat, [2, 5, 6, 3], trait="legs", difficulty="moderate", dangerous=True).entry
    assert said(entry.body).startswith(
        "tests fate: Moderate dangerous Risk with Legs, 4 dice (Legs 4): 2 evens of 2 needed"
    )
    german, danish = said(entry.body, "de"), said(entry.body, "da")
    assert "Beine" in german and "Legs" not in german and "Moderate" not in german
    assert "Ben 4" in danish and "Legs" not in danish and "Moderat" in danish
    # Stored once, language-neutral: the Trait is a nested message with its English msgid.
    assert {"msg": "Legs"} in json.loads(json.dumps(entry.body["summary"]))["join"][0]["args"]["words"]["join"][0][
        "args"
    ].values()
    assert "Beine" not in json.dumps(entry.body)


def test_a_cat_rule_error_names_traits_and_ranks_in_the_readers_language(reader: Any) -> None:
    with pytest.raises(cat_rules.CatRuleError) as caught:
        validate_new_cat(
            {"claws": "hurt", "coat": "good", "face": "best", "fangs": "strong", "legs": "strong", "tail": "strong"}
        )
    reader("de")
    assert cat_rule_message(caught.value) == (
        "Die Eigenschaften einer neuen Katze sind Beste, Stark oder Gut; Krallen ist Verletzt."
    )
    reader("da")
    assert cat_rule_message(caught.value) == "En ny kats Træk er Bedst, Stærk eller God; Kløer er Skadet."


def test_an_illegal_duel_move_is_explained_in_the_readers_language(reader: Any) -> None:
    with pytest.raises(catfight.IllegalMove) as caught:
        step(start_duel(catfight.TECKA, {**catfight.TECKA, "name": "Mimi"}), "attack", None)  # type: ignore[arg-type]
    assert str(caught.value) == "“Attack” is not possible now (possible: Roll who starts)."
    reader("de")
    assert rule_text(caught.value) == "„Attacke“ ist jetzt nicht möglich (möglich: Auswürfeln, wer beginnt)."
    reader("da")
    assert rule_text(caught.value) == "„Angreb“ er ikke muligt nu (muligt: Slå om, hvem der starter)."
    reader("de")
    over = catfight.IllegalMove("flee", set())
    assert rule_text(over) == "„Flucht“ ist jetzt nicht möglich: das Duell ist vorbei."


def test_a_duel_log_line_names_the_value_in_the_readers_language() -> None:
    event = {
        "kind": "jump",
        "result": "dodged",
        "attacker": "a",
        "defender": "b",
        "attack_total": 18,
        "rolls": [
            {
                "cat": "b",
                "stat": "jump",
                "base": 14,
                "faces": [4],
                "value": 4,
                "critical": None,
                "total": 18,
                "attempt": 1,
            },
            {
                "cat": "a",
                "stat": "jump",
                "base": 15,
                "faces": [1],
                "value": -1,
                "critical": None,
                "total": 14,
                "attempt": 1,
            },
        ],
        "damage": [],
        "next": "b",
    }
    line = describe([event], {"a": "Tecka", "b": "Mimi"})
    assert i18n.render(line, "en").startswith("JUMP: Mimi JUMP 14 +4 (die 4) = 18, Tecka JUMP 15 -1")
    assert i18n.render(line, "de").startswith("JUMP: Mimi JUMP 14 +4 (Würfel 4) = 18")  # the seed's word
    assert i18n.render(line, "da").startswith("SPRING: Mimi SPRING 14 +4 (terning 4) = 18")  # as the buttons


def test_a_stale_duel_move_is_refused_in_german_with_what_is_possible(client: TestClient, new_client: Any) -> None:
    t = Table(client, systems=("catfight",))
    ids = []
    for who, name in ((t.player, "Tecka"), (t.other, "Mimi")):
        ids.append(t.character(who, name, "catfight", TECKA))
    r = client.post(
        f"/api/campaigns/{t.id}/actions",
        headers=t.player,
        json={"system": "catfight", "action": "challenge", "character_id": ids[0], "params": {"opponent_id": ids[1]}},
    )
    assert r.status_code == 201, r.text
    encounter = r.json()["request"]["encounter_id"]
    pia = signed_in(new_client, "pia", lang="de")
    r = pia.post(
        f"/campaigns/{t.id}/encounters/{encounter}/act/move",
        headers={"HX-Request": "true"},
        data={"character_id": ids[0], "version": 1, "move": "attack", "idempotency_key": "stale"},
    )
    assert "„Attacke“ ist jetzt nicht möglich (möglich: Auswürfeln, wer beginnt)." in r.text
    sheet = pia.get(f"/campaigns/{t.id}/characters/{ids[0]}").text
    assert "<dt>ATTACK</dt>" in sheet and "<dt>QUICKNESS</dt>" in sheet  # the seed's names
    otto = signed_in(new_client, "otto", lang="da")
    sheet = otto.get(f"/campaigns/{t.id}/characters/{ids[1]}").text
    assert "<dt>ANGREB</dt>" in sheet and "<dt>HURTIGHED</dt>" in sheet and "ATTACK" not in sheet
    duel = otto.get(f"/campaigns/{t.id}/encounters/{encounter}").text
    assert '<dt title="ANGREB">ANG</dt>' in duel and "ATK" not in duel
    glance = signed_in(new_client, "nora", lang="da").get(f"/campaigns/{t.id}/narrator").text
    assert "<dt>ANG/FOR</dt><dd>16/12</dd>" in glance


def test_the_cat_sheet_in_danish(client: TestClient, new_client: Any) -> None:
    t = Table(client, systems=("cat",))
    cat = t.character(t.player, "Smoke", "cat", NEW_CAT)
    t.character(t.other, "Tom", "cat", NEW_CAT)  # a rival, so the sheet offers a challenge
    for who in ("pia", "nora"):
        html = signed_in(new_client, who, lang="da").get(f"/campaigns/{t.id}/characters/{cat}").text
        # Traits and their help, ranks, difficulties, weapons: in the table, the roll dialog and the <select>s.
        for word in (
            '<th scope="row">Kløer<span class="cat-help">kamp, klatring</span>',
            "Hugtænder",
            "Hale",
            "<strong>Bedst</strong>",
            "<strong>Stærk</strong>",
            "<strong>God</strong>",
            "> Moderat ",
            "> Svær ",
            ">Ben — 4 terninger",
            *([">Undvig (Ben) — 4<"] if who == "pia" else []),
        ):
            assert word in html, (who, word)
        for english in ("Claws", "Fangs", "Strong", "Moderate", "climbing", "Dodge"):
            assert english not in html, (who, english)
    narrator = signed_in(new_client, "nora", lang="da").get(f"/campaigns/{t.id}/characters/{cat}").text
    assert '<option value="moderate" selected>Moderat</option>' in narrator  # calling for a roll
    glance = signed_in(new_client, "nora", lang="de").get(f"/campaigns/{t.id}/narrator").text
    assert "<dt>Krallen</dt><dd>Stark" in glance and "<dt>Gesicht</dt><dd>Beste" in glance


def test_the_cat_page_offers_the_example_foes_in_the_narrators_language(client: TestClient, new_client: Any) -> None:
    t = Table(client, systems=("cat",))
    nora = signed_in(new_client, "nora", lang="de")
    html = nora.get(f"/campaigns/{t.id}/systems/cat").text
    assert "<summary>Schiffshund</summary>" in html and 'value="Schiffshund"' in html and "Rattenschwarm" in html
    assert "Beispielgegner (kein Kanon): eine Bilgenratte." in html and "Ship dog" not in html
