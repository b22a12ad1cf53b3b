"""Kicker-triggered perks applied in an ART combat (fight_perks.py), with scripted dice: each perk with its
kicker and requirement, one beneficial effect a kicker (the player chooses), the bonuses' expiry, the odds
including a bonus; the odds of an attack on another adventurer (their Defense is no secret)."""

from __future__ import annotations

from typing import Any

import pytest
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.art_fight import SWORD, Fight, sword_fight

from app.errors import BadRequest
from app.i18n import render
from app.systems.art import rules as art
from app.systems.art.fight import attacks as fa
from app.systems.art.fight import defense as fd
from app.systems.art.fight.models import CombatState
from app.systems.art.rules import Level
from app.systems.art.sheet import ArtSheet, defense, load, weapon_stats
from app.systems.base import Context


def kface(row: int, level: str, kicker: int) -> int:
    """A percentile face reading `level` (or better, with a "+") on `row` whose ones digit (the kicker) is
    `kicker`."""
    low = Level[level.rstrip("+")]
    found = [
        f
        for f in range(1, 101)
        if f % 10 == kicker
        and (art.DEFAULT_TABLE.read(row, f) is low or (level.endswith("+") and art.DEFAULT_TABLE.read(row, f) > low))
    ]
    assert found, f"row {row} cannot roll {level} with kicker {kicker}"
    return found[0]


def said(body: dict[str, Any]) -> str:
    return render(body["summary"], "en")


def give(fight: Fight, cid: int, perks: dict[str, int], **attributes: int) -> None:
    sheet = fight.sheet(cid)
    fight.set_sheet(cid, perks=perks, attributes={**sheet["attributes"], **attributes})


@pytest.fixture
def fight(play: Play) -> Fight:
    """Maren (a sword) and Tom against a Goblin, all in band 2; Maren, Tom, then the Goblin act."""
    return sword_fight(play, (kface(7, "GD", 3), kface(7, "PR", 3)))


def attack_row(fight: Fight, cid: int, extra: int = 0) -> int:
    sheet = load(fight.sheet(cid))
    return art.effective_row(int(weapon_stats(sheet, sheet.gear[0])["attack"]) + extra)


def defense_row(fight: Fight, cid: int, extra: int = 0) -> int:
    return art.effective_row(defense(load(fight.sheet(cid))) + extra)


def odds_ctx(fight: Fight, cid: int) -> Context[ArtSheet]:
    enc = fight.encounter()
    others = {
        p["character_id"]: load(fight.sheet(p["character_id"]))
        for p in enc.participants
        if p["character_id"] not in (cid, fight.play.foe)
    }
    return Context(
        character_id=cid,
        others=others,
        encounter={
            "id": enc.id,
            "kind": enc.kind,
            "state": CombatState.model_validate(enc.state),
            "version": enc.version,
        },
    )


def attack_odds(fight: Fight, cid: int, target: int, shown: str | None = "PS") -> Any:
    enc = fight.encounter()
    params = fa.AttackParams(encounter_id=enc.id, version=enc.version, target=target, shown_difficulty=shown)
    return fa.attack_odds(load(fight.sheet(cid)), params, odds_ctx(fight, cid))


def around(fight: Fight) -> None:
    """Everyone ends their turn: the next round begins with Maren."""
    for who, cid in ((PIA, fight.play.hero), (OTTO, fight.play.friend), (NARRATOR, fight.play.foe)):
        fight.step(who, "combat_end_turn", cid)


# --- Flurry and Advanced Flurry -------------------------------------------------------------------------------


def test_flurry_on_a_hit_with_kicker_0_gives_a_free_attack_on_the_same_target(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Flurry": 1}, DEX=5)
    row = attack_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "PS+", 0)], target=fight.play.foe)
    assert "Flurry: Maren may make a free attack on Goblin" in said(body)
    assert fight.fighter(fight.play.hero)["free_attack"] == {"perk": "Flurry", "target": fight.play.foe}
    body = fight.step(PIA, "combat_free_attack", fight.play.hero, [kface(row, "PS+", 3)])
    assert "free attack (Flurry) on Goblin" in said(body) and body["outcome"]["row"] == row
    assert "free_attack" not in fight.fighter(fight.play.hero)
    with pytest.raises(BadRequest):  # used up
        fight.step(PIA, "combat_free_attack", fight.play.hero, [50])


def test_flurry_needs_a_hit_the_kicker_and_dexterity(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Flurry": 1}, DEX=5)
    row = attack_row(fight, fight.play.hero)
    fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "PS+", 1)], target=fight.play.foe)
    assert "free_attack" not in fight.fighter(fight.play.hero)  # kicker 1 is not Flurry's
    around(fight)
    fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "IN", 0)], target=fight.play.foe)
    assert "free_attack" not in fight.fighter(fight.play.hero)  # a miss
    around(fight)
    give(fight, fight.play.hero, {"Flurry": 1}, DEX=4)
    row = attack_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "PS+", 0)], target=fight.play.foe)
    assert "needs DEX 5+" in said(body) and "free_attack" not in fight.fighter(fight.play.hero)


def test_advanced_flurry_fires_on_kicker_1(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Flurry": 1, "Advanced Flurry": 1}, DEX=7)
    row = attack_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "PS+", 1)], target=fight.play.foe)
    assert "Advanced Flurry: Maren may make a free attack" in said(body)


# --- one beneficial effect; Combat Tactics and its expiry; the odds ---------------------------------------------


def test_one_beneficial_effect_the_player_chooses_combat_tactics_for_next_round(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Flurry": 1, "Combat Tactics": 1}, DEX=5, INT=5)
    row = attack_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "PS+", 0)], target=fight.play.foe)
    assert "chooses one of Flurry / Combat Tactics" in said(body)
    me = fight.fighter(fight.play.hero)
    assert me["perk_choice"]["options"] == ["Flurry", "Combat Tactics"] and "free_attack" not in me
    with pytest.raises(BadRequest) as caught:
        fight.step(PIA, "combat_perk_choose", fight.play.hero, perk="Riposte")
    assert caught.value.field == "perk"
    fight.step(PIA, "combat_perk_choose", fight.play.hero, perk="Combat Tactics")
    me = fight.fighter(fight.play.hero)
    assert "perk_choice" not in me and "free_attack" not in me  # only the one chosen
    assert me["perk_bonuses"] == [{"perk": "Combat Tactics", "on": "attack", "amount": 2, "until": "round", "round": 2}]
    with pytest.raises(BadRequest):  # chosen already
        fight.step(PIA, "combat_perk_choose", fight.play.hero, perk="Flurry")
    # still round 1: no bonus on the odds yet
    plain = attack_odds(fight, fight.play.hero, fight.play.foe)
    assert plain.details["row"] == row
    around(fight)
    boosted = attack_odds(fight, fight.play.hero, fight.play.foe)
    assert boosted.details["row"] == attack_row(fight, fight.play.hero, 2) and boosted.chance > plain.chance
    give(fight, fight.play.hero, {"Combat Tactics": 1}, DEX=5, INT=5)  # no Flurry: kicker 3 fires nothing anyway
    body = fight.step(
        PIA,
        "combat_attack",
        fight.play.hero,
        [kface(attack_row(fight, fight.play.hero, 2), "PS+", 3)],
        target=fight.play.foe,
    )
    assert body["outcome"]["row"] == attack_row(fight, fight.play.hero, 2)
    around(fight)  # round 3: the bonus is over
    assert attack_odds(fight, fight.play.hero, fight.play.foe).details["row"] == row
    body = fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "PS+", 3)], target=fight.play.foe)
    assert body["outcome"]["row"] == row and fight.fighter(fight.play.hero)["perk_bonuses"] == []


def test_combat_tactics_needs_intelligence_5(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Combat Tactics": 1}, INT=4)
    row = attack_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_attack", fight.play.hero, [kface(row, "CT+", 0)], target=fight.play.foe)
    assert "needs INT 5+" in said(body) and not fight.fighter(fight.play.hero).get("perk_bonuses")


# --- Defense perks --------------------------------------------------------------------------------------------------


def _goblin_attacks_maren(fight: Fight) -> None:
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="large_natural")


def test_strategic_positioning_gives_plus_2_on_the_first_attack_next_turn_only(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Strategic Positioning": 1})
    _goblin_attacks_maren(fight)
    body = fight.step(PIA, "combat_defend", fight.play.hero, [kface(defense_row(fight, fight.play.hero), "PS+", 0)])
    assert "Strategic Positioning: +2 on Maren's first attack next turn" in said(body)
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    row = attack_row(fight, fight.play.hero)
    assert attack_odds(fight, fight.play.hero, fight.play.foe).details["row"] == attack_row(fight, fight.play.hero, 2)
    body = fight.step(
        PIA,
        "combat_attack",
        fight.play.hero,
        [kface(attack_row(fight, fight.play.hero, 2), "PS+", 3)],
        target=fight.play.foe,
    )
    assert body["outcome"]["row"] == attack_row(fight, fight.play.hero, 2)
    assert fight.fighter(fight.play.hero)["perk_bonuses"] == []  # spent on the first attack
    assert attack_odds(fight, fight.play.hero, fight.play.foe).details["row"] == row


def test_defensive_maneuver_gives_plus_2_defense_until_the_start_of_the_next_turn(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Defensive Maneuver": 1})
    _goblin_attacks_maren(fight)
    row = defense_row(fight, fight.play.hero)
    body = fight.step(PIA, "combat_defend", fight.play.hero, [kface(row, "PS+", 5)])
    assert "Defensive Maneuver: +2 Defense for Maren" in said(body)
    # the Goblin gets another action by the narrator's placing? No: a new foe attack needs its turn. Check the
    # bonus in the state and on the Defense odds while it runs, then its end at Maren's turn.
    from app.systems.art.fight import perks as fp
    from app.systems.art.fight.models import CombatState

    state = CombatState.model_validate(fight.state())
    me = next(f for f in state.fighters if f.id == fight.play.hero)
    assert fp.bonus(state, me, "defense")[0] == 2
    enc = fight.encounter()
    params = fd.DefendParams(encounter_id=enc.id, version=enc.version, shown_difficulty="PR")
    assert fd.defend_odds(load(fight.sheet(fight.play.hero)), params, odds_ctx(fight, fight.play.hero)).details[
        "row"
    ] == defense_row(fight, fight.play.hero, 2)
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)  # round 2: Maren's turn starts
    state = CombatState.model_validate(fight.state())
    me = next(f for f in state.fighters if f.id == fight.play.hero)
    assert fp.bonus(state, me, "defense")[0] == 0


def test_counterstrike_on_awesome_defense_is_a_free_attack_on_the_attacker(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Counterstrike": 1})
    _goblin_attacks_maren(fight)
    body = fight.step(PIA, "combat_defend", fight.play.hero, [kface(defense_row(fight, fight.play.hero), "AW", 0)])
    assert "Counterstrike: Maren may make a free attack on Goblin" in said(body)
    # the Awesome Defense makes the Goblin fumble first; then the counter attack
    assert fight.state()["pending"]["kind"] == "fumble"


def test_riposte_after_a_successful_parry_with_kicker_0(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Riposte": 1}, DEX=5)
    fight.step(PIA, "combat_wait", fight.play.hero, after=fight.play.foe)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="one_handed")
    fight.step(PIA, "combat_defend", fight.play.hero, [kface(defense_row(fight, fight.play.hero), "IN", 3)])
    dex = load(fight.sheet(fight.play.hero)).attributes["DEX"] or 0
    body = fight.step(PIA, "combat_parry", fight.play.hero, [kface(art.effective_row(dex), "PS+", 0)], item=0)
    assert "parried: no damage" in said(body)
    assert "Riposte: Maren may make a free attack on Goblin" in said(body)
    assert fight.fighter(fight.play.hero)["free_attack"]["perk"] == "Riposte"


def test_advanced_riposte_fires_on_kicker_9_and_needs_dexterity_7(fight: Fight) -> None:
    give(fight, fight.play.hero, {"Advanced Riposte": 1}, DEX=6)
    fight.step(PIA, "combat_wait", fight.play.hero, after=fight.play.foe)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_foe_attack", fight.play.foe, target=fight.play.hero, attack_with="one_handed")
    fight.step(PIA, "combat_defend", fight.play.hero, [kface(defense_row(fight, fight.play.hero), "IN", 3)])
    body = fight.step(PIA, "combat_parry", fight.play.hero, [kface(art.effective_row(6), "PS+", 9)], item=0)
    assert "needs DEX 7+" in said(body) and "free_attack" not in fight.fighter(fight.play.hero)


# --- player against player: the odds ------------------------------------------------------------------------------


def test_attack_odds_on_another_adventurer_are_exact_not_the_narrators_secret(fight: Fight) -> None:
    odds = attack_odds(fight, fight.play.hero, fight.play.friend, shown=None)
    assert "narrator" not in odds.text and "Tom" in odds.text
    sheet, tom = load(fight.sheet(fight.play.hero)), load(fight.sheet(fight.play.friend))
    row = attack_row(fight, fight.play.hero)
    guard = defense(tom)
    expected = sum(p * (1 - art.exact_chance(guard, level)) for level, p in art.result_odds(row).items())
    assert odds.chance == pytest.approx(float(expected)) and 0 < odds.chance < 1
    assert sheet.kind == "adventurer"
    # against a foe the player still sees no level
    assert "narrator" in attack_odds(fight, fight.play.hero, fight.play.foe, shown=None).text


# --- the pages: the odds route reads the combat; the choice and the bonus on the page -------------------------------


def _page_combat(art: Any) -> tuple[str, int, int, int]:
    import re

    from utils.art import FOE

    maren, tom = art.hero(art.pia, name="Maren"), art.hero(art.otto, name="Tom")
    r = art.create(art.nora, {**FOE, "name": "Ogre", "kind": "npc", "level_ALE": "SP", "level_DEF": "EX"})
    ogre = int(r.headers["location"].rsplit("/", 1)[1])
    page = _post(
        art.nora,
        f"{art.base}/systems/art/act/combat_setup",
        {
            "idempotency_key": "setup-1",
            "adventurers": [str(maren), str(tom)],
            "foes": [str(ogre)],
            "bands": "6",
            "adventurer_band": "1",
            "foe_band": "1",
        },
    )
    found = re.search(r'href="/campaigns/\d+/encounters/(\d+)"', page.text)
    assert found
    for who, cid in ((art.pia, maren), (art.otto, tom)):
        art.act(who, cid, "add_item", dict(SWORD))
    return f"{art.base}/encounters/{found.group(1)}", maren, tom, ogre


def _post(who: Any, url: str, data: dict[str, Any]) -> Any:
    return who.post(url, data=data, headers={"HX-Request": "true", "X-CSRF-Token": who.headers["X-CSRF-Token"]})


def _act(art: Any, url: str, who: Any, action: str, cid: int, faces: list[int], **data: Any) -> Any:
    import re
    from unittest import mock

    from app.rolls import service as rolls
    from app.rules.dice import ScriptedDice

    version = re.search(r'data-version="(\d+)"', art.nora.get(url + "/view").text).group(1)
    body = {
        "idempotency_key": f"k{version}-{action}-{cid}",
        "version": version,
        "character_id": str(cid),
        **{k: str(v) for k, v in data.items()},
    }
    with mock.patch.object(rolls, "SecureDice", lambda: ScriptedDice(faces)):
        return _post(who, f"{url}/act/{action}", body)


def test_the_pages_show_the_perk_choice_the_bonus_and_exact_pvp_odds(art: Any) -> None:
    import re

    from app.characters.models import Character

    url, maren, tom, ogre = _page_combat(art)
    with art.client.app.state.sessionmaker() as db:
        ch = db.get(Character, maren)
        ch.sheet = {
            **ch.sheet,
            "perks": {"Flurry": 1, "Combat Tactics": 1},
            "attributes": {**ch.sheet["attributes"], "DEX": 5, "INT": 5},
        }
        db.commit()
    enc_id = int(url.rsplit("/", 1)[1])
    assert _act(art, url, art.pia, "combat_initiative", maren, [kface(7, "GD", 3)]).status_code == 200
    assert _act(art, url, art.otto, "combat_initiative", tom, [kface(7, "PR", 3)]).status_code == 200
    while (turn := re.search(r'data-turn="(\d*)"', art.nora.get(url + "/view").text).group(1)) == str(ogre):
        assert _act(art, url, art.nora, "combat_end_turn", ogre, []).status_code == 200
    assert turn == str(maren)
    version = re.search(r'data-version="(\d+)"', art.nora.get(url + "/view").text).group(1)
    # player against player: the exact chance, not "the narrator knows the level"
    odds = art.pia.get(
        f"{art.base}/characters/{maren}/odds/combat_attack",
        params={"encounter_id": enc_id, "version": version, "target": tom, "weapon": 0},
    )
    assert odds.status_code == 200 and "narrator" not in odds.text and "%" in odds.text and "Tom" in odds.text
    # a kicker 0 (face 40) misses the Ogre's Extreme Defense: Combat Tactics alone fires (Flurry needs a hit)
    r = _act(art, url, art.pia, "combat_attack", maren, [40], target=ogre, weapon=0)
    assert r.status_code == 200, r.text
    page = art.pia.get(url).text
    assert 'id="combat-perks"' in page and "+2</strong> Attack (Combat Tactics, all attacks in round" in page


# --- grapples: attacking into one, joining, a failed attempt ------------------------------------------------


def _maren_grapples_the_goblin(fight: Fight) -> None:
    body = fight.step(
        PIA, "combat_maneuver", fight.play.hero, [face_of(9, "GD")], target=fight.play.foe, maneuver="grapple"
    )
    assert "grapples Goblin" in said(body)
    fight.step(PIA, "combat_end_turn", fight.play.hero)


def face_of(row: int, level: str) -> int:
    return next(f for f in range(1, 101) if art.DEFAULT_TABLE.read(row, f) is Level[level])


def fate_row(fight: Fight, cid: int) -> int:
    return art.effective_row(art.trait_total(load(fight.sheet(cid)).attributes["FAT"] or 1, [], 0))


def test_an_attack_into_a_grapple_hits_the_lowest_fate(fight: Fight) -> None:
    _maren_grapples_the_goblin(fight)
    # Maren rolls Fate Catastrophic, below the Goblin's Poor: Tom's attack goes to Maren (her Defense roll)
    body = fight.step(
        OTTO,
        "combat_attack",
        fight.play.friend,
        [face_of(fate_row(fight, fight.play.hero), "CT"), face_of(attack_row(fight, fight.play.friend), "PS")],
        target=fight.play.foe,
    )
    text = said(body)
    assert "Tom attacks into the grapple: Fate " in text and "Maren Catastrophic" in text
    assert "Goblin (rating)" in text and "Goblin Poor" not in text  # a foe's Fate is the narrator's
    assert "→ Maren is hit" in text
    assert "Tom attacks Maren" in text
    pending = fight.state()["pending"]
    assert pending["kind"] == "defense" and pending["defender"] == fight.play.hero
    assert fight.sheet(fight.play.foe)["checked"] == [False, False, False, False]


def test_a_fate_tie_in_a_grapple_lets_the_attacker_choose(fight: Fight) -> None:
    _maren_grapples_the_goblin(fight)
    body = fight.step(
        OTTO,
        "combat_attack",
        fight.play.friend,
        [face_of(fate_row(fight, fight.play.hero), "PR")],
        target=fight.play.hero,
    )
    assert "a tie: Tom chooses who is hit" in said(body)
    assert "Goblin Poor" not in said(body)
    assert body["outcome"]["fates"] == [[str(fight.play.hero), "PR"]]  # the Goblin's rating is not in it
    pending = fight.state()["pending"]
    assert pending["kind"] == "grapple_tie" and sorted(pending["options"]) == sorted([fight.play.hero, fight.play.foe])
    with pytest.raises(BadRequest):  # only the attacker decides
        fight.step(PIA, "combat_grapple_hit", fight.play.hero, [50], target=fight.play.foe)
    with pytest.raises(BadRequest):  # someone not tied
        fight.step(OTTO, "combat_grapple_hit", fight.play.friend, [50], target=fight.play.friend)
    row = attack_row(fight, fight.play.friend)
    body = fight.step(OTTO, "combat_grapple_hit", fight.play.friend, [kface(row, "PS+", 3)], target=fight.play.foe)
    assert "Tom chooses Goblin in the grapple; Tom attacks Goblin" in said(body)
    assert fight.sheet(fight.play.foe)["checked"] != [False, False, False, False]  # the Goblin took the hit
    assert fight.state()["pending"] is None and fight.state()["turn"]["action"]


def test_joining_a_grapple_is_an_action_without_a_roll(fight: Fight) -> None:
    _maren_grapples_the_goblin(fight)
    body = fight.step(OTTO, "combat_grapple_join", fight.play.friend, [], target=fight.play.foe)
    assert "Tom joins the grapple (Goblin, Maren)" in said(body) and body["dice"] == []
    assert fight.fighter(fight.play.friend)["grapple"] == {"with": fight.play.foe, "bonus": 0}
    assert fight.state()["turn"]["action"]
    with pytest.raises(BadRequest):  # the action is used
        fight.step(OTTO, "combat_attack", fight.play.friend, [50], target=fight.play.foe)
    fight.step(OTTO, "combat_end_turn", fight.play.friend)
    fight.step(NARRATOR, "combat_end_turn", fight.play.foe)
    # inside the grapple: Tom's attack on the Goblin is not diverted, with +4
    row = attack_row(fight, fight.play.friend, art.GRAPPLE_ATTACK)
    fight.step(PIA, "combat_end_turn", fight.play.hero)
    body = fight.step(OTTO, "combat_attack", fight.play.friend, [kface(row, "PS+", 3)], target=fight.play.foe)
    assert body["outcome"]["row"] == row and "into the grapple" not in said(body)


def test_joining_needs_a_grapple_in_the_band(fight: Fight) -> None:
    with pytest.raises(BadRequest) as caught:
        fight.step(PIA, "combat_grapple_join", fight.play.hero, [], target=fight.play.foe)
    assert "not in a grapple" in caught.value.message


def test_a_failed_grapple_gives_a_free_attack_with_minus_1_defense_a_failure(fight: Fight) -> None:
    body = fight.step(
        PIA, "combat_maneuver", fight.play.hero, [face_of(9, "PT")], target=fight.play.foe, maneuver="grapple"
    )
    assert "the grapple fails" in said(body)
    pending = fight.state()["pending"]
    assert pending["kind"] == "defense" and pending["defender"] == fight.play.hero
    assert pending["modifier"] == art.count(Level.PR, Level.PT) == -3  # three failures against the Goblin's Poor
    row = defense_row(fight, fight.play.hero, -3)
    body = fight.step(PIA, "combat_defend", fight.play.hero, [kface(row, "PS+", 3)])
    assert body["outcome"]["row"] == row


def test_the_page_offers_joining_a_grapple_and_the_choice_on_a_fate_tie(art: Any) -> None:
    import re

    url, maren, tom, ogre = _page_combat(art)
    assert _act(art, url, art.pia, "combat_initiative", maren, [kface(7, "GD", 3)]).status_code == 200
    assert _act(art, url, art.otto, "combat_initiative", tom, [kface(7, "PR", 3)]).status_code == 200

    def turn() -> str:
        return re.search(r'data-turn="(\d*)"', art.nora.get(url + "/view").text).group(1)

    while turn() == str(ogre):
        assert _act(art, url, art.nora, "combat_end_turn", ogre, []).status_code == 200
    r = _act(art, url, art.pia, "combat_maneuver", maren, [100], target=ogre, maneuver="grapple")
    assert r.status_code == 200 and "grapples Ogre" in r.text
    assert _act(art, url, art.pia, "combat_end_turn", maren, []).status_code == 200
    assert turn() == str(tom)
    otto = art.otto.get(url).text
    assert f'id="combat-grapple-join-{ogre}"' in otto and "Join the grapple" in otto
    # Tom attacks the Ogre from outside: Maren rolls Fate Poor like the Ogre's rating: a tie, Tom chooses
    with art.client.app.state.sessionmaker() as db:
        from app.characters.models import Character

        fat = load(dict(db.get(Character, maren).sheet)).attributes["FAT"] or 1
    r = _act(art, url, art.otto, "combat_attack", tom, [face_of(art_row(fat), "PR")], target=ogre, weapon=0)
    assert r.status_code == 200, r.text
    otto, pia = art.otto.get(url).text, art.pia.get(url).text
    assert f'id="combat-grapple-hit-{ogre}"' in otto and f'id="combat-grapple-hit-{maren}"' in otto
    assert "combat-grapple-hit" not in pia


def art_row(fate: int) -> int:
    return art.effective_row(art.trait_total(fate, [], 0))


def test_the_page_offers_the_free_attack_a_foes_fumble_gives(art: Any) -> None:
    import re

    url, maren, tom, ogre = _page_combat(art)
    assert _act(art, url, art.pia, "combat_initiative", maren, [kface(7, "GD", 3)]).status_code == 200
    assert _act(art, url, art.otto, "combat_initiative", tom, [kface(7, "PR", 3)]).status_code == 200

    def turn() -> str:
        return re.search(r'data-turn="(\d*)"', art.nora.get(url + "/view").text).group(1)

    assert turn() == str(ogre)  # the ogre (Superb alertness) goes before Maren (Good) and Tom (Poor)
    assert (
        _act(art, url, art.nora, "combat_foe_attack", ogre, [], target=maren, attack_with="one_handed").status_code
        == 200
    )
    r = _act(art, url, art.pia, "combat_defend", maren, [100])  # Awesome Defense: the Ogre fumbles
    assert r.status_code == 200 and "Ogre fumbles" in r.text
    with art.client.app.state.sessionmaker() as db:
        from app.characters.models import Character

        cun = load(dict(db.get(Character, maren).sheet)).attributes["CUN"] or 1
    r = _act(art, url, art.pia, "combat_fumble", maren, [face_of(art_row(cun), "GD")])
    assert r.status_code == 200, r.text
    pia, otto = art.pia.get(url).text, art.otto.get(url).text
    assert f'id="combat-free-attack-{maren}"' in pia and "free attack (the fumble) on Ogre" in pia
    assert "combat-free-attack" not in otto
    r = _act(art, url, art.pia, "combat_free_attack", maren, [kface(art_row(5), "PS+", 3)], weapon=0)
    assert r.status_code == 200 and "free attack (Fumble) on Ogre" in r.text
    assert "combat-free-attack" not in art.pia.get(url).text


def test_the_narrator_chooses_on_a_fate_tie_when_a_foe_attacks_into_a_grapple(art: Any) -> None:
    import re

    from utils.art import FOE

    maren, tom = art.hero(art.pia, name="Maren"), art.hero(art.otto, name="Tom")
    ids = []
    for name in ("Ogre", "Orc"):
        r = art.create(art.nora, {**FOE, "name": name, "kind": "npc", "level_ALE": "SP" if name == "Ogre" else "CT"})
        ids.append(int(r.headers["location"].rsplit("/", 1)[1]))
    ogre, orc = ids
    page = _post(
        art.nora,
        f"{art.base}/systems/art/act/combat_setup",
        {
            "idempotency_key": "setup-2",
            "adventurers": [str(maren), str(tom)],
            "foes": [str(ogre), str(orc)],
            "bands": "6",
            "adventurer_band": "1",
            "foe_band": "1",
        },
    )
    found = re.search(r'href="/campaigns/\d+/encounters/(\d+)"', page.text)
    assert found
    url = f"{art.base}/encounters/{found.group(1)}"
    assert _act(art, url, art.pia, "combat_initiative", maren, [kface(7, "GD", 3)]).status_code == 200
    assert _act(art, url, art.otto, "combat_initiative", tom, [kface(7, "PR", 3)]).status_code == 200

    def turn() -> str:
        return re.search(r'data-turn="(\d*)"', art.nora.get(url + "/view").text).group(1)

    seats = {str(maren): (art.pia, maren), str(tom): (art.otto, tom), str(ogre): (art.nora, ogre)}
    while turn() != str(maren):
        who, cid = seats[turn()]
        assert _act(art, url, who, "combat_end_turn", cid, []).status_code == 200
    r = _act(art, url, art.pia, "combat_maneuver", maren, [100], target=ogre, maneuver="grapple")
    assert r.status_code == 200 and "grapples Ogre" in r.text
    while turn() != str(orc):
        who, cid = seats[turn()]
        assert _act(art, url, who, "combat_end_turn", cid, []).status_code == 200
    with art.client.app.state.sessionmaker() as db:
        from app.characters.models import Character

        fat = load(dict(db.get(Character, maren).sheet)).attributes["FAT"] or 1
    r = _act(
        art,
        url,
        art.nora,
        "combat_foe_attack",
        orc,
        [face_of(art_row(fat), "PR")],
        target=maren,
        attack_with="one_handed",
    )
    assert r.status_code == 200 and "a tie: Orc chooses who is hit" in r.text
    nora, pia = art.nora.get(url).text, art.pia.get(url).text
    assert f'id="combat-grapple-hit-{ogre}"' in nora and f'id="combat-grapple-hit-{maren}"' in nora
    assert "combat-grapple-hit" not in pia
    r = _act(art, url, art.nora, "combat_grapple_hit", orc, [], target=maren)
    assert r.status_code == 200 and "Orc chooses Maren in the grapple; Orc attacks Maren" in r.text
    assert 'id="combat-defend' in art.pia.get(url).text
