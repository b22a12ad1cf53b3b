"""The ART combat pages: the narrator's set-up on the ART page, the encounter page for each viewer (the track,
the order, buttons only on the acting player's page, the odds on the buttons), refusals shown above the
moves, and a foe's levels never on a player's page, fragment, log or sheet."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from html import unescape
from typing import Any
from unittest import mock

import pytest
from starlette.testclient import TestClient
from utils.art import FOE, Art
from utils.art_fight import face

from app.rolls import service as rolls
from app.rules.dice import ScriptedDice

# A foe whose levels no player result shows here: Super Alertness, Extreme Defense.
SECRET_FOE = {
    **FOE,
    "name": "Ogre",
    "kind": "npc",
    "level_ALE": "SP",
    "level_ATK": "PR",
    "level_DEF": "EX",
    "level_AGI": "GT",
}


@contextmanager
def faces(*values: int):
    with mock.patch.object(rolls, "SecureDice", lambda: ScriptedDice(list(values))):
        yield


def post(who: TestClient, url: str, data: dict[str, Any]):
    return who.post(url, data=data, headers={"HX-Request": "true", "X-CSRF-Token": who.headers["X-CSRF-Token"]})


class Combat:
    def __init__(self, art: Art) -> None:
        self.art = art
        self.maren = art.hero(art.pia, name="Maren")
        self.tom = art.hero(art.otto, name="Tom")
        r = art.create(art.nora, SECRET_FOE)
        assert r.status_code == 303, r.text
        self.ogre = int(r.headers["location"].rsplit("/", 1)[1])
        page = post(
            art.nora,
            f"{art.base}/systems/art/act/combat_setup",
            {
                "idempotency_key": "setup-1",
                "adventurers": [str(self.maren), str(self.tom)],
                "foes": [str(self.ogre)],
                "bands": "6",
                "adventurer_band": "1",
                "foe_band": "1",
                "features": "5 exit gate\n3 rough rubble",
            },
        )
        assert page.status_code == 200, page.text
        found = re.search(r'href="/campaigns/\d+/encounters/(\d+)"', page.text)
        assert found and "Open the combat" in page.text
        self.id = int(found.group(1))
        self.url = f"{art.base}/encounters/{self.id}"

    def version(self) -> int:
        page = self.art.nora.get(self.url + "/view").text
        return int(re.search(r'data-version="(\d+)"', page).group(1))

    def act(self, who: TestClient, action: str, character: int | None, **data: Any):
        body = {
            "idempotency_key": f"k{self.version()}-{action}-{character}",
            "version": str(self.version()),
            **({"character_id": str(character)} if character else {}),
            **{k: str(v) for k, v in data.items()},
        }
        return post(who, f"{self.url}/act/{action}", body)

    def initiative(self) -> None:
        with faces(face(7, "GD")):
            assert self.act(self.art.pia, "combat_initiative", self.maren).status_code == 200
        with faces(face(7, "PR")):
            assert self.act(self.art.otto, "combat_initiative", self.tom).status_code == 200

    def turn(self) -> int:
        return int(re.search(r'data-turn="(\d*)"', self.art.nora.get(self.url + "/view").text).group(1) or 0)

    def to_maren(self) -> None:
        """The Ogre (Super) has the bonus round and acts first in every round: pass its turns."""
        while self.turn() == self.ogre:
            assert self.act(self.art.nora, "combat_end_turn", self.ogre).status_code == 200


@pytest.fixture
def combat(art: Art) -> Combat:
    return Combat(art)


def test_the_setup_form_is_the_narrators(combat: Combat) -> None:
    art = combat.art
    assert "Set up a combat" in art.nora.get(f"{art.base}/systems/art").text
    assert "Set up a combat" not in art.pia.get(f"{art.base}/systems/art").text
    assert f"/encounters/{combat.id}" in art.pia.get(f"{art.base}/systems/art").text  # listed for players


def test_a_bad_setup_shows_its_error_next_to_the_field(art: Art) -> None:
    page = post(
        art.nora,
        f"{art.base}/systems/art/act/combat_setup",
        {"idempotency_key": "bad", "adventurers": [], "foes": [], "bands": "6"},
    )
    assert page.status_code == 422 and "Choose at least one adventurer." in page.text


def test_each_phone_gets_only_its_own_buttons(combat: Combat) -> None:
    art = combat.art
    pia = art.pia.get(combat.url).text
    assert 'id="combat-track"' in pia and "Rough: rubble" in pia and "Exit: gate" in pia
    assert f'id="combat-initiative-{combat.maren}"' in pia and f'id="combat-initiative-{combat.tom}"' not in pia
    assert f"/characters/{combat.maren}/odds/combat_initiative" in pia
    combat.initiative()
    assert "Bonus round" in art.pia.get(combat.url).text
    combat.to_maren()
    pia, otto = art.pia.get(combat.url).text, art.otto.get(combat.url).text
    assert "Round 1" in pia and "Your turn, Maren" in pia and 'id="combat-move-roll"' in pia
    assert "Waiting for Maren" in otto and 'id="combat-move-roll"' not in otto
    nora = art.nora.get(combat.url).text
    assert "Your turn, Maren" in nora and 'id="combat-end"' in nora  # the narrator may act for anyone
    # the odds on a button: the chance to move a band as a free action
    odds = art.pia.get(
        f"{art.base}/characters/{combat.maren}/odds/combat_move_roll",
        params={"encounter_id": combat.id, "version": combat.version()},
    )
    assert odds.status_code == 200 and "Chance to move a band as a free action" in odds.text and "%" in odds.text


def test_out_of_turn_is_refused_above_the_moves_and_the_page_shows_where_things_stand(combat: Combat) -> None:
    combat.initiative()
    combat.to_maren()
    r = combat.act(combat.art.otto, "combat_end_turn", combat.tom)
    assert r.status_code == 422 and 'id="combat-error"' in r.text and "It is Maren&#39;s turn." in r.text
    stale = post(
        combat.art.pia,
        f"{combat.url}/act/combat_end_turn",
        {"idempotency_key": "stale", "version": "1", "character_id": str(combat.maren)},
    )
    assert stale.status_code == 409 and "Already resolved" in stale.text


def test_moving_shows_the_reachable_bands_first(combat: Combat) -> None:
    combat.initiative()
    combat.to_maren()
    with faces(face(9, "GD")):
        page = combat.act(combat.art.pia, "combat_move_roll", combat.maren).text
    assert "may move up to 3 bands" in page
    assert 'id="combat-move-free-0"' in page and 'id="combat-move-free-2"' in page
    assert 'id="combat-move-3"' in page and 'id="combat-move-4"' not in page  # band 3 is rough
    page = combat.act(combat.art.pia, "combat_move", combat.maren, band=3).text
    assert "rough terrain ends the movement" in page


def _without_level_options(html: str) -> str:
    return re.sub(r'<option value="(CT|PT|FB|IN|PR|PS|GD|GT|SP|AW|EX)"[^>]*>[^<]*</option>', "", html)


def test_a_player_never_sees_a_foe_level(combat: Combat) -> None:
    """The Ogre is Super on Alertness (its initiative) and Extreme on Defense. The narrator
    sees them; no player reads them on the encounter page, its fragment, the log or their sheet."""
    art = combat.art
    assert "Ogre: Super" in art.nora.get(combat.url).text  # its initiative is its Alertness: the narrator's
    assert "Super" not in _without_level_options(art.pia.get(combat.url).text)
    assert re.search(r"Ogre: <span class=\"muted\">the narrator", art.pia.get(combat.url).text)
    combat.initiative()  # the Ogre (Super) has the bonus round, and acts first in every round; then Maren, Tom
    combat.act(art.nora, "combat_end_turn", combat.ogre)
    nora = art.nora.get(combat.url).text
    assert re.search(r"Ogre <small class=\"muted\">Super</small>", nora)
    # the Ogre attacks Maren; she rolls Defense; Maren attacks it (against its Extreme Defense)
    assert combat.act(art.nora, "combat_foe_attack", combat.ogre, target=combat.maren).status_code == 200
    with faces(50):
        assert combat.act(art.pia, "combat_defend", combat.maren).status_code == 200
    assert combat.act(art.nora, "combat_end_turn", combat.ogre).status_code == 200
    art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"},
    )
    with faces(60):
        assert combat.act(art.pia, "combat_attack", combat.maren, target=combat.ogre, weapon=0).status_code == 200
    seen: dict[str, str] = {}
    for who, client in (("pia", art.pia), ("otto", art.otto)):
        seen[f"{who} page"] = client.get(combat.url).text
        seen[f"{who} view"] = client.get(combat.url + "/view").text
        seen[f"{who} log"] = client.get(f"/api/campaigns/{art.t.id}/log", headers=art.t.player).text
        seen[f"{who} sheet"] = client.get(f"{art.base}/characters/{combat.maren if who == 'pia' else combat.tom}").text
    for where, html in seen.items():
        text = _without_level_options(html)
        assert "Extreme" not in text, where
        assert not re.search(r"Ogre[^<]*(<small[^>]*>)?\s*Super", text), where
    narrator_log = art.client.get(f"/api/campaigns/{art.t.id}/log", headers=art.t.narrator).text
    assert "Extreme" not in narrator_log  # the log is public: foe levels never go in it, not even for narrators


def test_what_happened_reads_oldest_first_like_the_log(combat: Combat) -> None:
    """One order for every log view (the main log is oldest first): the stored newest-first lines are shown
    reversed."""
    import html as html_lib

    from app.encounters.models import Encounter
    from app.i18n import render

    combat.initiative()
    combat.to_maren()
    with combat.art.client.app.state.sessionmaker() as db:
        stored = [render(r["text"], "en") for r in db.get(Encounter, combat.id).state["recent"]]
    assert len(stored) >= 2
    page = combat.art.nora.get(combat.url + "/view").text
    listed = re.search(r'<ol class="plain" id="combat-recent">(.*?)</ol>', page, re.S)
    assert listed
    shown = [
        html_lib.unescape(re.sub(r"<small[^>]*>.*?</small>\s*|<[^>]+>", "", li)).strip()
        for li in re.findall(r"<li>(.*?)</li>", listed.group(1), re.S)
    ]
    assert shown == list(reversed(stored))


def test_a_reach_weapon_on_the_sheet_and_the_foes_reach_on_the_narrators_form(combat: Combat) -> None:
    art = combat.art
    r = art.act(
        art.pia,
        combat.maren,
        "add_item",
        {
            "name": "Spear",
            "slot": "ready",
            "type": "weapon",
            "cost": "Struggling",
            "weapon": "melee_2h",
            "reach": "true",
        },
    )
    assert r.status_code == 200, r.text
    sheet = art.pia.get(f"{art.base}/characters/{combat.maren}").text
    assert 'id="ai-reach"' in sheet and "reach (adjacent band)" in sheet
    assert art.sheet(combat.maren)["gear"][0]["reach"] is True
    r = art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Long knife", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h", "reach": "true"},
    )
    assert "Only two-handed melee weapons can have reach." in r.text
    combat.initiative()
    assert combat.turn() == combat.ogre
    nora, pia = art.nora.get(combat.url).text, art.pia.get(combat.url).text
    assert 'id="fa-reach"' in nora and 'id="fa-reach"' not in pia


def test_protect_and_play_dead_buttons_only_for_whoever_may_use_them(combat: Combat) -> None:
    """The Ogre (bonus round) attacks Maren before Tom has acted: Tom's phone (and the narrator's) offers to
    protect her, Maren's does not; once she is hit, her phone offers to play dead, Tom's does not."""
    art = combat.art
    combat.initiative()
    assert combat.act(art.nora, "combat_end_turn", combat.ogre).status_code == 200  # the bonus round
    assert combat.turn() == combat.ogre  # round 1: the Ogre first, then Maren and Tom
    assert combat.act(art.nora, "combat_foe_attack", combat.ogre, target=combat.maren).status_code == 200
    pia, otto, nora = art.pia.get(combat.url).text, art.otto.get(combat.url).text, art.nora.get(combat.url).text
    assert f'id="combat-protect-{combat.tom}"' in otto and f'id="combat-protect-{combat.tom}"' in nora
    assert "combat-protect-" not in pia and 'id="combat-defend"' in pia
    assert f"/characters/{combat.tom}/odds/combat_protect" in otto
    with faces(1):
        assert combat.act(art.pia, "combat_defend", combat.maren).status_code == 200
    pia, otto = art.pia.get(combat.url).text, art.otto.get(combat.url).text
    assert f'id="combat-play-dead-{combat.maren}"' in pia and "combat-play-dead-" not in otto
    with faces(90):
        assert combat.act(art.pia, "combat_play_dead", combat.maren).status_code == 200
    pia, nora = art.pia.get(combat.url).text, art.nora.get(combat.url).text
    assert "(playing dead)" in pia and "fools:" not in pia and "seen through by:" in nora


def _options(html: str, select_id: str) -> list[tuple[str, bool, str]]:
    """(value, selected, the optgroup's label) of each option in the select with this id."""
    found = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', html, re.S)
    assert found, f"no select #{select_id}"
    out, group = [], ""
    for tag in re.finditer(r'<optgroup label="([^"]*)">|<option value="([^"]*)"([^>]*)>', found.group(1)):
        if tag.group(1) is not None:
            group = tag.group(1)
        else:
            out.append((tag.group(2), "selected" in tag.group(3), group))
    return out


def test_a_character_made_without_gear_arms_on_the_combat_page(combat: Combat) -> None:
    """Issue 21, point 3: Maren was made without gear. Her Attack panel offered 'draw one (a free action below)'
    with nothing below; now it offers her starting weapon (a class at her Fortune), then the attack."""
    art = combat.art
    combat.initiative()
    combat.to_maren()
    pia = art.pia.get(combat.url).text
    assert "a free action below" not in pia and 'id="combat-attack"' not in pia
    panel = re.search(r'id="combat-attack-panel".*?</details>', pia, re.S).group(0)
    assert 'id="combat-arm"' in panel and ("Blade", True, "Melee") in _options(panel, "arm-class")
    r = combat.act(art.pia, "combat_arm", combat.maren, weapon_class="Blade")
    assert r.status_code == 200, r.text
    assert "takes up the starting weapon the sheet lacked: Blade (Struggling), ready" in r.text
    assert 'id="combat-attack"' in r.text and 'id="combat-arm"' not in r.text
    assert art.sheet(combat.maren)["gear"][0]["slot"] == "ready"


def test_a_weapon_at_hand_is_drawn_from_the_attack_panel(combat: Combat) -> None:
    art = combat.art
    r = art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Sword", "slot": "at_hand", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"},
    )
    assert r.status_code == 200, r.text
    combat.initiative()
    combat.to_maren()
    pia = art.pia.get(combat.url).text
    panel = re.search(r'id="combat-attack-panel".*?</details>', pia, re.S).group(0)
    assert 'id="combat-draw"' in panel and pia.count('id="combat-draw"') == 1 and 'id="combat-arm"' not in panel
    with faces(face(7, "GD")):
        r = combat.act(art.pia, "combat_free_action", combat.maren, what="draw", item=0)
    assert r.status_code == 200 and 'id="combat-attack"' in r.text


def test_the_attack_target_is_an_enemy_and_allies_are_apart(combat: Combat) -> None:
    """Issue 21, point 4: with the Ogre in another band, the first option was Tom (a teammate), preselected."""
    art = combat.art
    art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Pistol", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "ranged_1h"},
    )  # range 2
    combat.initiative()
    assert combat.act(art.nora, "combat_place", None, target=combat.ogre, band=3).status_code == 200
    combat.to_maren()
    pia = art.pia.get(combat.url).text
    options = _options(pia, "atk-target")
    assert [o for o in options if o[1]] == [(str(combat.ogre), True, "Foes")]
    assert (str(combat.tom), False, "Allies (friendly fire)") in options
    assert [o[2] for o in options] == ["Foes", "Allies (friendly fire)"]  # the enemy first, the ally apart
    # the odds line says before the tap when the chosen weapon cannot reach the target (a sword, two bands)
    r = art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"},
    )
    assert r.status_code == 200 and [g["name"] for g in art.sheet(combat.maren)["gear"]] == ["Pistol", "Sword"], r.text
    odds = f"{art.base}/characters/{combat.maren}/odds/combat_attack"
    asked = {"encounter_id": combat.id, "version": combat.version(), "target": combat.ogre}
    far = art.pia.get(odds, params={**asked, "weapon": 1}).text
    assert "Cannot attack:" in far and "Ogre is out of reach of Sword (2 bands away)." in far
    near = art.pia.get(odds, params={**asked, "weapon": 0}).text
    assert "out of reach" not in near and "the narrator knows the level" in near
    r = combat.act(art.pia, "combat_attack", combat.maren, target=combat.ogre, weapon=1)
    assert r.status_code == 422 and "Ogre is out of reach of Sword (2 bands away)." in r.text  # the same rule


def test_the_foes_move_offers_only_the_bands_it_reaches(combat: Combat) -> None:
    """Issue 21, point 5: the Ogre (Great Agility: 4 bands) leaves band 1, where Maren and Tom stand (2 to leave),
    and band 3 is rough (it ends the move): it reaches 0, 2 and 3. The form listed every band 0-5."""
    art = combat.art
    combat.initiative()
    assert combat.turn() == combat.ogre
    nora = art.nora.get(combat.url).text
    assert [o[0] for o in _options(nora, "fm-band")] == ["0", "2", "3"]
    r = combat.act(art.nora, "combat_foe_move", combat.ogre, band=4)  # the server still refuses it
    assert r.status_code == 422 and "cannot get that far" in r.text


def test_the_attack_button_waits_for_a_target_in_reach(combat: Combat) -> None:
    """Issue 35: the Attack button was enabled with no target in reach, though the page knows the weapons and the
    bands. Now the form carries who each ready weapon reaches (the attack's own rule) and the button starts
    disabled, with the reason, when the chosen pair cannot be tried; it is enabled where it can."""
    art = combat.art
    art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"},
    )
    combat.initiative()
    assert combat.act(art.nora, "combat_place", None, target=combat.ogre, band=3).status_code == 200
    combat.to_maren()
    pia = art.pia.get(combat.url).text
    button = re.search(r'<button class="primary art-combat-go" id="combat-attack"[^>]*>', pia)
    assert button and " disabled" in button.group(0), pia
    note = re.search(r'<p class="muted" id="combat-attack-none"[^>]*>([^<]*)</p>', pia)
    assert note and "hidden" not in note.group(0) and "out of reach of that weapon" in note.group(1)
    reach = re.search(r'data-allowed="([^"]*)"', pia)
    assert reach and json.loads(unescape(reach.group(1)))["0"] == [combat.tom]  # the sword: Tom, beside her
    assert re.search(r"Ogre · band 3 · out of reach</option>", pia)
    # A pistol reaches two bands: the Ogre is in reach, the button ready, the note hidden.
    art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Pistol", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "ranged_1h"},
    )
    pia = art.pia.get(combat.url).text
    reach = re.search(r'data-allowed="([^"]*)"', pia)
    assert reach and combat.ogre in json.loads(unescape(reach.group(1)))["1"]
    assert "Ogre · band 3 · out of reach" not in pia


def test_one_band_away_is_singular(combat: Combat) -> None:
    art = combat.art
    art.act(
        art.pia,
        combat.maren,
        "add_item",
        {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"},
    )
    combat.initiative()
    assert combat.act(art.nora, "combat_place", None, target=combat.ogre, band=2).status_code == 200
    combat.to_maren()
    odds = f"{art.base}/characters/{combat.maren}/odds/combat_attack"
    asked = {"encounter_id": combat.id, "version": combat.version(), "target": combat.ogre, "weapon": 0}
    assert "Ogre is out of reach of Sword (1 band away)." in art.pia.get(odds, params=asked).text


def test_the_foes_attack_groups_its_targets_by_reach(combat: Combat) -> None:
    """Issue 35: the narrator's foe attack listed every adventurer alike; now by what reaches them."""
    art = combat.art
    combat.initiative()
    assert combat.act(art.nora, "combat_place", None, target=combat.ogre, band=2).status_code == 200
    assert combat.turn() == combat.ogre  # the Ogre (Super) acts first
    options = _options(art.nora.get(combat.url).text, "fa-target")
    assert {o[2] for o in options} == {"An adjacent band: reach or ranged"}, options
