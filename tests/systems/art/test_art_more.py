"""ART Engine through the rules service with scripted dice: complex actions (each step's successes carry to
the next, Catastrophic ends it), sustained damage rising each round, and the odds against a foe."""

from __future__ import annotations

import pytest
from utils.art import GOBLIN, NARRATOR, OTTO, PAIRS, PIA, Art, Play
from utils.said import said

from app.characters.models import Character
from app.errors import BadRequest, Forbidden
from app.systems.art import rolling
from app.systems.art import rules as rules
from app.systems.art.sheet import load
from app.systems.base import Context

CLIMB = {"attribute": "STR", "difficulty": "PR", "skills": ["Climbing", "Rock climbing"]}


def _fame(play: Play, fame: int) -> None:
    with play.factory() as db:
        db.get(Character, play.hero).sheet = {**play.sheet(), "fame": fame}
        db.commit()


# --- complex actions ---------------------------------------------------------------------------------------


def test_each_steps_successes_are_the_next_steps_modifier_and_the_last_step_ends_it(play: Play) -> None:
    _, body = play.act(PIA, "start_complex", {"title": "The debate", "steps": 3})
    assert "starts a complex action: The debate (3 steps)" in said(body)
    assert play.sheet()["complex"]["done"] == 0
    _, first = play.act(PIA, "trait_roll", CLIMB, [73])  # row 14, Good vs Poor: 3 successes
    assert first["outcome"]["successes"] == 3 and "step 1/3" in said(first)
    running = play.sheet()["complex"]
    assert running["modifier"] == 3 and running["done"] == 1 and not running["over"]
    _, second = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "GT"}, [10])
    assert second["outcome"]["row"] == 9 + 3  # the +3 is taken automatically
    assert "+3 from the last step" in said(second) and "step 2/3" in said(second)
    failures = second["outcome"]["successes"]
    assert failures < 0 and play.sheet()["complex"]["modifier"] == failures  # replaced, not added
    _, last = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    assert last["outcome"]["row"] == 9 + failures
    done = play.sheet()["complex"]
    assert done["over"] and done["done"] == 3 and done["outcome"] == last["outcome"]["successes"]
    assert "the action ends with" in said(last)
    _, after = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    assert after["outcome"]["row"] == 9 and "complex" not in said(after)


def test_catastrophic_ends_the_whole_complex_action_in_disaster(play: Play) -> None:
    play.act(NARRATOR, "start_complex", {"title": "Land the plane", "steps": 3}, character=play.hero)
    _, body = play.act(PIA, "trait_roll", CLIMB, [1])  # 01 is always Catastrophic
    assert body["outcome"]["result"] == "CT" and "ends in disaster" in said(body)
    assert play.sheet()["complex"]["over"] and play.sheet()["complex"]["outcome"] == "disaster"
    _, next_roll = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    assert next_roll["outcome"]["row"] == 9


def test_a_roll_outside_the_complex_action_and_the_limits(play: Play) -> None:
    play.act(PIA, "start_complex", {"title": "Shadow the courier", "steps": 2})
    with pytest.raises(BadRequest, match="still under way"):
        play.act(PIA, "start_complex", {"title": "Another", "steps": 2})
    play.act(PIA, "end_complex", {})
    with pytest.raises(BadRequest, match="Name the complex action"):
        play.act(PIA, "start_complex", {"title": "  ", "steps": 2})
    play.act(PIA, "start_complex", {"title": "Shadow the courier", "steps": 2})
    with pytest.raises(BadRequest, match="cannot also be a sustained roll"):
        play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "goal": 10}, [50])
    _, aside = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "outside_complex": True}, [50])
    assert "complex" not in said(aside) and play.sheet()["complex"]["done"] == 0
    with pytest.raises(Forbidden):
        play.act(OTTO, "start_complex", {"title": "Not his", "steps": 2})
    with pytest.raises(BadRequest):
        play.act(PIA, "start_complex", {"title": "Too long", "steps": 40})
    _, gave_up = play.act(PIA, "end_complex", {})
    assert "abandons the complex action Shadow the courier after 0 of 2 steps" in said(gave_up)
    with pytest.raises(BadRequest, match="No complex action"):
        play.act(PIA, "end_complex", {})
    with pytest.raises(BadRequest, match="Only an adventurer"):
        play.act(NARRATOR, "start_complex", {"title": "Foes never roll", "steps": 2}, character=play.foe)


def test_fame_after_a_step_changes_what_it_carries_and_the_odds_show_it(play: Play) -> None:
    _fame(play, 20)
    play.act(PIA, "start_complex", {"title": "The debate", "steps": 3})
    seq, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "GD"}, [20])
    assert body["outcome"]["successes"] < 0
    columns = rules.count(rules.Level.GD, rules.Level[body["outcome"]["result"]])  # failures: as many columns below
    _, fixed = play.act(PIA, "fame_after", {"entry_seq": seq, "columns": -columns})
    assert fixed["outcome"]["successes"] == 1  # raised up to the difficulty
    assert play.sheet()["complex"]["modifier"] == 1 and "+1 on the next step of The debate" in said(fixed)
    params = rolling.TraitRollParams(attribute="STR", difficulty="PR")
    odds = rolling.trait_roll_odds(load(play.sheet()), params, Context())
    assert odds.details["row"] == 10 and "+1 from the last step of The debate" in odds.text
    aside = rolling.trait_roll_odds(load(play.sheet()), params.model_copy(update={"outside_complex": True}), Context())
    assert aside.details["row"] == 9


def test_fame_after_does_not_undo_a_disaster(play: Play) -> None:
    _fame(play, 20)
    play.act(PIA, "start_complex", {"title": "Defuse it", "steps": 2})
    seq, _ = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [1])
    _, body = play.act(PIA, "fame_after", {"entry_seq": seq})
    assert "the disaster of Defuse it stands" in said(body)
    assert play.sheet()["complex"]["outcome"] == "disaster"


def test_the_complex_action_card_on_the_sheet(art: Art) -> None:
    cid = art.hero()
    page = art.pia.get(f"{art.base}/characters/{cid}").text
    assert "Start the complex action" in page
    r = art.act(art.pia, cid, "start_complex", {"title": "", "steps": "3"})
    assert r.status_code == 422 and "Name the complex action" in r.text
    r = art.act(art.pia, cid, "start_complex", {"title": "The debate", "steps": "3"})
    assert r.status_code == 200 and "Steps done" in r.text and "Step 1 of 3: The debate" in r.text
    r = art.act(art.pia, cid, "trait_roll", {"attribute": "STR", "difficulty": "PR", "take25": "true"})
    assert r.status_code == 200 and "Step 2 of 3: The debate" in r.text  # taking 25: no Catastrophic by chance
    odds = art.pia.get(f"{art.base}/characters/{cid}/odds/trait_roll", params={"attribute": "STR", "difficulty": "PR"})
    assert odds.status_code == 200
    r = art.act(art.pia, cid, "end_complex", {})
    assert r.status_code == 200 and "abandoned after 1 step<" in r.text


# --- sustained damage --------------------------------------------------------------------------------------


def test_sustained_damage_rises_a_level_each_round_and_stops_after_its_rounds(play: Play) -> None:
    assert play.sheet()["health"] == ["PR", "PR", "PS", "GD"]
    # The text's example: 2 failures on the Defense roll, so 2 rounds: Inferior, then Poor.
    _, first = play.act(NARRATOR, "sustained_damage", {"source": "Flames", "rounds": 2})
    assert first["outcome"]["damage"] == "IN" and first["outcome"]["marked"] == []  # below every box
    assert "Flames, round 1 of 2" in said(first)
    assert play.sheet()["burning"] == {"source": "Flames", "round": 1, "rounds": 2}
    _, second = play.act(NARRATOR, "sustained_damage", {})
    assert second["outcome"]["damage"] == "PR" and second["outcome"]["marked"] == [1]
    assert "round 2 of 2" in said(second) and "dies out" in said(second)
    assert play.sheet()["burning"] is None and play.sheet()["checked"] == [False, True, False, False]


def test_open_ended_sustained_damage_until_put_out(play: Play) -> None:
    for expected in ("IN", "PR", "PS"):
        _, body = play.act(NARRATOR, "sustained_damage", {"source": "acid"})
        assert body["outcome"]["damage"] == expected
    assert play.sheet()["burning"]["round"] == 3 and play.sheet()["checked"] == [False, True, True, False]
    with pytest.raises(BadRequest, match="cannot last only 2 rounds"):
        play.act(NARRATOR, "sustained_damage", {"rounds": 2})
    _, out = play.act(NARRATOR, "end_sustained_damage", {})
    assert "the acid is put out after 3 rounds" in said(out) and play.sheet()["burning"] is None
    with pytest.raises(BadRequest, match="No sustained damage"):
        play.act(NARRATOR, "end_sustained_damage", {})
    _, foe = play.act(NARRATOR, "sustained_damage", {"rounds": 1}, character=play.foe)
    assert foe["outcome"]["damage"] == "IN" and play.sheet(play.foe)["burning"] is None


def test_only_the_narrator_applies_or_ends_sustained_damage(play: Play) -> None:
    with pytest.raises(Forbidden):
        play.act(PIA, "sustained_damage", {"source": "fire"})
    play.act(NARRATOR, "sustained_damage", {"source": "fire"})
    with pytest.raises(Forbidden):
        play.act(PIA, "end_sustained_damage", {})


def test_the_sheet_shows_the_burning_rounds_and_the_narrators_buttons(art: Art) -> None:
    cid = art.hero()
    assert "Next round" not in art.pia.get(f"{art.base}/characters/{cid}").text
    page = art.nora.get(f"{art.base}/characters/{cid}").text
    assert "Next round of sustained damage" in page
    r = art.act(art.nora, cid, "sustained_damage", {"source": "fire", "rounds": "3"})
    assert r.status_code == 200 and "Burning (fire): round 1 of 3" in r.text and "Put it out" in r.text
    assert "Burning (fire): round 1 of 3" in art.pia.get(f"{art.base}/characters/{cid}").text
    assert "Next round: Poor damage." in r.text
    r = art.act(art.nora, cid, "end_sustained_damage", {})
    assert r.status_code == 200 and "Burning (" not in r.text


# --- odds against a foe ------------------------------------------------------------------------------------


def test_the_odds_against_a_foe_use_the_level_given_for_it(play: Play) -> None:
    sheet = load(play.sheet())
    plain = rolling.trait_roll_odds(sheet, rolling.TraitRollParams(attribute="STR", difficulty="PR"), Context())
    secret = rolling.TraitRollParams(attribute="STR", opponent_id=play.foe)
    assert rolling.trait_roll_odds(sheet, secret, Context()).chance is None
    given = rolling.trait_roll_odds(sheet, secret.model_copy(update={"foe_level": "PR"}), Context())
    assert given.chance == plain.chance and "row 9 against Poor" in given.text
    mapped = secret.model_copy(update={"foe_levels": ["99:STR=GT", f"{play.foe}:STR=PR,ALE=IN"]})
    assert rolling.trait_roll_odds(sheet, mapped, Context()).chance == plain.chance
    their_alertness = mapped.model_copy(update={"opponent_attribute": "ALE"})
    assert "against Inferior" in rolling.trait_roll_odds(sheet, their_alertness, Context()).text
    junk = secret.model_copy(update={"foe_levels": [f"{play.foe}:STR=nonsense", "garbage"]})
    assert rolling.trait_roll_odds(sheet, junk, Context()).chance is None


def test_the_roll_ignores_a_foe_level_sent_with_it(play: Play) -> None:
    _, body = play.act(
        PIA,
        "trait_roll",
        {"attribute": "STR", "opponent_id": play.foe, "foe_level": "EX", "foe_levels": [f"{play.foe}:STR=EX"]},
        [50],
    )
    assert body["outcome"]["difficulty"] is None and body["outcome"]["concealed"]  # the level stays the narrator's
    assert play.sheet()["last_roll"]["difficulty"] == "PR"  # the foe's real Strength, kept on the server
    assert "vs Poor" not in said(body) and "successes" not in said(body)
    assert "foe_level" not in body["request"] and "foe_levels" not in body["request"]


def test_the_narrators_page_shows_the_chance_against_a_foe_and_a_players_does_not(art: Art) -> None:
    r = art.create(art.nora, {"name": "Goblin", "kind": "npc", **GOBLIN})
    foe_id = int(r.headers["location"].rsplit("/", 1)[1])
    cid = art.hero()
    assert f'name="foe_levels" value="{foe_id}:' in art.nora.get(f"{art.base}/characters/{cid}").text
    assert 'name="foe_levels"' not in art.pia.get(f"{art.base}/characters/{cid}").text
    levels = ",".join(f"{c}=PR" for c in PAIRS)
    odds = art.nora.get(
        f"{art.base}/characters/{cid}/odds/trait_roll",
        params=[
            ("attribute", "STR"),
            ("opponent_id", str(foe_id)),
            ("difficulty", "PR"),
            ("foe_levels", f"{foe_id}:{levels}"),
        ],
    )
    assert "% — row 9 against Poor" in odds.text
    odds = art.pia.get(
        f"{art.base}/characters/{cid}/odds/trait_roll",
        params={"attribute": "STR", "opponent_id": str(foe_id), "difficulty": "PR"},
    )
    assert "the narrator knows the level" in odds.text
