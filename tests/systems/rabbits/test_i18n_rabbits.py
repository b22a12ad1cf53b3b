"""Rabbits in the reader's language (issue 15): the log lines name skills, abilities and conditions from the
tables in German and Danish (Danish words from rabbits.da.txt), the pool breakdown and the conflict page too;
what a player typed (a wise, a team's name) stays as typed. These read the committed catalogs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from utils.rabbits_conflict import HAZEL, Conflict, warren
from utils.web import signed_in

from app import i18n
from app.characters.models import Character
from app.i18n import render
from app.rules.text import N_
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.pools import PoolChoices, breakdown, breakdown_text, line_text, plan_pool
from app.systems.rabbits.sheet import load


@pytest.fixture
def conflict(app: Any) -> Conflict:
    return warren(app)


@pytest.fixture
def english_after() -> Iterator[None]:
    yield
    i18n.set_locale("en")


def _summary(entry: Any) -> Any:
    return entry.body["summary"]


def test_a_test_with_a_helper_and_fate_reads_in_danish_with_the_sheets_words(conflict: Conflict) -> None:
    test = conflict.act(
        "pia", "test", "Clover", [6, 2, 1, 1, 1], skill="Scout", ob=3, helpers=[conflict.ids["Hazel"]], wise="Fox-wise"
    )
    line = render(_summary(test), "da")
    assert line.startswith("testede Spejder (5D) [6 2 1 1 1]"), line
    assert "Scout" not in line and "failed" not in line
    assert render(_summary(test), "de").count("Späher") == 1
    # The stored body stays English msgids; the breakdown's labels too (read with `| tr`).
    assert test.body["summary"]["join"][0]["args"]["label"] == {"msg": "Scout"}
    assert [render(label, "da") for label, _dice in test.body["outcome"]["breakdown"]] == [
        "Spejder",
        "Hjælp fra Hazel",
        "Kendskab",
    ]
    fate = conflict.act("pia", "fate", "Clover", [6, 4], entry_seq=test.seq)
    danish = render(_summary(fate), "da")
    assert "Skæbne" in danish and "Fate" not in danish, danish
    assert "Schicksal" in render(_summary(fate), "de")


def test_an_advance_and_beginners_luck_name_the_skill_and_ability_in_danish(conflict: Conflict) -> None:
    luck = conflict.act("pia", "test", "Clover", [4, 5], skill="Healer", ob=1)
    line = render(_summary(luck), "da")
    assert "Vilje for Helbreder" in line and "Healer" not in line and "Will" not in line, line
    nature = conflict.act("pia", "test", "Clover", [1, 1, 1, 1], skill="Scout", nature_instead=True, ob=2)
    line = render(_summary(nature), "da")
    assert "Natur (i stedet for Spejder)" in line, line
    assert "Nature" not in line and "Scout" not in line


def test_the_pool_breakdown_in_german(conflict: Conflict, english_after: None) -> None:
    with conflict.factory() as db:
        from app.characters.models import Character

        sheet = dict(db.get(Character, conflict.ids["Clover"]).sheet)
    sheet.update(conditions=["injured"], persona=2, rewards_started=True)
    plan = plan_pool(
        load(sheet),
        PoolChoices(skill="Scout", wise="Fox-wise", trait="Quick", persona=1),
        settings={},
        session=1,
        helper_conditions=[[]],
        actor_is_narrator=True,
    )
    i18n.set_locale("de")
    assert breakdown_text(breakdown(plan)) == (
        "Späher 3; Hilfe +1; Kenntnis +1; Persona (1) +1; Eigenschaft hilft (einmal pro Sitzung) +1; Verletzt (-1D) -1"
    )
    i18n.set_locale("da")
    assert breakdown_text(breakdown(plan)).startswith("Spejder 3; Hjælp +1; Kendskab +1")
    # The rules keep English text (and compare as it); the app reads the template and its values.
    label = rabbits.pool_for("skill", 3, conditions=["sick"]).breakdown[1][0]
    assert label == "Sick (-1D)" and line_text(label) == {
        "msg": N_("{condition} ({dice}D)"),
        "args": {"condition": {"msg": "Sick"}, "dice": -1},
    }


def test_the_conflict_page_in_danish(conflict: Conflict, new_client: Any) -> None:
    conflict.setup("fight")
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    conflict.script("pia", "Clover", ["attack", "defend", "feint"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["maneuver", "attack", "attack"], ["Hazel"] * 3)
    pia = signed_in(new_client, "pia", lang="da")
    page = pia.get(f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}").text
    text = re.sub(r"<[^>]+>", " ", page)
    for word in ("Kamp", "Kæmper", "Helbred", "Natur"):
        assert word in text, word
    for english in ("Fighter", "Health", "Nature (", "disposition 7 (Fighter", "attack,"):
        assert english not in text, english
    # The roll form offers the conflict's skill in Danish, and still sends the sheet's key.
    assert '<option value="Fighter">Kæmper</option>' in page
    # What the players typed stays as typed; the title the narrator left empty is read in Danish.
    assert "Warren" in text and "Keep the burrow" in text
    assert "<h1>Kamp: Warren mod Raiders</h1>" in page and "Fight:" not in text


def test_the_sheet_and_the_campaign_page_in_german(conflict: Conflict, new_client: Any) -> None:
    pia = signed_in(new_client, "pia", lang="de")
    sheet = pia.get(f"/campaigns/{conflict.campaign_id}/characters/{conflict.ids['Clover']}").text
    for word in (
        "Späher",
        "Kämpfer",
        "Pfadfinder",
        "Natur",
        "Wille",
        "Gesundheit",
        "Ressourcen",
        "Kreise",
        "fliehen",
        "vermehren",
    ):
        assert word in sheet, word
    assert ">Scout<" not in sheet and ">Nature<" not in sheet and "Yes: flee" not in sheet
    assert "Fox-wise" in sheet and "Quick" in sheet  # typed by the player
    nora = signed_in(new_client, "nora", lang="da")
    page = nora.get(f"/campaigns/{conflict.campaign_id}/systems/rabbits").text
    assert "Kamp mod dyr" in page and "Kæmper/Jæger" in page and "Overtaler" in page
    assert "Persuader" not in page and "Fight Animal" not in page


def test_the_narrator_opens_a_rabbit_with_a_condition(conflict: Conflict, new_client: Any) -> None:
    """The narrator's tools on a sheet name the rabbit's conditions from the tables (once a 500: a wrong name for
    the tables in the template), in the reader's language."""
    hurt = conflict.rabbit("pia", "Bramble", HAZEL)
    with conflict.factory() as db:  # as the narrator's condition form leaves it (that route has its own tests)
        bramble = db.get(Character, hurt)
        bramble.sheet = {**bramble.sheet, "conditions": ["angry"]}
        db.commit()
    for lang, word in (("en", "Angry"), ("da", "Vred")):
        nora = signed_in(new_client, "nora", lang=lang)
        r = nora.get(f"/campaigns/{conflict.campaign_id}/characters/{hurt}")
        assert r.status_code == 200, r.text[:300]
        assert word in r.text
