"""Rabbits through the rules service: tests, pools, Fate follow-ups, Nature tax, tallies, versus, conditions,
turns and checks. Scripted dice give exact outcomes (rabbits.en.md; RULINGS.md, "Rabbits")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy.orm import Session
from utils.said import said
from utils.tables import seat_table
from utils.web import signed_in

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.models import Character
from app.characters.service import create_character
from app.errors import BadRequest, Forbidden
from app.i18n import render
from app.rolls import corrections
from app.rolls import service as rolls
from app.rules.dice import ScriptedDice


def english(lines: list[list[object]]) -> list[list[object]]:
    """A stored pool breakdown (language-neutral labels) as English text."""
    return [[render(label, "en"), dice] for label, dice in lines]


@dataclass
class World:
    db: Session
    campaign_id: int
    users: dict[str, int]

    def acc(self, who: str) -> campaigns.Access:
        return campaigns.access(self.db, self.db.get(User, self.users[who]), self.campaign_id)

    def rabbit(self, who: str, name: str, **sheet: Any) -> int:
        ch = create_character(
            self.db, self.acc(who), name=name, system="rabbits", sheet=sheet, kind="npc" if who == "nora" else "pc"
        )
        self.db.commit()
        return ch.id

    def act(
        self, who: str, action: str, character_id: int | None, dice: list[int] | None = None, **params: Any
    ) -> dict[str, Any]:
        req = rolls.ActionRequest(system="rabbits", action=action, character_id=character_id, params=params)
        result = rolls.perform_action(self.db, self.acc(who), req, dice=ScriptedDice(dice or []))
        return result.entry.body

    def sheet(self, character_id: int) -> dict[str, Any]:
        ch = self.db.get(Character, character_id)
        assert ch is not None
        self.db.refresh(ch)
        return ch.sheet


@pytest.fixture
def world(app) -> World:
    db = app.state.sessionmaker()
    campaign, users = seat_table(db, systems=("rabbits",), name="Warren")
    db.commit()
    yield World(db, campaign.id, {name: user.id for name, user in users.items()})
    db.close()


CLOVER = {
    "nature": 4,
    "will": 3,
    "health": 4,
    "skills": {"Scout": 3, "Fighter": 2},
    "wises": ["Fox-wise", "Meadow-wise"],
    "traits": [{"name": "Quick", "level": 1}],
}


def test_an_independent_test_passes_records_a_pass_and_starts_rewards(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    body = world.act("pia", "test", clover, [4, 5, 1], skill="Scout", ob=2)
    assert body["outcome"]["passed"] is True and body["outcome"]["successes"] == 2
    assert english(body["outcome"]["breakdown"]) == [["Scout", 3]]
    sheet = world.sheet(clover)
    assert sheet["skills"]["Scout"] == {"rating": 3, "passes": 1, "fails": 0}
    assert (sheet["fate"], sheet["persona"], sheet["rewards_started"]) == (2, 1, True)  # ruling 1 defaults
    assert sheet["last_test"]["seq"] == body["seq"] and sheet["last_test"]["faces"] == [4, 5, 1]


def test_fate_rerolls_sixes_that_explode_twice_through_the_follow_up(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    test = world.act("pia", "test", clover, [6, 2, 1], skill="Scout", ob=4)
    assert test["outcome"]["passed"] is False
    assert world.sheet(clover)["skills"]["Scout"]["fails"] == 1
    # The 6 rerolls into a 6, which rerolls into a 6, which rerolls into a 5: 4 successes.
    fate = world.act("pia", "fate", clover, [6, 6, 5], entry_seq=test["seq"])
    assert [d["face"] for d in fate["dice"]] == [6, 6, 5]
    assert fate["outcome"]["faces"] == [6, 2, 1, 6, 6, 5] and fate["outcome"]["passed"] is True
    sheet = world.sheet(clover)
    assert sheet["skills"]["Scout"] == {"rating": 3, "passes": 1, "fails": 0}  # the fail became a pass
    assert (sheet["fate"], sheet["fate_spent"]) == (1, 1)
    with pytest.raises(BadRequest, match="already been spent"):
        world.act("pia", "fate", clover, [6], entry_seq=test["seq"])


def test_fate_only_on_the_latest_roll_and_only_with_a_six(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    first = world.act("pia", "test", clover, [6, 1, 1], skill="Scout", ob=3)
    world.act("pia", "test", clover, [1, 2, 3], skill="Scout", ob=1)
    with pytest.raises(BadRequest, match="not this rabbit's latest") as exc:
        world.act("pia", "fate", clover, [4], entry_seq=first["seq"])
    assert exc.value.field == "entry_seq"
    latest = world.sheet(clover)["last_test"]["seq"]
    with pytest.raises(BadRequest, match="no 6"):
        world.act("pia", "fate", clover, [4], entry_seq=latest)


def test_another_player_can_neither_test_for_your_rabbit_nor_spend_fate_on_your_roll(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    with pytest.raises(Forbidden):
        world.act("otto", "test", clover, [4, 4, 4], skill="Scout", ob=1)
    test = world.act("pia", "test", clover, [6, 1, 1], skill="Scout", ob=2)
    with pytest.raises(Forbidden):
        world.act("otto", "fate", clover, [5], entry_seq=test["seq"])
    with pytest.raises(Forbidden):
        world.act("pia", "consequence", clover, entry_seq=test["seq"], choice="condition", condition="tired")
    assert world.sheet(clover)["fate"] == 2


def test_deeper_understanding_and_of_course_need_an_unused_wise(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    test = world.act("pia", "test", clover, [1, 2, 4], skill="Scout", ob=3)
    deeper = world.act("pia", "deeper", clover, [5], entry_seq=test["seq"], wise="Fox-wise")
    assert deeper["outcome"]["faces"] == [5, 2, 4]
    with pytest.raises(BadRequest, match="already backed") as exc:
        world.act("pia", "of_course", clover, [5], entry_seq=test["seq"], wise="Fox-wise")
    assert exc.value.field == "wise"
    of_course = world.act("pia", "of_course", clover, [6], entry_seq=test["seq"], wise="Meadow-wise")
    assert of_course["outcome"]["faces"] == [5, 6, 4] and of_course["outcome"]["passed"] is True
    sheet = world.sheet(clover)
    assert (sheet["fate"], sheet["persona"]) == (1, 0)
    assert sheet["skills"]["Scout"]["passes"] == 1 and sheet["skills"]["Scout"]["fails"] == 0


def _faces_of(page: str, seq: int) -> list[tuple[str, str]]:
    """A log line's dice as the page shows them: (the die's classes, its text)."""
    start = page.index(f'id="entry-{seq}"')
    line = page[start : page.index("</li>", start)]
    return [
        (m.group(1).strip(), re.sub(r"<[^>]+>", "", m.group(2)).strip())
        for m in re.finditer(
            r'<span class="die([^"]*)"[^>]*>(.*?)</span>(?=<span class="die| ?<span class="badge|</p>)', line
        )
    ]


def test_rerolled_dice_are_marked_in_the_log_line(world: World, new_client) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    test = world.act("pia", "test", clover, [6, 2, 1], skill="Scout", ob=4)
    fate = world.act("pia", "fate", clover, [6, 5], entry_seq=test["seq"])
    second = world.act("pia", "test", clover, [1, 2, 4], skill="Scout", ob=3)
    deeper = world.act("pia", "deeper", clover, [5], entry_seq=second["seq"], wise="Fox-wise")
    of_course = world.act("pia", "of_course", clover, [3], entry_seq=second["seq"], wise="Meadow-wise")
    page = signed_in(new_client, "otto").get(f"/campaigns/{world.campaign_id}").text
    # Fate: the pool as it is now, the new dice marked rerolled.
    shown = _faces_of(page, fate["seq"])
    assert [text.split(" ")[0] for _, text in shown] == ["6", "2", "1", "6", "5"]
    assert ["die-rerolled" in classes for classes, _ in shown] == [False, False, False, True, True]
    # Deeper understanding: the first failed die again, in place, with the face it replaced.
    shown = _faces_of(page, deeper["seq"])
    assert ["die-rerolled" in classes for classes, _ in shown] == [True, False, False]
    assert shown[0][1].startswith("5") and "was 1" in shown[0][1]
    # Of course!: every failed die again (here the 2).
    shown = _faces_of(page, of_course["seq"])
    assert ["die-rerolled" in classes for classes, _ in shown] == [False, True, False]
    assert "was 2" in shown[1][1] and "(rerolled)" in shown[1][1]
    # The first roll's line is left as it was rolled.
    assert not any("die-rerolled" in classes for classes, _ in _faces_of(page, test["seq"]))


def test_beginners_luck_halves_and_learns_the_skill_after_nature_tests(world: World) -> None:
    clover = world.rabbit("pia", "Clover", nature=2, will=3, wises=["Bramble-wise"])
    # Will 3 + wise 1 = 4, halved = 2 dice; Persona after halving: +1 = 3 dice.
    body = world.act("pia", "test", clover, [4, 1, 1], skill="Healer", ob=1, wise="Bramble-wise", persona=1)
    assert body["outcome"]["pool"] == 3
    assert english(body["outcome"]["breakdown"])[0] == ["Will for Healer (beginner's luck)", 3]
    assert world.sheet(clover)["learning"] == {"Healer": 1}
    world.act("pia", "test", clover, [1, 1], skill="Healer", ob=1)
    sheet = world.sheet(clover)
    assert sheet["learning"] == {} and sheet["skills"]["Healer"]["rating"] == 2


def test_condition_penalties_are_in_the_pool_and_afraid_cannot_help(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    buddy = world.rabbit("otto", "Buddy", **CLOVER)
    world.act("nora", "award", clover, fate=0, persona=0, checks=1)  # any logged step will do
    nora = world.acc("nora")
    corrections.adjust_sheet(world.db, nora, clover, {"conditions": ["injured", "sick"]}, "the hawk")
    body = world.act("pia", "test", clover, [4, 4, 4], skill="Scout", ob=1, helpers=[buddy])
    assert english(body["outcome"]["breakdown"]) == [
        ["Scout", 3],
        ["Help from Buddy", 1],
        ["Injured (-1D)", -1],
        ["Sick (-1D)", -1],
    ]
    assert body["outcome"]["pool"] == 2
    corrections.adjust_sheet(world.db, nora, buddy, {"conditions": ["afraid"]}, "the fox")
    with pytest.raises(BadRequest, match="Afraid") as exc:
        world.act("pia", "test", clover, [4, 4], skill="Scout", ob=1, helpers=[buddy])
    assert exc.value.field == "helpers"


def test_nature_tax_on_a_failure_and_outside_nature_on_a_pass(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    # Tapping Nature (4) for Fighter (2): 6 dice, 1 success vs Ob 3 -> fails by 2, Nature 4 -> 2.
    body = world.act("pia", "test", clover, [4, 1, 1, 1, 1, 1], skill="Fighter", ob=3, tap_nature=True)
    assert "Nature taxed 2 to 2" in said(body)
    sheet = world.sheet(clover)
    assert sheet["abilities"]["nature"]["rating"] == 2 and sheet["persona"] == 0
    # Nature instead of Scout, outside nature: a pass still costs 1.
    world.act("nora", "award", clover, persona=0, fate=1)
    body = world.act("pia", "test", clover, [5, 5], skill="Scout", ob=1, nature_instead=True)
    assert world.sheet(clover)["abilities"]["nature"]["rating"] == 1
    # Within nature (flee): a pass costs nothing.
    body = world.act("pia", "test", clover, [5], skill="Scout", ob=1, nature_instead=True, descriptor="flee")
    assert "taxed" not in said(body)
    # (and Nature 1 has its one pass: it advances to 2)
    assert "Nature advances to 2" in said(body)
    assert world.sheet(clover)["abilities"]["nature"] == {"rating": 2, "passes": 0, "fails": 0}


def test_nature_taxed_to_zero_retires_the_rabbit(world: World) -> None:
    clover = world.rabbit("pia", "Clover", nature=1)
    world.act("pia", "test", clover, [1], skill="nature", ob=2, descriptor="dig")
    sheet = world.sheet(clover)
    assert sheet["retired"] is True and sheet["abilities"]["nature"]["rating"] == 0
    with pytest.raises(BadRequest, match="retired"):
        world.act("pia", "test", clover, [4], skill="Will", ob=1)


def test_advancement_when_passes_and_fails_reach_the_rating(world: World) -> None:
    clover = world.rabbit("pia", "Clover", skills={"Scout": 2})
    world.act("pia", "test", clover, [4, 4], skill="Scout", ob=1)
    world.act("pia", "test", clover, [1, 1], skill="Scout", ob=1)
    body = world.act("pia", "test", clover, [4, 1], skill="Scout", ob=1)
    assert "Scout advances to 3" in said(body)
    assert world.sheet(clover)["skills"]["Scout"] == {"rating": 3, "passes": 0, "fails": 0}


def test_failure_brings_a_condition_chosen_by_the_narrator_and_recovery_removes_it(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    test = world.act("pia", "test", clover, [1, 1, 1], skill="Scout", ob=1)
    world.act("nora", "consequence", clover, entry_seq=test["seq"], choice="condition", condition="tired")
    assert world.sheet(clover)["conditions"] == ["tired"]
    with pytest.raises(BadRequest, match="already has"):
        world.act("nora", "consequence", clover, entry_seq=test["seq"], choice="twist", twist="the fox")
    # Narrator's turn: recovery costs a player 2 checks.
    with pytest.raises(BadRequest, match="2 checks") as exc:
        world.act("pia", "recover", clover, [4, 4, 4, 4], condition="tired")
    assert exc.value.field == "checks"
    world.act("nora", "award", clover, checks=2)
    body = world.act("pia", "recover", clover, [4, 4, 4, 1], condition="tired")
    assert body["outcome"]["ob"] == 3 and body["outcome"]["passed"] is True
    sheet = world.sheet(clover)
    assert sheet["conditions"] == [] and sheet["checks"] == 0
    assert sheet["abilities"]["health"]["passes"] == 1


def test_players_turn_costs_a_check_per_test_and_traits_earn_only_in_the_narrators_turn(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    body = world.act("pia", "test", clover, [4, 4], skill="Scout", ob=1, trait="Quick", trait_use="against_you")
    assert body["outcome"]["checks_earned"] == 1 and world.sheet(clover)["checks"] == 1
    world.act("nora", "settings", None, turn="players", starting_fate=3, starting_persona=2)
    world.act("pia", "test", clover, [4, 4, 4], skill="Scout", ob=1)
    assert world.sheet(clover)["checks"] == 0
    with pytest.raises(BadRequest, match="check"):
        world.act("pia", "test", clover, [4, 4, 4], skill="Scout", ob=1)
    with pytest.raises(BadRequest, match="narrator's turn") as exc:
        world.act("pia", "test", clover, [4, 4], skill="Scout", ob=1, trait="Quick", trait_use="against_you")
    assert exc.value.field == "trait_use"
    late = world.rabbit("otto", "Latecomer")
    world.act("nora", "award", late, checks=1)
    assert (world.sheet(late)["fate"], world.sheet(late)["persona"]) == (3, 2)  # the new starting amounts


def test_a_trait_helps_once_per_session_then_costs_two_checks(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    body = world.act("pia", "test", clover, [4, 4, 4, 4], skill="Scout", ob=1, trait="Quick")
    assert ["Trait helps (once per session)", 1] in english(body["outcome"]["breakdown"])
    with pytest.raises(BadRequest, match="2 checks"):
        world.act("pia", "test", clover, [4, 4, 4, 4], skill="Scout", ob=1, trait="Quick")
    world.act("nora", "award", clover, checks=2)
    body = world.act("pia", "test", clover, [4, 4, 4, 4], skill="Scout", ob=1, trait="Quick")
    assert ["Trait helps again (2 checks)", 1] in english(body["outcome"]["breakdown"])
    assert world.sheet(clover)["checks"] == 0


def test_versus_against_a_rabbit_and_a_tie_broken_by_a_tiebreaker(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    fox = world.rabbit("nora", "Fox", will=2, skills={"Scout": 2})
    body = world.act("pia", "versus", clover, [4, 1, 1, 5, 1], skill="Scout", opponent_id=fox)
    assert body["outcome"]["tie"] is True and body["outcome"]["passed"] is None
    assert world.sheet(clover)["skills"]["Scout"]["passes"] == 0  # nothing is marked until the tie is settled
    # Skill tie -> Will: Clover's Will 3 against the fox's Will 2.
    tb = world.act("pia", "tiebreak", clover, [4, 4, 1, 1, 1], entry_seq=body["seq"], opponent_id=fox, ability="will")
    assert tb["outcome"]["passed"] is True
    assert world.sheet(clover)["skills"]["Scout"]["passes"] == 1
    fox_sheet = world.sheet(fox)
    assert fox_sheet["last_test"]["passed"] is False and fox_sheet["skills"]["Scout"]["fails"] == 1


def test_versus_tie_given_away_with_a_trait_earns_two_checks(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    body = world.act("pia", "versus", clover, [4, 1, 1, 5], skill="Scout", opponent_pool=1, opponent_label="the hawk")
    assert body["outcome"]["tie"] is True
    given = world.act("pia", "concede", clover, entry_seq=body["seq"], trait="Quick")
    assert given["outcome"]["passed"] is False
    sheet = world.sheet(clover)
    assert sheet["checks"] == 2 and sheet["skills"]["Scout"]["fails"] == 1


def test_the_opponent_uses_fate_on_the_shared_versus_roll(world: World) -> None:
    clover = world.rabbit("pia", "Clover", **CLOVER)
    buddy = world.rabbit("otto", "Buddy", skills={"Scout": 2})
    body = world.act("pia", "versus", clover, [4, 4, 1, 6, 1], skill="Scout", opponent_id=buddy)
    assert body["outcome"]["passed"] is True
    fate = world.act("otto", "fate", buddy, [5], entry_seq=body["seq"], opponent_id=clover)
    assert fate["outcome"]["passed"] is None  # 2 to 2: now a tie
    assert world.sheet(clover)["last_test"]["tie"] is True
    with pytest.raises(BadRequest) as exc:
        world.act("otto", "fate", buddy, [5], entry_seq=body["seq"])
    assert exc.value.field in ("entry_seq", "opponent_id")
