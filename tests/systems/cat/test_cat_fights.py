"""Cat fights through the rules service (cat.txt, "Fighting Other Cats", "Fighting Non-Cats", "Dodging";
rulings 4-6): encounters created and stepped by logged actions, scars waiting on both sheets."""

from __future__ import annotations

import pytest
from utils.cat import CatTable
from utils.said import said

from app.encounters.models import Encounter
from app.errors import BadRequest, Conflict, Forbidden


@pytest.fixture
def t(app) -> CatTable:
    return CatTable(app)


def _encounter(t: CatTable, eid: int) -> Encounter:
    with t.factory() as db:
        enc = db.get(Encounter, eid)
        db.expunge(enc)
        return enc


def test_cats_fight_one_exchange_and_both_take_the_others_evens_in_scars(t: CatTable) -> None:
    smoke, tom = t.cat(), t.cat("otto", "Tom")
    done = t.act("pia", "challenge", smoke, opponent_id=tom, weapon="fangs")
    eid = done.encounter_id
    assert "challenges Tom" in said(done.entry.body)
    with pytest.raises(Forbidden):  # Pia cannot answer for Otto's cat
        t.act("pia", "answer", tom, [2] * 8, encounter_id=eid, version=1, opponent_id=smoke, weapon="claws")
    with pytest.raises(BadRequest):  # the challenger does not answer his own challenge
        t.act("pia", "answer", smoke, [2] * 8, encounter_id=eid, version=1, opponent_id=tom, weapon="claws")
    # Smoke's Fangs (4 dice) first: 2 evens; then Tom's Claws (4 dice): 1 even.
    entry = t.act(
        "otto", "answer", tom, [2, 4, 1, 3, 2, 5, 5, 1], encounter_id=eid, version=1, opponent_id=smoke, weapon="claws"
    ).entry
    assert [d["face"] for d in entry.body["dice"]] == [2, 4, 1, 3, 2, 5, 5, 1]
    assert "Smoke wins" in said(entry.body)
    assert t.sheet(smoke)["pending"][0]["scars"] == 1 and t.sheet(tom)["pending"][0]["scars"] == 2
    enc = _encounter(t, eid)
    assert enc.status == "over" and enc.state["winner"] == "Smoke"
    with pytest.raises(Conflict):
        t.act("otto", "answer", tom, [2] * 8, encounter_id=eid, version=2, opponent_id=smoke, weapon="claws")
    t.act("otto", "place_scars", tom, claws=2, reason="Smoke bit my paw")
    t.act("pia", "dodge_with_life", smoke)
    assert t.sheet(smoke)["lives"] == 8


def test_a_tie_has_no_winner_and_a_dodge_loses_without_scars(t: CatTable) -> None:
    smoke, tom = t.cat(), t.cat("otto", "Tom")
    eid = t.act("pia", "challenge", smoke, opponent_id=tom, weapon="claws").encounter_id
    entry = t.act(
        "otto", "answer", tom, [2, 1, 1, 1, 4, 1, 1, 1], encounter_id=eid, version=1, opponent_id=smoke, weapon="fangs"
    ).entry
    assert "nobody dominates" in said(entry.body)
    t.act("pia", "place_scars", smoke, claws=1, reason="scratched")
    t.act("otto", "place_scars", tom, fangs=1, reason="scratched")
    eid = t.act("pia", "challenge", smoke, opponent_id=tom, weapon="claws").encounter_id
    entry = t.act(
        "otto", "answer", tom, [2, 2, 2, 2, 2, 2, 2, 2], encounter_id=eid, version=1, opponent_id=smoke, weapon="legs"
    ).entry
    assert "Smoke wins" in said(entry.body) and "Smoke takes 0 scars, Tom takes 0 scars" in said(entry.body)
    assert t.sheet(smoke)["pending"] == [] and t.sheet(tom)["pending"] == []


def test_a_cat_with_scars_to_place_or_a_dead_cat_cannot_fight(t: CatTable) -> None:
    smoke, tom = t.cat(), t.cat("otto", "Tom")
    t.set_sheet(tom, pending=[{"scars": 1, "source": "a fall"}])
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "challenge", smoke, opponent_id=tom, weapon="fangs")
    assert exc.value.field == "opponent_id"
    t.set_sheet(smoke, lives=0)
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "challenge", smoke, opponent_id=tom, weapon="fangs")
    assert "dead" in exc.value.message


def test_rounds_against_a_foe_scar_both_sides_and_wait_for_the_scars(t: CatTable) -> None:
    smoke, dog = t.cat(), t.foe()
    with pytest.raises(Forbidden):
        t.act("pia", "start_foe_fight", dog, cat_id=smoke, foe_trait="fangs")
    eid = t.act("nora", "start_foe_fight", dog, cat_id=smoke, foe_trait="fangs").encounter_id
    # Smoke's Claws (4 dice): 3 evens; the dog's Fangs (5 dice): 2 evens.
    entry = t.act(
        "pia", "foe_round", smoke, [2, 4, 6, 1, 2, 2, 1, 1, 1], encounter_id=eid, version=1, foe_id=dog, weapon="claws"
    ).entry
    assert "Smoke (Claws, 3 evens) vs Ship dog (Fangs, 2 evens): Smoke takes 2 scars, Ship dog takes 3 scars" in said(
        entry.body
    )
    assert t.sheet(smoke)["pending"][0]["scars"] == 2 and t.sheet(dog)["pending"][0]["scars"] == 3
    with pytest.raises(BadRequest):  # scars are placed at the end of each round
        t.act("pia", "foe_round", smoke, [2] * 9, encounter_id=eid, version=2, foe_id=dog, weapon="claws")
    t.act("pia", "place_scars", smoke, claws=2, reason="the dog's teeth")
    with pytest.raises(Forbidden):  # only the narrator places a foe's scars
        t.act("pia", "place_scars", dog, fangs=3, reason="I bit it")
    t.act("nora", "place_scars", dog, fangs=3, reason="Smoke raked its muzzle")
    # Round two, Smoke dodges: each even on Legs cancels one scar; he inflicts none.
    entry = t.act(
        "pia", "foe_round", smoke, [2, 4, 1, 1, 2, 2, 2, 1], encounter_id=eid, version=2, foe_id=dog, weapon="legs"
    ).entry
    assert entry.body["outcome"]["cancelled"] == 2 and entry.body["outcome"]["foe_scars"] == 0  # dog: 4 Fangs dice now
    assert t.sheet(smoke)["pending"][0]["scars"] == 1
    t.act("pia", "dodge_with_life", smoke)  # a Life dodges all scars of the round
    with pytest.raises(BadRequest):
        t.act("pia", "end_fight", smoke, encounter_id=eid, version=3, how="cat_wins")
    entry = t.act("pia", "end_fight", smoke, encounter_id=eid, version=3, how="cat_flees").entry
    assert "Smoke flees" in said(entry.body) and _encounter(t, eid).status == "over"


def test_foes_come_from_editable_example_templates(t: CatTable) -> None:
    dog = t.foe(dice_fangs="6", lives="9", name="Big dog")
    sheet = t.sheet(dog)
    assert sheet["foe"] and sheet["example"] and sheet["foe_dice"]["fangs"] == 6 and sheet["lives"] == 9
    assert "not canon" in sheet["notes"]
    swarm = t.sheet(t.foe("rat_swarm", "Swarm"))
    assert swarm["foe_dice"]["fangs"] == 6
    with pytest.raises(BadRequest) as exc:
        t.foe("dragon", "Dragon")
    assert exc.value.field == "foe_template"
