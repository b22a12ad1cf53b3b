"""The ART Engine pages: creation (balanced picker, errors next to their field, random method rolled on the sheet),
the sheet's forms and odds, the follow-ups on the sheet, prompts, the campaign page (session end, table upload),
the permissions of the JSON API, and the demo."""

from __future__ import annotations

import re

import pytest
from utils.art import GOBLIN, Art, balanced

from app.systems.art import rules as art_rules


def test_the_balanced_picker_creates_an_adventurer(art: Art) -> None:
    page = art.pia.get(f"{art.base}/characters/new/art")
    assert page.status_code == 200
    assert 'name="STR_a"' in page.text and "1, 1, 1, 2, 2, 2" in page.text
    cid = art.hero(skill_0="Climbing", skill_0_rating="4")
    sheet = art.pia.get(f"{art.base}/characters/{cid}").text
    assert "Defense" in sheet and "Climbing" in sheet and 'class="art-box' in sheet


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"STR_b": ""}, "STR_b", "Choose two numbers"),
        ({"STR_b": "6", "STA_b": "6"}, None, "all used"),
        (
            {"skill_0": "Climbing", "skill_0_rating": "4", "skill_1": "Swim", "skill_1_rating": "2"},
            "skill_1_rating",
            "costs 3 xp; you have 1 left",
        ),
    ],
)
def test_creation_errors_are_shown_next_to_the_field(
    art: Art, change: dict[str, str], field: str | None, words: str
) -> None:
    r = art.create(art.pia, balanced(**change))
    assert r.status_code == 422, (r.status_code, re.findall(r'role="alert">[^<]*', r.text))
    assert words in r.text
    if field:  # the message sits right after the field's select/input group
        assert re.search(rf'id="{field}".*?{re.escape(words)}', r.text, re.S)
    assert 'value="Maren"' in r.text  # what was typed is kept
    listing = art.client.get(f"/api/campaigns/{art.t.id}", headers=art.t.narrator).json()["characters"]
    assert not any(c["system"] == "art" for c in listing)  # nothing half-made


def test_random_method_is_rolled_on_the_sheet_through_the_log(art: Art) -> None:
    r = art.create(art.pia, {"name": "Dice-born", "sheet_kind": "adventurer", "method": "random"})
    assert r.status_code == 303
    cid = int(r.headers["location"].rsplit("/", 1)[1])
    page = art.pia.get(f"{art.base}/characters/{cid}").text
    assert "Roll all the rest" in page
    r = art.act(art.pia, cid, "roll_attributes", {})
    assert r.status_code == 200, r.text
    assert "rolls attributes (2d6 each)" in r.text
    sheet = art.sheet(cid)
    assert all(v is not None for v in sheet["attributes"].values()) and len(sheet["health"]) == 4
    entry = art.t.log(art.t.narrator)[-1]
    assert entry["action"] == "roll_attributes" and len(entry["dice"]) == 20


def test_players_may_not_create_foes(art: Art) -> None:
    data = {"name": "Orc", "sheet_kind": "foe", "kind": "npc"}
    r = art.create(art.pia, data)
    assert r.status_code == 422 and "Players create their own player characters only" in r.text


def test_a_foe_sheet_and_the_odds_and_a_roll_from_the_sheet(art: Art) -> None:
    r = art.create(art.nora, {"name": "Goblin", "kind": "npc", **GOBLIN})
    assert r.status_code == 303, r.text
    foe_id = int(r.headers["location"].rsplit("/", 1)[1])
    page = art.nora.get(f"{art.base}/characters/{foe_id}").text
    assert "As a henchman" in page and "row 10" in page  # Poor -> 10
    cid = art.hero(skill_0="Climbing", skill_0_rating="4", skill_1="Rock climbing", skill_1_rating="1")
    odds = art.pia.get(
        f"{art.base}/characters/{cid}/odds/trait_roll",
        params=[("attribute", "STR"), ("difficulty", "PR"), ("skills", "Climbing"), ("skills", "Rock climbing")],
    )
    assert "row 14 against Poor" in odds.text and "72.0% — row 14" in odds.text  # 29 and up is Poor or better on row 14
    r = art.act(art.pia, cid, "trait_roll", {"attribute": "STR", "difficulty": "PR"})
    assert r.status_code == 200 and "Last roll" in r.text
    # Otto can neither roll for Maren nor open her odds; the public part of her sheet is all he sees.
    assert art.act(art.otto, cid, "trait_roll", {"attribute": "STR", "difficulty": "PR"}).status_code == 403
    assert art.otto.get(f"{art.base}/characters/{cid}/odds/trait_roll").status_code == 404
    assert "Only its player and the narrators" in art.otto.get(f"{art.base}/characters/{cid}").text


def test_a_bad_roll_shows_its_error_in_its_own_form(art: Art) -> None:
    cid = art.hero()
    r = art.act(art.pia, cid, "trait_roll", {"attribute": "STR", "difficulty": "PR", "fame_before": "3"})
    assert r.status_code == 422
    assert re.search(r'id="tr-fame".*?You have 1 Fame left', r.text, re.S)
    assert r.text.count("You have 1 Fame left") == 1


def test_a_prompt_locks_the_narrators_choices(art: Art) -> None:
    cid = art.hero()
    r = art.nora.post(
        f"{art.base}/prompts",
        headers={"HX-Request": "true"},
        data={
            "character_id": cid,
            "system": "art",
            "action": "trait_roll",
            "locked.attribute": "AGI",
            "locked.difficulty": "IN",
            "note": "sneak past",
        },
    )
    assert r.status_code == 200, r.text
    page = art.pia.get(f"{art.base}/characters/{cid}").text
    prompt_id = re.search(r'id="prompt-(\d+)"', page).group(1)  # type: ignore[union-attr]
    r = art.act(art.pia, cid, "trait_roll", {"prompt_id": prompt_id, "attribute": "STR", "difficulty": "CT"})
    assert r.status_code == 200, r.text
    entry = art.t.log(art.t.narrator)[-1]
    assert entry["request"]["attribute"] == "AGI" and entry["request"]["difficulty"] == "IN"


def test_the_narrator_ends_the_session_on_the_campaign_page(art: Art) -> None:
    cid = art.hero()
    page = art.nora.get(f"{art.base}/systems/art")
    assert page.status_code == 200 and "End the session" in page.text
    r = art.nora.post(
        f"{art.base}/systems/art/act/end_session",
        headers={"HX-Request": "true"},
        data={"participants": [str(cid)], "idempotency_key": "end-1"},
    )
    assert r.status_code == 200, r.text
    assert "Maren +1 xp" in r.text
    assert art.sheet(cid)["xp"] == 12  # Intelligence 11, nothing bought, +1 for the session
    player_page = art.pia.get(f"{art.base}/systems/art").text
    assert "End the session" not in player_page


def test_the_table_upload_names_row_and_column_next_to_the_field(art: Art) -> None:
    rows = ["row,CT,PT,FB,IN,PR,PS,GD,GT,SP,AW"] + [f"{r},1,2,3,4,5,6,7,8,9,100" for r in range(31)]
    rows[8] = "7,1,2,3,40,5,6,7,8,9,100"
    r = art.nora.post(
        f"{art.base}/systems/art/act/upload_table",
        headers={"HX-Request": "true"},
        data={"csv": "\n".join(rows), "idempotency_key": "t-1"},
    )
    assert r.status_code == 422
    assert re.search(r'id="csv".*?row 7, column PR: 5 is below the previous column', r.text, re.S)
    assert "uses the default table" in r.text
    rows[8] = "7,1,2,3,4,5,6,7,8,9,100"
    r = art.nora.post(
        f"{art.base}/systems/art/act/upload_table",
        headers={"HX-Request": "true"},
        data={"csv": "\n".join(rows), "idempotency_key": "t-2"},
    )
    assert r.status_code == 200 and "uses its own table" in r.text
    r = art.pia.post(
        f"{art.base}/systems/art/act/default_table", headers={"HX-Request": "true"}, data={"idempotency_key": "t-3"}
    )
    assert r.status_code == 403


def test_follow_ups_are_checked_by_the_server(art: Art) -> None:
    cid = art.hero()
    r = art.api(art.t.player, "fame_after", cid, entry_seq=99)
    assert r.status_code == 422 and "latest roll" in r.text
    r = art.api(art.t.other, "inspire", cid, entry_seq=1, choice="attribute")
    assert r.status_code == 403


@pytest.mark.parametrize("method", ["balanced", "random"])
def test_the_creation_form_offers_starting_gear_and_equips_it(art: Art, method: str) -> None:
    """Issue 21, point 3: a character made through the page had no gear. The form now offers a weapon class
    (ch. 2's Weapon Class table, a Blade unless changed) and the best armor; both go on the sheet once the
    Fortune is known (at once for the balanced method, after the roll for the random one)."""
    page = art.pia.get(f"{art.base}/characters/new/art?method={method}").text
    assert 'name="starting_weapon"' in page and re.search(r'<option value="Blade" selected>', page)
    assert re.search(r'name="starting_armor" value="on" checked', page)
    assert 'value="Machine gun"' in page and 'value="none"' in page
    fields = (
        balanced(starting_weapon="Handgun", starting_armor="on")
        if method == "balanced"
        else {
            "name": "Dice-born",
            "sheet_kind": "adventurer",
            "method": "random",
            "starting_weapon": "Handgun",
            "starting_armor": "on",
        }
    )
    r = art.create(art.pia, fields)
    assert r.status_code == 303, r.text
    cid = int(r.headers["location"].rsplit("/", 1)[1])
    if method == "random":
        assert art.sheet(cid)["gear"] == []
        assert art.act(art.pia, cid, "roll_attributes", {}).status_code == 200
    sheet = art.sheet(cid)
    [gun] = sheet["gear"]
    assert (gun["name"], gun["weapon"], gun["slot"], gun["cost"]) == ("Handgun", "ranged_1h", "ready", sheet["fortune"])
    assert sheet["armor"] == art_rules.starting_armor(sheet["fortune"], sheet["attributes"]["STR"])
    assert "Handgun" in art.pia.get(f"{art.base}/characters/{cid}").text


def test_a_weapon_class_not_on_the_list_is_shown_next_to_the_field(art: Art) -> None:
    r = art.create(art.pia, balanced(starting_weapon="Lightsaber"))
    assert r.status_code == 422
    assert re.search(r'id="starting_weapon".*?Choose a weapon class from the list\.', r.text, re.S)
