"""ART Engine through the rules service with scripted dice: worked examples of the rules text, the follow-ups
(Fame after, inspiration) checked against the sheet, damage marking, healing, advancement, the table upload."""

from __future__ import annotations

import pytest
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.said import said

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.models import Character
from app.characters.service import create_character
from app.errors import BadRequest, Forbidden
from app.systems.art import rules as art


def test_creation_fills_health_fortune_fame_and_experience(play: Play) -> None:
    sheet = play.sheet()
    assert sheet["attributes"]["STR"] == 9 and sheet["attributes"]["STA"] == 10
    assert sheet["health"] == ["PR", "PR", "PS", "GD"]  # Stamina 10
    assert sheet["fortune"] == "Struggling"  # Fate 5: Destitute at 2, one rank up per point
    assert sheet["fame"] == 1 and sheet["fame_spent"] == 0
    assert sheet["xp"] == 0  # 11 (Intelligence) - 10 (+4) - 1 (+1)
    assert [(s["name"], s["rating"]) for s in sheet["skills"]] == [("Climbing", 4), ("Rock climbing", 1)]


def test_the_worked_example_73_on_row_14_is_good(play: Play) -> None:
    seq, body = play.act(
        PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "skills": ["Climbing", "Rock climbing"]}, [73]
    )
    assert body["outcome"]["row"] == 14 and body["outcome"]["roll"] == 73
    assert body["outcome"]["result"] == "GD" and body["outcome"]["successes"] == 3
    assert body["dice"] == [{"sides": 100, "face": 73}]
    assert "row 14" in said(body) and "Good" in said(body)
    assert play.sheet()["last_roll"]["seq"] == seq


def test_fame_after_raises_a_failed_roll_up_to_the_difficulty(play: Play) -> None:
    with play.factory() as db:  # give Maren more Fame to spend
        db.get(Character, play.hero).sheet = {**play.sheet(), "fame": 5}
        db.commit()
    seq, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "GD"}, [55])  # row 9: Poor
    rolled = body["outcome"]["result"]
    assert body["outcome"]["successes"] < 0
    columns = art.Level.GD - art.Level[rolled]
    assert columns == 2, rolled
    follow, after = play.act(PIA, "fame_after", {"entry_seq": seq})
    assert said(after).startswith(f"improves #{seq} to Good with 4 Fame")
    sheet = play.sheet()
    assert sheet["fame_spent"] == 4 and sheet["last_roll"]["result"] == "GD"
    # Nothing more to raise; and a stale or made-up entry is refused.
    with pytest.raises(BadRequest, match="below the difficulty"):
        play.act(PIA, "fame_after", {"entry_seq": seq})
    with pytest.raises(BadRequest, match="latest roll"):
        play.act(PIA, "fame_after", {"entry_seq": seq - 1})


def test_fame_after_costs_what_it_says_and_needs_the_fame(play: Play) -> None:
    seq, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "GD"}, [30])
    with pytest.raises(BadRequest, match="2 columns cost 4 Fame; only 1") as err:
        play.act(PIA, "fame_after", {"entry_seq": seq, "columns": 2})
    assert err.value.field == "columns"
    assert play.sheet()["fame_spent"] == 0  # no partial write


def test_awesome_restores_fame_unless_fame_improved_the_roll(play: Play) -> None:
    with play.factory() as db:
        db.get(Character, play.hero).sheet = {**play.sheet(), "fame": 4, "fame_spent": 3}
        db.commit()
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [100])
    assert body["outcome"]["result"] == "AW" and body["outcome"]["fame_regained"] == 3
    assert play.sheet()["fame_spent"] == 0
    # Fame spent before rolling: an Awesome does not restore it.
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "fame_before": 1}, [100])
    assert body["outcome"]["fame_regained"] == 0 and play.sheet()["fame_spent"] == 1


def test_fame_before_adds_two_rows_and_cannot_exceed_what_is_left(play: Play) -> None:
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "fame_before": 1}, [50])
    assert body["outcome"]["row"] == 11
    with pytest.raises(BadRequest, match="0 Fame left") as err:
        play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "fame_before": 1}, [50])
    assert err.value.field == "fame_before"


def test_taking_25_rolls_no_dice(play: Play) -> None:
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "take25": True})
    assert body["dice"] == [] and body["outcome"]["took25"] and body["outcome"]["kicker"] is None


def test_doubles_open_the_inspiration_choice(play: Play) -> None:
    # 44 on Strength + Climbing (+4) + Rock climbing (+1): the kicker 4 is not above +4, but is above +1.
    seq, body = play.act(
        PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "skills": ["Climbing", "Rock climbing"]}, [44]
    )
    assert body["outcome"]["inspiration"] == {"create_skill": False, "attribute": None, "skills": ["Rock climbing"]}
    with pytest.raises(BadRequest, match="cannot take the point"):
        play.act(PIA, "inspire", {"entry_seq": seq, "choice": "skill", "skill": "Climbing"})
    with pytest.raises(BadRequest, match="two skills"):
        play.act(PIA, "inspire", {"entry_seq": seq, "choice": "new_skill", "skill": "Climb rope"})
    _, body = play.act(PIA, "inspire", {"entry_seq": seq, "choice": "skill", "skill": "Rock climbing"})
    assert "Rock climbing (1/4)" in said(body)
    with pytest.raises(BadRequest, match="already taken"):
        play.act(PIA, "inspire", {"entry_seq": seq, "choice": "skill", "skill": "Rock climbing"})


def test_00_can_put_a_point_next_to_the_attribute(play: Play) -> None:
    seq, _ = play.act(PIA, "trait_roll", {"attribute": "CUN", "difficulty": "PR"}, [100])
    play.act(PIA, "inspire", {"entry_seq": seq, "choice": "attribute"})
    assert play.sheet()["attribute_inspiration"] == {"CUN": 1}


def test_defense_failures_mark_the_health_track(play: Play) -> None:
    sheet = play.sheet()
    assert sheet["health"] == ["PR", "PR", "PS", "GD"]
    # Defense = Agility 9 - 6 (no armor) = 3. Row 3, a roll of 2 is Catastrophic: vs Poor, 4 failures.
    seq, body = play.act(PIA, "defend", {"attack": "PR"}, [2])
    assert body["outcome"]["result"] == "CT" and body["outcome"]["successes"] == -4
    assert body["outcome"]["damage"]["damage"] == "GD"
    assert play.sheet()["checked"] == [False, False, False, True]
    assert "staggered" in said(body)


def test_a_foe_attack_uses_its_level_and_damage_rating(play: Play) -> None:
    # Goblin: Attack Poor, damage +1. Feeble vs Poor = 2 failures + 1 = Passable.
    _, body = play.act(PIA, "defend", {"opponent_id": play.foe}, [10])
    outcome = body["outcome"]
    assert outcome["difficulty"] is None and outcome["damage_rating"] == 1  # the level stays the narrator's
    last = play.sheet()["last_roll"]
    assert last["difficulty"] == "PR" and last["concealed"]
    assert outcome["damage"]["damage"] == art.player_damage(-last["successes"], 1).name


def test_fame_after_a_defense_roll_takes_the_damage_back(play: Play) -> None:
    with play.factory() as db:
        db.get(Character, play.hero).sheet = {**play.sheet(), "fame": 10}
        db.commit()
    seq, body = play.act(PIA, "defend", {"attack": "PR"}, [2])
    assert any(play.sheet()["checked"])
    _, after = play.act(PIA, "fame_after", {"entry_seq": seq})
    assert "avoids all damage" in said(after)
    assert not any(play.sheet()["checked"])


def test_defeat_costs_a_fame_and_knocks_out_until_healed(play: Play) -> None:
    with play.factory() as db:
        db.get(Character, play.hero).sheet = {**play.sheet(), "fame": 3}
        db.commit()
    _, body = play.act(PIA, "defend", {"attack": "AW", "damage_rating": 3}, [2])  # 9 failures + 3: Extreme
    sheet = play.sheet()
    assert all(sheet["checked"]) and sheet["unconscious"] and sheet["fame"] == 2
    assert "defeated" in said(body)
    with pytest.raises(BadRequest, match="unconscious"):
        play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    # A friend gives first aid: 2 Fame for a Poor box, paid by the friend.
    with play.factory() as db:
        db.get(Character, play.friend).sheet = {**play.sheet(play.friend), "fame": 3}
        db.commit()
    _, body = play.act(OTTO, "first_aid", {"box": 0, "patient_id": play.hero}, character=play.friend)
    assert "2 Fame" in said(body)
    assert play.sheet(play.friend)["fame_spent"] == 2
    sheet = play.sheet()
    assert sheet["checked"][0] is False and not sheet["unconscious"]


def test_natural_healing_erases_a_box_not_above_the_stamina_roll(play: Play) -> None:
    with play.factory() as db:
        db.get(Character, play.hero).sheet = {**play.sheet(), "checked": [False, True, True, False]}
        db.commit()
    _, body = play.act(PIA, "rest", {}, [99])  # Stamina 10, row 10: 99 is high
    assert body["outcome"]["healed"] == 2
    assert play.sheet()["checked"] == [False, True, False, False]


def test_fatigue_is_minus_one_per_point_on_every_roll(play: Play) -> None:
    play.act(PIA, "fatigue", {"change": 2})
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    assert body["outcome"]["row"] == 7
    play.act(PIA, "fatigue", {"change": -2})
    with pytest.raises(BadRequest, match="only 0"):
        play.act(PIA, "fatigue", {"change": -1})


def test_a_fall_onto_rocks(play: Play) -> None:
    _, body = play.act(PIA, "take_damage", {"source": "fall", "feet": 30, "surface": 2})
    assert body["outcome"]["damage"] == "GT"


def test_attacking_a_foe_marks_its_track_and_fame_after_can_make_it_hit(play: Play) -> None:
    play.act(
        PIA,
        "add_item",
        {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"},
    )
    with pytest.raises(BadRequest, match="above your Fortune") as err:
        play.act(PIA, "add_item", {"name": "Axe", "type": "weapon", "cost": "Wealthy", "weapon": "melee_1h"})
    assert err.value.field == "cost"
    # Attack = DEX 7 - 3 = 4; vs the goblin's Defense Passable. 99 on row 4 is Good: Good damage.
    _, body = play.act(PIA, "attack", {"weapon": 0, "opponent_id": play.foe}, [99])
    assert body["outcome"]["foe_damage"]["damage"] == "GD"
    assert play.sheet(play.foe)["checked"] == [False, False, True, False]
    assert "Goblin takes Good damage" in said(body)
    # A miss (Poor vs Passable) raised with Fame becomes a hit: Passable damage.
    with play.factory() as db:
        db.get(Character, play.hero).sheet = {**play.sheet(), "fame": 4}
        db.commit()
    seq, body = play.act(PIA, "attack", {"weapon": 0, "opponent_id": play.foe}, [70])
    assert body["outcome"]["result"] == "PR" and body["outcome"]["foe_damage"] is None
    with pytest.raises(BadRequest, match="Name the foe"):
        play.act(PIA, "fame_after", {"entry_seq": seq})
    _, after = play.act(PIA, "fame_after", {"entry_seq": seq, "opponent_id": play.foe})
    assert "Goblin takes Passable damage" in said(after)
    assert play.sheet(play.foe)["checked"] == [False, True, True, False]


def test_a_henchman_rolls_its_converted_trait(play: Play) -> None:
    _, body = play.act(PIA, "henchman_roll", {"henchman_id": play.foe, "attribute": "STR", "difficulty": "PR"}, [50])
    assert body["outcome"]["trait"] == 10  # Poor: 9-12, the middle rounding down


def test_opposed_by_another_adventurer_uses_their_result(play: Play) -> None:
    seq, first = play.act(OTTO, "trait_roll", {"attribute": "STR", "difficulty": "CT"}, [50], character=play.friend)
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "opponent_id": play.friend}, [50])
    assert body["outcome"]["difficulty"] == first["outcome"]["result"]
    assert f"#{seq}" in said(body)


def test_an_assist_adds_the_helpers_successes_once(play: Play) -> None:
    play.act(OTTO, "trait_roll", {"attribute": "STR", "difficulty": "FB"}, [73], character=play.friend)
    helper = play.sheet(play.friend)["last_roll"]["successes"]
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "helper_id": play.friend}, [50])
    assert body["outcome"]["row"] == 9 + helper
    with pytest.raises(BadRequest, match="no fresh roll"):
        play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR", "helper_id": play.friend}, [50])


def test_a_sustained_action_keeps_its_tally(play: Play) -> None:
    for face in (99, 99):
        play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "IN", "goal": 10}, [face])
    tally = play.sheet()["sustained"]
    assert tally["successes"] > 0 and len(tally["outcomes"]) == 2


def test_the_narrator_ends_the_session(play: Play) -> None:
    with play.factory() as db:
        sheet = play.sheet()
        sheet["skills"][1]["inspiration"] = 4
        db.get(Character, play.hero).sheet = sheet
        db.commit()
    _, body = play.act(NARRATOR, "end_session", {"participants": [play.hero, play.friend]}, character=None)
    assert "Maren +1 xp (Rock climbing +2)" in said(body)
    sheet = play.sheet()
    assert sheet["xp"] == 1 and sheet["skills"][1] == {"name": "Rock climbing", "rating": 2, "inspiration": 0}
    assert sheet["between_adventures"] is False
    with pytest.raises(BadRequest, match="between adventures"):
        play.act(PIA, "buy_health", {})
    with pytest.raises(Forbidden):
        play.act(PIA, "end_session", {"participants": [play.hero]}, character=None)


def test_perks_health_and_attributes_are_paid_for(play: Play) -> None:
    with play.factory() as db:
        db.get(Character, play.hero).sheet = {**play.sheet(), "xp": 8, "attribute_inspiration": {"STR": 9}}
        db.commit()
    with pytest.raises(BadRequest, match="FAT 8") as err:
        play.act(PIA, "buy_perk", {"perk": "Transportation"})
    assert err.value.field == "perk"
    play.act(PIA, "buy_perk", {"perk": "Flurry"})  # 2 xp
    _, body = play.act(PIA, "buy_health", {})  # rank 10 -> 11 costs 5
    assert "PR/PS/PS/GD for 5 xp" in said(body)
    with pytest.raises(BadRequest, match="costs 7 xp; you have 1"):
        play.act(PIA, "buy_health", {})
    play.act(PIA, "raise_attribute", {"attribute": "STR"})
    with pytest.raises(BadRequest, match="costs 10 inspiration points"):
        play.act(PIA, "raise_attribute", {"attribute": "STR"})
    sheet = play.sheet()
    assert sheet["attributes"]["STR"] == 10 and sheet["attribute_inspiration"]["STR"] == 0
    assert sheet["perks"] == {"Flurry": 1} and sheet["xp"] == 1


def test_the_campaign_can_use_its_own_table(play: Play) -> None:
    rows = ["row,CT,PT,FB,IN,PR,PS,GD,GT,SP,AW"] + [f"{r},1,2,3,4,5,6,7,8,9,100" for r in range(31)]
    with pytest.raises(BadRequest, match="row 3") as err:
        broken = rows[:4] + ["3,1,2,3,4,5,6,7,8,9,99"] + rows[5:]
        play.act(NARRATOR, "upload_table", {"csv": "\n".join(broken)}, character=None)
    assert err.value.field == "csv" and "column AW" in err.value.message
    assert play.settings().get("art") in (None, {})
    with pytest.raises(Forbidden):
        play.act(PIA, "upload_table", {"csv": "\n".join(rows)}, character=None)
    play.act(NARRATOR, "upload_table", {"csv": "\n".join(rows)}, character=None)
    assert play.settings()["art"]["table_csv"].startswith("row,CT")
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    assert body["outcome"]["result"] == "AW"  # our table: anything from 10 up is Awesome
    play.act(NARRATOR, "default_table", {}, character=None)
    assert play.settings()["art"] == {}
    _, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    assert body["outcome"]["result"] != "AW"


def test_random_method_rolls_through_the_service(play: Play) -> None:
    with play.factory() as db:
        acc = campaigns.access(db, db.get(User, play.user_ids[PIA]), play.campaign_id)
        rolled = create_character(db, acc, name="Dice-born", system="art", sheet={"method": "random"}).id
        db.commit()
    assert play.sheet(rolled)["attributes"]["STR"] is None
    _, body = play.act(PIA, "roll_attributes", {"attribute": "STA"}, [6, 6], character=rolled)
    assert play.sheet(rolled)["attributes"]["STA"] == 12
    with pytest.raises(BadRequest, match="already has"):
        play.act(PIA, "roll_attributes", {"attribute": "STA"}, [1, 1], character=rolled)
    _, body = play.act(PIA, "roll_attributes", {}, [3, 4] * 9, character=rolled)
    assert len(body["dice"]) == 18 and body["outcome"]["complete"]
    sheet = play.sheet(rolled)
    assert sheet["health"] == ["PR", "PS", "GD", "GD"] and sheet["xp"] == 7 and sheet["fortune"] == "Middle Class"


def test_players_act_only_for_their_own_characters(play: Play) -> None:
    with pytest.raises(Forbidden):
        play.act(OTTO, "trait_roll", {"attribute": "STR", "difficulty": "PR"}, [50])
    with pytest.raises(Forbidden):
        play.act(PIA, "take_damage", {"damage": "EX"}, character=play.foe)
    play.act(NARRATOR, "take_damage", {"damage": "GD"}, character=play.foe)
    assert play.sheet(play.foe)["checked"] == [False, False, True, False]
