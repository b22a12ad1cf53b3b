"""Cat through the rules service with scripted dice: the rules text's cases for testing fate, Style, scars,
Lives, death, healing and Reputation (cat.txt; RULINGS.md, Cat)."""

from __future__ import annotations

import pytest
from utils.cat import CatTable
from utils.said import said

from app.errors import BadRequest, Forbidden
from app.rolls.models import LogEntry


@pytest.fixture
def t(app) -> CatTable:
    return CatTable(app)


def test_a_new_cat_has_nine_lives_and_magic_points_for_later(t: CatTable) -> None:
    sheet = t.sheet(t.cat())
    assert sheet["lives"] == 9 and sheet["style"] == 0 and sheet["magic"] == 6  # Good Tail: 5 + 1
    assert sheet["ranks"]["face"] == "best" and sum(r["rank"] for r in sheet["reputations"]) == 7


def test_extra_evens_become_banked_style(t: CatTable) -> None:
    cat = t.cat()
    # Strong Legs: 4 dice; Moderate needs 2 evens; 3 evens give 1 Style.
    entry = t.act("pia", "test_fate", cat, [2, 4, 6, 1], trait="legs", difficulty="moderate").entry
    out = entry.body["outcome"]
    assert out["success"] and out["evens"] == 3 and out["style_gained"] == 1
    assert [d["face"] for d in entry.body["dice"]] == [2, 4, 6, 1]
    sheet = t.sheet(cat)
    assert sheet["style"] == 1 and sheet["fresh_style"] == 1
    assert "success, +1 Style" in said(entry.body)


def test_style_spent_at_once_edits_the_scene_with_a_note_in_the_log(t: CatTable) -> None:
    cat = t.cat()
    t.act("pia", "test_fate", cat, [2, 4, 6, 2], trait="legs", difficulty="easy")  # 3 Style
    entry = t.act("pia", "edit_scene", cat, points=2, edit="a crate stands under the window").entry
    assert "edit the scene: a crate stands under the window" in said(entry.body)
    sheet = t.sheet(cat)
    assert sheet["style"] == 1 and sheet["fresh_style"] == 1
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "edit_scene", cat, points=2, edit="and the gate is open")
    assert exc.value.field == "points"


def test_banked_style_counts_as_automatic_evens_and_unneeded_points_return(t: CatTable) -> None:
    cat = t.cat()
    t.set_sheet(cat, style=2)
    # Hard needs 3: one rolled even + 2 Style = 3, success; the next roll has no Style left over.
    out = t.act(
        "pia", "test_fate", cat, [2, 1, 3, 5], trait="legs", difficulty="hard", style_points=2, dangerous=True
    ).entry.body["outcome"]
    assert out["success"] and out["scars"] == 0 and out["style_spent"] == 2
    assert t.sheet(cat)["style"] == 0
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "test_fate", cat, [2], trait="legs", difficulty="easy", style_points=1)
    assert exc.value.field == "style_points"


def test_a_failed_dangerous_risk_scars_by_the_lowest_odd_and_ranks_drop_at_three(t: CatTable) -> None:
    cat = t.cat()
    entry = t.act("pia", "test_fate", cat, [2, 3, 5, 3], trait="legs", difficulty="hard", dangerous=True).entry
    assert entry.body["outcome"]["scars"] == 3 and "1 even of 3 needed — Fate intervenes, 3 scars to place" in said(
        entry.body
    )
    assert t.sheet(cat)["pending"][0]["scars"] == 3
    # No Risk until the scars are placed.
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "test_fate", cat, [2], trait="face", difficulty="easy")
    assert exc.value.field == "pending"
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "place_scars", cat, legs=2, reason="landed badly")
    assert exc.value.field == "claws" and "exactly 3" in exc.value.message
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "place_scars", cat, legs=3)
    assert exc.value.field == "reason"
    placed = t.act("pia", "place_scars", cat, legs=3, reason="landed badly on the gutter").entry
    assert "Legs 4→3 dice" in said(placed.body)
    sheet = t.sheet(cat)
    assert sheet["scars"]["legs"] == 3 and sheet["pending"] == []
    out = t.act("pia", "test_fate", cat, [1, 1, 1], trait="legs", difficulty="easy").entry.body["outcome"]
    assert out["pool"] == 3  # Strong became Good


def test_a_failed_risk_that_is_not_dangerous_or_has_no_odd_die_leaves_no_scars(t: CatTable) -> None:
    cat = t.cat()
    assert (
        t.act("pia", "test_fate", cat, [1, 3, 5, 3], trait="legs", difficulty="easy").entry.body["outcome"]["scars"]
        == 0
    )
    t.set_sheet(cat, scars={"claws": 0, "coat": 3, "face": 0, "fangs": 0, "legs": 0, "tail": 0})  # Coat: Hurt, 2 dice
    entry = t.act("pia", "test_fate", cat, [2, 4], trait="coat", difficulty="hard", dangerous=True).entry
    assert not entry.body["outcome"]["success"] and entry.body["outcome"]["scars"] == 0
    assert "no odd die: no scars" in said(entry.body) and t.sheet(cat)["pending"] == []


def test_a_life_wins_any_risk_without_rolling(t: CatTable) -> None:
    cat = t.cat()
    t.set_sheet(cat, scars={"claws": 0, "coat": 0, "face": 0, "fangs": 0, "legs": 0, "tail": 6})  # Tail Crippled
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "test_fate", cat, [2, 2], trait="tail", difficulty="easy")
    assert exc.value.field == "trait"
    entry = t.act("pia", "test_fate", cat, [], trait="tail", difficulty="hard", dangerous=True, spend_life=True).entry
    assert entry.body["outcome"]["success"] and entry.body["dice"] == [] and entry.body["outcome"]["scars"] == 0
    assert t.sheet(cat)["lives"] == 8


def test_a_life_dodges_the_scars_of_one_round(t: CatTable) -> None:
    cat = t.cat()
    t.act("pia", "test_fate", cat, [2, 5, 5, 5], trait="legs", difficulty="hard", dangerous=True)
    entry = t.act("pia", "dodge_with_life", cat).entry
    assert "spends a Life to dodge 5 scars (failed Hard dangerous Risk with Legs); 8 Lives left" in said(entry.body)
    sheet = t.sheet(cat)
    assert sheet["lives"] == 8 and sheet["pending"] == [] and sum(sheet["scars"].values()) == 0


def test_advantage_dice_come_from_the_narrator_and_are_used_up(t: CatTable) -> None:
    cat = t.cat()
    with pytest.raises(Forbidden):
        t.act("pia", "grant_advantage", cat, dice=2)
    t.act("nora", "grant_advantage", cat, dice=2, reason="a clever plan")
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "test_fate", cat, [2] * 7, trait="legs", difficulty="easy", advantage=3)
    assert exc.value.field == "advantage"
    out = t.act("pia", "test_fate", cat, [1] * 6, trait="legs", difficulty="easy", advantage=2).entry.body["outcome"]
    assert out["pool"] == 6 and t.sheet(cat)["advantage"] == 0


def test_reputation_dice_need_the_narrators_approval_for_the_scene(t: CatTable) -> None:
    cat = t.cat()
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "test_fate", cat, [2] * 7, trait="legs", difficulty="easy", reputation="Best mouser")
    assert exc.value.field == "reputation" and "not approved" in exc.value.message
    t.act("pia", "propose_reputation", cat, reputation="Best mouser")
    assert t.sheet(cat)["proposal"] == "Best mouser"
    with pytest.raises(Forbidden):
        t.act("pia", "approve_reputation", cat, reputation="Best mouser")
    t.act("nora", "approve_reputation", cat, reputation="Best mouser")
    assert t.sheet(cat)["proposal"] == ""
    out = t.act("pia", "test_fate", cat, [1] * 7, trait="legs", difficulty="easy", reputation="Best mouser").entry
    assert out.body["outcome"]["pool"] == 7  # Strong 4 + Reputation 3
    # Approval lasts the scene: a second Risk in the same scene may use it too; a new session ends it.
    t.act("pia", "test_fate", cat, [1] * 7, trait="legs", difficulty="easy", reputation="Best mouser")
    t.end_session()
    t.start_session()
    with pytest.raises(BadRequest):
        t.act("pia", "test_fate", cat, [1] * 7, trait="legs", difficulty="easy", reputation="Best mouser")
    t.act("nora", "approve_reputation", cat, reputation="Never lost")
    t.act("nora", "clear_approvals", cat)
    with pytest.raises(BadRequest):
        t.act("pia", "test_fate", cat, [1] * 6, trait="legs", difficulty="easy", reputation="Never lost")
    # The narrator rolling for the cat agrees by doing so.
    assert (
        t.act("nora", "test_fate", cat, [1] * 6, trait="legs", difficulty="easy", reputation="Never lost").entry.body[
            "outcome"
        ]["pool"]
        == 6
    )


def test_the_narrator_moves_a_scar_without_a_good_reason(t: CatTable) -> None:
    cat = t.cat()
    t.act("pia", "test_fate", cat, [2, 3, 3, 3], trait="legs", difficulty="hard", dangerous=True)
    t.act("pia", "place_scars", cat, coat=3, reason="my coat got singed")
    with pytest.raises(Forbidden):
        t.act("pia", "move_scar", cat, from_trait="coat", to_trait="legs", reason="x")
    entry = t.act("nora", "move_scar", cat, from_trait="coat", to_trait="legs", reason="you failed a jump").entry
    assert "from Coat to Legs" in said(entry.body) and "Coat 2→3 dice" in said(entry.body)
    assert t.sheet(cat)["scars"]["legs"] == 1


def test_three_crippled_traits_warn_and_four_kill(t: CatTable) -> None:
    from app.systems.cat.sheet import view

    cat = t.cat()
    three = {"claws": 9, "coat": 6, "face": 0, "fangs": 9, "legs": 0, "tail": 0}  # Strong, Good, Strong: all Crippled
    t.set_sheet(cat, scars=three)
    v = view(t.sheet(cat))
    assert not v["dead"] and "Three Traits are Crippled" in v["warning"]
    t.act("pia", "test_fate", cat, [2, 3, 3, 3], trait="legs", difficulty="hard", dangerous=True)
    entry = t.act("pia", "place_scars", cat, tail=3, reason="fell on my tail").entry  # Good Tail, 3 → Hurt
    assert not entry.body["outcome"]["dead"]
    t.set_sheet(cat, scars={**three, "tail": 6})
    assert view(t.sheet(cat))["dead"]
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "test_fate", cat, [2] * 5, trait="face", difficulty="easy")
    assert "dead" in exc.value.message


def test_the_last_life_spent_kills_the_cat(t: CatTable) -> None:
    cat = t.cat()
    t.set_sheet(cat, lives=1)
    entry = t.act("pia", "test_fate", cat, [], trait="legs", difficulty="hard", spend_life=True).entry
    assert "he dies" in said(entry.body)
    with pytest.raises(BadRequest):
        t.act("pia", "test_fate", cat, [], trait="legs", difficulty="easy", spend_life=True)


def test_weeks_of_game_time_heal_one_scar_per_week_for_every_cat(t: CatTable) -> None:
    smoke, tom = t.cat(), t.cat("otto", "Tom")
    t.set_sheet(smoke, scars={"claws": 1, "coat": 0, "face": 0, "fangs": 0, "legs": 3, "tail": 0})
    t.set_sheet(tom, scars={"claws": 2, "coat": 0, "face": 0, "fangs": 1, "legs": 0, "tail": 0})
    t.act("pia", "heal_first", smoke, trait="claws")
    with pytest.raises(Forbidden):
        t.act("pia", "advance_time", None, weeks=1, cat_ids=[smoke, tom])
    entry = t.act("nora", "advance_time", None, weeks=2, cat_ids=[smoke, tom]).entry
    assert t.sheet(smoke)["scars"]["claws"] == 0 and t.sheet(smoke)["scars"]["legs"] == 2  # chosen first, then most
    assert t.sheet(tom)["scars"]["claws"] == 0 and t.sheet(tom)["scars"]["fangs"] == 1
    assert "week 2" in said(
        entry.body
    ) and "2 weeks of game time pass (week 2): Smoke heals 1 scar on Claws, 1 scar on Legs" in said(entry.body)
    t.act("nora", "advance_time", None, weeks=1, cat_ids=[smoke])
    with t.factory() as db:
        from app.campaigns.models import Campaign

        assert db.get(Campaign, t.campaign_id).settings["cat"]["week"] == 3


def test_a_docked_reputation_point_can_be_restored_in_the_same_session_only(t: CatTable) -> None:
    cat = t.cat()
    with pytest.raises(Forbidden):
        t.act("pia", "dock_reputation", cat, reputation="Never lost", reason="got lost")
    entry = t.act("nora", "dock_reputation", cat, reputation="Never lost", reason="got lost in the cellar").entry
    assert "docks a point" in said(entry.body) and "got lost in the cellar" in said(entry.body)
    assert {r["name"]: r["rank"] for r in t.sheet(cat)["reputations"]}["Never lost"] == 1
    t.act("nora", "restore_reputation", cat, reputation="Never lost", reason="found the way out")
    assert {r["name"]: r["rank"] for r in t.sheet(cat)["reputations"]}["Never lost"] == 2
    t.act("nora", "dock_reputation", cat, reputation="Never lost", reason="lost again")
    t.end_session()
    t.start_session()
    with pytest.raises(BadRequest) as exc:
        t.act("nora", "restore_reputation", cat, reputation="Never lost")
    assert "lost for good" in exc.value.message


def test_a_reputation_at_one_docked_is_gone_and_comes_back_when_restored(t: CatTable) -> None:
    cat = t.cat(
        rep_name_1="Best mouser",
        rep_rank_1="3",
        rep_name_2="Never lost",
        rep_rank_2="3",
        rep_name_3="Quiet",
        rep_rank_3="1",
    )
    t.act("nora", "dock_reputation", cat, reputation="Quiet", reason="knocked over the vase")
    assert "Quiet" not in {r["name"] for r in t.sheet(cat)["reputations"]}
    t.act("nora", "restore_reputation", cat, reputation="Quiet")
    assert {r["name"]: r["rank"] for r in t.sheet(cat)["reputations"]}["Quiet"] == 1


def test_a_cat_spends_a_reputation_to_give_another_a_new_one_at_half_rank(t: CatTable) -> None:
    smoke, tom = t.cat(), t.cat("otto", "Tom")
    with pytest.raises(Forbidden):
        t.act("pia", "gift_reputation", smoke, recipient_id=tom, reputation="Best mouser", new_reputation="Brave")
    entry = t.act(
        "nora", "gift_reputation", smoke, recipient_id=tom, reputation="Best mouser", new_reputation="Rat-catcher"
    ).entry
    assert "(3) to give Tom the Reputation “Rat-catcher” (1)" in said(entry.body)
    assert "Best mouser" not in {r["name"] for r in t.sheet(smoke)["reputations"]}
    assert {r["name"]: r["rank"] for r in t.sheet(tom)["reputations"]}["Rat-catcher"] == 1


def test_another_player_cannot_act_for_your_cat(t: CatTable) -> None:
    cat = t.cat()
    with pytest.raises(Forbidden):
        t.act("otto", "test_fate", cat, [2], trait="legs", difficulty="easy")


def test_every_step_is_one_log_entry_with_the_sheet_change(t: CatTable) -> None:
    cat = t.cat()
    t.act("pia", "test_fate", cat, [2, 3, 3, 3], trait="legs", difficulty="hard", dangerous=True)
    t.act("pia", "place_scars", cat, legs=1, fangs=2, reason="ouch")
    with t.factory() as db:
        actions = [e.action for e in db.query(LogEntry).filter_by(campaign_id=t.campaign_id).order_by(LogEntry.seq)]
    assert actions[-2:] == ["test_fate", "place_scars"]
    with pytest.raises(BadRequest):
        t.act("pia", "place_scars", cat, legs=1, reason="none left")  # nothing pending: no entry, no change
    with t.factory() as db:
        assert db.query(LogEntry).filter_by(campaign_id=t.campaign_id).count() == len(actions)


def test_magic_is_off_until_the_narrator_turns_it_on(t: CatTable) -> None:
    cat = t.cat()
    with pytest.raises(BadRequest) as exc:
        t.act("pia", "test_fate", cat, [2] * 5, trait="tail", difficulty="easy", magic=2)
    assert exc.value.field == "magic"
    t.act("nora", "settings", None, magic=True)
    out = t.act("pia", "test_fate", cat, [1] * 4, trait="tail", difficulty="easy", magic=2).entry.body["outcome"]
    assert out["pool"] == 4 and t.sheet(cat)["magic"] == 4  # Good Tail 3 + 1 extra point


def test_odds_are_exact_and_follow_the_dice_added() -> None:
    from utils.cat import NEW_CAT

    from app.systems.base import Context
    from app.systems.cat.play import TestFate, fate_odds
    from app.systems.cat.sheet import create, load

    sheet = load({**create(NEW_CAT), "advantage": 1, "style": 1})  # the model, as the rules service hands it
    odds = fate_odds(sheet, TestFate(trait="legs", difficulty="moderate"), Context())
    assert odds.details["fraction"] == "11/16" and "68.8%" in odds.text
    more = fate_odds(sheet, TestFate(trait="legs", difficulty="moderate", advantage=1), Context())
    assert more.details["fraction"] == "13/16" and more.details["pool"] == 5
    assert (
        fate_odds(sheet, TestFate(trait="legs", difficulty="moderate", style_points=1), Context()).details["fraction"]
        == "15/16"
    )
    assert fate_odds(sheet, TestFate(trait="legs", difficulty="hard", spend_life=True), Context()).chance == 1.0


def test_the_demo_has_a_cat_for_pia_a_dog_for_the_narrator_and_a_logged_test_of_fate(app, settings) -> None:
    from app.characters.models import Character
    from app.demo import seed

    campaign_id, created = seed(settings)
    assert created
    with app.state.sessionmaker() as db:
        cats = {c.name: c for c in db.query(Character).filter_by(campaign_id=campaign_id, system="cat")}
        assert cats["Smoke"].kind == "pc" and cats["Smoke"].sheet["secret_name"] == "Ashwhisker"
        assert cats["Ship dog"].kind == "npc" and cats["Ship dog"].sheet["foe"] and cats["Ship dog"].sheet["example"]
        entry = db.query(LogEntry).filter_by(campaign_id=campaign_id, system="cat", action="test_fate").one()
        assert entry.body["outcome"]["success"] and entry.body["outcome"]["evens"] == 2
