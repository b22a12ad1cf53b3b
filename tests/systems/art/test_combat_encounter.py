"""ART combat rounds through the rules service with scripted dice: set-up, initiative (a tie settled by a
logged die, the bonus round, a lost first turn, the simplified order), turn order, waiting, multi-action,
movement (rough terrain, escaping), the narrator's foes, and the end."""

from __future__ import annotations

import pytest
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.art_fight import Fight, face
from utils.said import said

from app.errors import BadRequest, Forbidden


@pytest.fixture
def fight(play: Play) -> Fight:
    return Fight(play)


def _initiative(fight: Fight, maren: list[int], tom: list[int], **maren_params: int) -> None:
    fight.step(PIA, "combat_initiative", fight.play.hero, maren, **maren_params)
    fight.step(OTTO, "combat_initiative", fight.play.friend, tom)


def test_the_narrator_sets_up_a_combat_with_a_track_features_and_a_group(fight: Fight) -> None:
    body = fight.setup(
        bands=9, foe_band=6, groups=[f"{fight.play.foe}:3"], features="0 exit door\n4 rough rubble\n7 hazard fire pit"
    )
    state = fight.state()
    assert state["phase"] == "initiative" and state["bands"] == 9
    assert [(x["band"], x["kind"], x["label"]) for x in state["features"]] == [
        (0, "exit", "door"),
        (4, "rough", "rubble"),
        (7, "hazard", "fire pit"),
    ]
    goblins = fight.fighter(fight.play.foe)
    assert goblins["name"] == "Goblin ×3" and goblins["count"] == 3 and goblins["band"] == 6
    assert "Roll initiative" in said(body) and "IN" not in said(body)
    enc = fight.encounter()
    assert enc.kind == "combat" and {p["side"] for p in enc.participants} == {"adventurer", "foe"}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"adventurers": []}, "adventurers"),
        ({"bands": 4, "foe_band": 6}, "foe_band"),
        ({"features": "3 lava"}, "features"),
        ({"features": "12 rough"}, "features"),
        ({"groups": ["1:99"]}, "groups"),
    ],
)
def test_a_bad_setup_is_refused_next_to_its_field(fight: Fight, params: dict, field: str) -> None:
    with pytest.raises(BadRequest) as caught:
        fight.setup(**params)
    assert caught.value.field == field


def test_players_cannot_set_up_a_combat(fight: Fight) -> None:
    with pytest.raises(Forbidden):
        fight.request(PIA, "combat_setup", {"adventurers": [fight.play.hero], "foes": [fight.play.foe]})


def test_initiative_ties_are_broken_by_a_logged_die_and_foes_use_their_rating(fight: Fight) -> None:
    fight.setup()
    poor = face(7, "PR")
    first = fight.step(PIA, "combat_initiative", fight.play.hero, [poor])
    assert "waiting for Tom" in said(first)
    with pytest.raises(BadRequest):  # once each
        fight.step(PIA, "combat_initiative", fight.play.hero, [poor])
    with pytest.raises(BadRequest):  # rounds have not begun
        fight.step(PIA, "combat_end_turn", fight.play.hero)
    last = fight.step(OTTO, "combat_initiative", fight.play.friend, [poor, 2, 5])
    assert last["dice"] == [{"sides": 100, "face": poor}, {"sides": 6, "face": 2}, {"sides": 6, "face": 5}]
    assert "tie on Poor: Maren rolls 2, Tom rolls 5" in said(last)
    state = fight.state()
    assert state["phase"] == "rounds" and state["round"] == 1
    # Tom won the tie; the Goblin (Inferior Alertness) acts after both
    assert state["order"] == [fight.play.friend, fight.play.hero, fight.play.foe]
    assert state["initiative"]["bonus"] == []


def test_the_bonus_round_and_a_lost_first_turn(fight: Fight) -> None:
    fight.setup()
    # Maren: +5 (row 12) rolls 97, Super: a bonus round. Tom: Pathetic, loses his first turn.
    _initiative(fight, [97], [face(7, "PT")], modifiers=5)
    state = fight.state()
    assert state["round"] == 0 and state["order"] == [fight.play.hero]
    assert state["initiative"]["first"] == [fight.play.hero, fight.play.foe]
    assert state["initiative"]["later"] == [fight.play.hero, fight.play.foe, fight.play.friend]
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    state = fight.state()
    assert state["round"] == 1 and state["order"] == [fight.play.hero, fight.play.foe]
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    assert fight.state()["order"] == [fight.play.hero, fight.play.foe, fight.play.friend]  # round 2: everyone


def test_the_server_keeps_the_turn_order(fight: Fight) -> None:
    fight.setup()
    _initiative(fight, [face(7, "GD")], [face(7, "PR")])
    assert fight.turn() == fight.play.hero
    with pytest.raises(BadRequest) as caught:
        fight.step(OTTO, "combat_end_turn", fight.play.friend)
    assert "Maren's turn" in caught.value.message
    with pytest.raises(Forbidden):  # Otto cannot act for Maren
        fight.step(OTTO, "combat_end_turn", fight.play.hero)
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    assert fight.turn() == fight.play.friend


def test_waiting_follows_ruling_15(fight: Fight) -> None:
    fight.setup()
    _initiative(fight, [face(7, "GD")], [face(7, "PR")])  # Maren, Tom, Goblin
    with pytest.raises(BadRequest):  # not someone still to act
        fight.step(PIA, "combat_wait", fight.play.hero, after=fight.play.hero)
    fight.step(PIA, "combat_wait", fight.play.hero, after=fight.play.foe)
    assert fight.state()["order"] == [fight.play.friend, fight.play.foe, fight.play.hero]
    with pytest.raises(BadRequest) as caught:  # Tom cannot wait past Maren, who is waiting
        fight.step(OTTO, "combat_wait", fight.play.friend, after=fight.play.hero)
    assert "Goblin" in caught.value.message
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    with pytest.raises(BadRequest):  # no waiting twice in a round
        fight.step(PIA, "combat_wait", fight.play.hero, after=fight.play.foe)
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    assert fight.state()["round"] == 2


def test_multi_action_costs_one_then_two_fame_and_no_fourth_turn(fight: Fight) -> None:
    fight.setup()
    fight.set_sheet(fight.play.hero, fame=3)
    _initiative(fight, [face(7, "GD")], [face(7, "PR")])
    body = fight.step(PIA, "combat_end_turn", fight.play.hero, again=True)
    assert body["outcome"]["fame_spent"] == 1 and fight.state()["turn"]["turns"] == 2
    body = fight.step(PIA, "combat_end_turn", fight.play.hero, again=True)
    assert body["outcome"]["fame_spent"] == 2 and fight.sheet(fight.play.hero)["fame_spent"] == 3
    with pytest.raises(BadRequest) as caught:  # no fourth turn
        fight.step(PIA, "combat_end_turn", fight.play.hero, again=True)
    assert caught.value.field == "again" and "Three turns in a row is the most" in caught.value.message
    assert fight.sheet(fight.play.hero)["fame_spent"] == 3 and fight.state()["turn"]["turns"] == 3
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    assert fight.turn() == fight.play.foe
    with pytest.raises(BadRequest) as caught:  # foes have no Fame
        fight.step(NARRATOR, "combat_end_turn", fight.play.foe, again=True)
    assert caught.value.field == "again" and "Only adventurers" in caught.value.message
    assert fight.turn() == fight.play.foe and fight.state()["turn"]["turns"] == 1


def test_a_character_staggered_after_acting_skips_its_next_rounds_turn(fight: Fight) -> None:
    """ch. 3 "Staggering": staggered before its turn a character loses this round's turn; after it has acted,
    the next round's (fight.mark_outcome sets `skip`, start_round reads it)."""
    fight.setup()
    _initiative(fight, [face(7, "GD")], [face(7, "PR")])  # Maren, Tom, the Goblin
    maren = fight.play.hero
    fight.step(PIA, "combat_end_turn", maren)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=maren)
    body = fight.step(PIA, "combat_defend", maren, [1])  # Catastrophic: damage enough to stagger her
    assert "staggered" in said(body), said(body)
    assert fight.fighter(maren)["skip"] is True and fight.state()["round"] == 1
    body = fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    assert "Maren is staggered and loses this turn" in said(body)
    state = fight.state()
    assert state["round"] == 2 and state["order"] == [fight.play.friend, fight.play.foe]
    assert fight.fighter(maren)["skip"] is False
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    assert fight.state()["round"] == 3 and fight.turn() == maren  # one turn lost, not more


def test_movement_free_bands_rough_terrain_and_escaping(fight: Fight) -> None:
    fight.setup(adventurer_band=2, foe_band=2, features="5 rough rubble")
    fight.add("Second goblin", {**_goblin()})
    _initiative(fight, [face(7, "GD")], [face(7, "PR")])
    state = fight.state()
    assert state["turn"]["move"] is None
    # Maren: Agility 9, Good: 3 bands with the action or 1 free
    body = fight.step(PIA, "combat_move_roll", fight.play.hero, [face(9, "GD")])
    assert body["outcome"]["bands"] == 3 and body["outcome"]["free_bands"] == 1
    from app.systems.art.fight.moves import move_options

    options = move_options(fight.state())
    assert options["free"] == [1, 3]  # one band either way (Tom is a friend in band 2: 1 foe vs 1 friend)
    # rough band 5 can be entered, not passed; the bands the free move reaches are not offered again for the action
    assert options["action"] == [0, 4, 5]
    with pytest.raises(BadRequest):
        fight.step(PIA, "combat_move", fight.play.hero, band=6)
    body = fight.step(PIA, "combat_move", fight.play.hero, band=5)
    assert "rough terrain ends the movement" in said(body)
    assert fight.fighter(fight.play.hero)["band"] == 5
    with pytest.raises(BadRequest):
        fight.step(PIA, "combat_move", fight.play.hero, band=4)
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    # Tom alone with the goblin in band 2: leaving costs 2; Inferior gives 1: he cannot leave
    body = fight.step(OTTO, "combat_move_roll", fight.play.friend, [face(9, "IN")])
    assert body["outcome"]["bands"] == 1
    with pytest.raises(BadRequest) as caught:
        fight.step(OTTO, "combat_move", fight.play.friend, band=1)
    assert "out of reach" in caught.value.message


def _goblin() -> dict[str, str]:
    from utils.art import FOE

    return dict(FOE)


def test_the_narrator_moves_a_foe_and_adventurers_may_stop_it(fight: Fight) -> None:
    fight.setup(adventurer_band=2, foe_band=2)
    _initiative(fight, [face(7, "GD")], [face(7, "PR")])
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    with pytest.raises(BadRequest):  # Poor Agility: 1 band, but leaving two adventurers costs 2
        fight.step(NARRATOR, "combat_foe_move", fight.play.foe, band=3)
    levels = fight.sheet(fight.play.foe)["levels"]
    fight.set_sheet(fight.play.foe, levels={**levels, "AGI": "PS"})  # Passable: 2 bands
    with pytest.raises(BadRequest):
        fight.step(NARRATOR, "combat_foe_move", fight.play.foe, band=4)
    body = fight.step(NARRATOR, "combat_foe_move", fight.play.foe, band=3)
    assert "may try to stop it" in said(body) and fight.fighter(fight.play.foe)["band"] == 2
    with pytest.raises(BadRequest):  # the narrator's foe waits for the stop
        fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero)
    body = fight.step(PIA, "combat_stop", fight.play.hero, [face(9, "GD")])
    assert "Goblin's Agility" in said(body) and "Poor" not in said(body)
    assert body["outcome"]["difficulty"] is None
    body = fight.step(NARRATOR, "combat_foe_move", fight.play.foe, band=3)
    assert "stops Goblin" in said(body) and fight.fighter(fight.play.foe)["band"] == 2


def test_simplified_initiative_is_a_campaign_setting(fight: Fight) -> None:
    fight.request(NARRATOR, "combat_initiative_setting", {"simplified": True})
    assert fight.play.settings()["art"]["simplified_initiative"] is True
    fight.setup()
    assert fight.state()["simplified"] is True
    # seats: Maren then Tom; Tom rolls highest and starts, then the narrator's foes, then Maren
    _initiative(fight, [face(7, "PR")], [face(7, "GD")])
    state = fight.state()
    assert state["initiative"] == {"simple": [fight.play.friend, None, fight.play.hero]}
    assert state["order"] == [fight.play.friend, fight.play.foe, fight.play.hero]


def test_the_narrator_places_tokens_and_ends_the_combat(fight: Fight) -> None:
    fight.setup()
    fight.step(NARRATOR, "combat_place", None, target=fight.play.foe, band=7)
    assert fight.fighter(fight.play.foe)["band"] == 7
    with pytest.raises(Forbidden):
        fight.step(PIA, "combat_end", None)
    body = fight.step(NARRATOR, "combat_end", None)
    assert "still standing" in said(body)
    assert fight.encounter().status == "over"


def test_free_action_stand_up(fight: Fight) -> None:
    fight.setup()
    _initiative(fight, [face(7, "GD")], [face(7, "PR")])
    with pytest.raises(BadRequest):
        fight.step(PIA, "combat_free_action", fight.play.hero, [50], what="stand")
    state = fight.state()
    with fight.play.factory() as db:
        from app.encounters.models import Encounter

        enc = db.get(Encounter, fight.encounter_id)
        enc.state = {**state, "fighters": [{**f, "prone": f["id"] == fight.play.hero} for f in state["fighters"]]}
        db.commit()
    body = fight.step(PIA, "combat_free_action", fight.play.hero, [face(9, "FB")], what="stand")
    assert body["outcome"]["done"] and body["outcome"]["turn_ends"]
    assert fight.fighter(fight.play.hero)["prone"] is False and fight.turn() == fight.play.friend
