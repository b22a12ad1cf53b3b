"""An ART combat played by two phones (390x844) and a narrator's laptop against a real server whose dice are
scripted (tests/utils/scripted_server.py): the narrator sets it up on the ART page; initiative on the phones;
rounds with attacks, moves, a parry, an AOE attack, a fumble; the foe defeated; every step in the log and the
chain verifying. Only the acting player's phone gets the buttons. Screenshots: test-artifacts/screenshots/
art-combat-*.png."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect
from utils.art import FOE, balanced
from utils.art_fight import face
from utils.dice_server import scripted_server

from .pages import TAP, Tab, Tabs, api_invite, api_user, at_the_table, page_problems, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]

SWORD = {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"}
# The range track scrolls sideways on a laptop only; on a phone it runs down the screen (nothing may overflow).
TRACK = ("art-track-wrap", "art-range-track", "art-band", "art-token", "art-feature")


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    with scripted_server(tmp_path, "combat.db") as started:
        yield started


def check(tab: Tab, name: str, buttons: list[str], width: int = 390) -> list[str]:
    """Screenshot; no sideways overflow outside the range track (whose strip scrolls); no serious or critical
    accessibility violation (axe-core, pages.page_problems); big enough buttons."""
    page = tab.page
    screenshot(page, f"art-combat-{name}-{width}")
    page.evaluate("() => document.querySelectorAll('[style=\"\"]').forEach(e => e.removeAttribute('style'))")
    problems = page_problems(page, f"art-combat-{name}", width, overflow_ok=TRACK if width > 600 else ())
    for selector in buttons:
        for i in range(page.locator(selector).count()):
            box = page.locator(selector).nth(i).bounding_box()
            if box and box["height"] < TAP:
                problems.append(f"{name}: {selector} is {box['height']:.0f}px tall")
    return problems


def _old_mill(base: str, *, swords: bool) -> tuple[int, dict[str, dict[str, str]], dict[str, int]]:
    """The ART campaign both combats are played in: Maren (Pia's) and Tom (Otto's), each with a sword if asked,
    and the narrator's Goblin. Returns the campaign, everyone's API headers and the characters' ids."""
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    r = httpx2.post(base + "/api/campaigns", json={"name": "The Old Mill", "systems": ["art"]}, headers=who["nora"])
    campaign_id = r.json()["id"]
    for name in ("pia", "otto"):
        code = api_invite(base, campaign_id, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
    ids = {}
    for name, owner in (("Maren", "pia"), ("Tom", "otto")):
        fields = {k: v for k, v in balanced(name).items() if k != "name"}
        r = httpx2.post(
            f"{base}/api/campaigns/{campaign_id}/characters",
            headers=who[owner],
            json={"name": name, "system": "art", "sheet": fields},
        )
        assert r.status_code == 201, r.text
        ids[name] = r.json()["id"]
        if swords:
            r = httpx2.post(
                f"{base}/api/campaigns/{campaign_id}/actions",
                headers=who[owner],
                json={"system": "art", "action": "add_item", "character_id": ids[name], "params": SWORD},
            )
            assert r.status_code == 201, r.text
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters",
        headers=who["nora"],
        json={"name": "Goblin", "system": "art", "kind": "npc", "sheet": dict(FOE.items())},
    )
    assert r.status_code == 201, r.text
    ids["Goblin"] = r.json()["id"]
    return campaign_id, who, ids


def test_a_full_combat_on_two_phones_and_a_laptop(browser: Any, scripted: tuple[Any, Path]) -> None:
    server, faces = scripted
    tabs = Tabs(browser, server)
    base = tabs.base
    campaign_id, who, ids = _old_mill(base, swords=True)
    table = f"/campaigns/{campaign_id}"

    pia, otto, nora = at_the_table(tabs, base, table)
    problems: list[str] = []

    def script(*values: int) -> None:
        faces.write_text(json.dumps(list(values)))

    def step_of(tab: Tab) -> int:
        return int(tab.page.locator("#encounter").get_attribute("data-version") or 0)

    def settled(version: int) -> None:
        for tab in (pia, otto, nora):  # every screen shows the same step, live
            expect(tab.page.locator("#encounter")).to_have_attribute("data-version", str(version))

    def tap(tab: Tab, selector: str, *values: int) -> None:
        before = step_of(tab)
        script(*values)
        tab.page.locator(selector).click()
        try:
            settled(before + 1)
        except AssertionError:
            errors = tab.page.locator("#combat-error, .error").all_inner_texts()
            versions = {t.name: step_of(t) for t in (pia, otto, nora)}
            raise AssertionError(f"{selector} on {tab.name}'s screen: {errors} {versions} {tab.errors}") from None

    # The narrator sets up the combat on the ART page (laptop).
    n = nora.page
    n.goto(f"{base}{table}/systems/art")
    n.locator("details.art-setup > summary").click()
    n.get_by_label("Goblin", exact=True).check()
    n.get_by_label("Bands on the track").fill("6")
    n.get_by_label("Adventurers start in band").fill("1")
    n.get_by_label("Foes start in band").fill("1")
    n.locator("#cs-features").fill("3 rough rubble\n5 exit gate")
    n.get_by_role("button", name="Start the combat").click()
    n.locator("#open-combat").click()
    expect(n.locator("#encounter h1")).to_have_text("Combat: Goblin")
    url = n.url
    for tab in (pia, otto):
        tab.page.goto(url)
        expect(tab.page.locator("#combat-track")).to_be_visible()
    expect(pia.page.locator(f"#combat-initiative-{ids['Tom']}")).to_have_count(0)
    expect(pia.page.locator(".odds").first).to_contain_text("Chance of a bonus round")

    # Initiative from the phones: Maren Good, Tom Poor; the Goblin's Inferior stays the narrator's.
    tap(pia, f"#combat-initiative-{ids['Maren']}", face(7, "GD"))
    tap(otto, f"#combat-initiative-{ids['Tom']}", face(7, "PR"))
    expect(pia.page.locator("#combat-status")).to_contain_text("Round 1")
    expect(otto.page.locator("#combat-waiting")).to_contain_text("Waiting for Maren")
    assert "Inferior" not in pia.page.locator("#combat-order").inner_text()
    expect(nora.page.locator("#combat-order")).to_contain_text("Inferior")

    # Round 1. Maren attacks the Goblin (Good: its track takes Good), then rolls to move and moves a free band.
    expect(pia.page.locator("#combat-attack-panel .odds")).to_contain_text("the narrator knows the level")
    problems += check(pia, "your-turn", ["#combat-attack", "#combat-end-turn", "#combat-move-roll"])
    problems += check(otto, "waiting", [])
    assert otto.page.locator("#combat-turn").count() == 0  # only the acting player's phone has the buttons
    tap(pia, "#combat-attack", face(4, "GD"))
    expect(pia.page.locator("#combat-recent")).to_contain_text("Goblin takes Good damage")
    tap(pia, "#combat-move-roll", face(9, "PR"))
    tap(pia, "#combat-move-free-2")
    expect(otto.page.locator("[data-band='2'] .art-token")).to_contain_text("Maren")
    tap(pia, "#combat-end-turn")

    # Tom waits until after the Goblin; the Goblin attacks him; his Defense fails; he parries with his sword.
    otto.page.get_by_label("Wait, to act after").select_option(label="Goblin")
    tap(otto, "#combat-wait")
    expect(nora.page.locator("#combat-turn")).to_contain_text("Your turn, Goblin")
    nora.page.locator("#fa-target").select_option(str(ids["Tom"]))
    tap(nora, "#combat-foe-attack")
    expect(otto.page.locator("#combat-defend")).to_be_visible()
    assert pia.page.locator("#combat-defend").count() == 0
    tap(otto, "#combat-defend", face(3, "IN"))
    expect(otto.page.locator("#combat-pending")).to_contain_text("may parry Poor damage")
    expect(otto.page.locator("#combat-pending .odds")).to_contain_text("%")
    problems += check(otto, "parry", ["#combat-parry-0", "#combat-take"])
    tap(otto, "#combat-parry-0", face(7, "GD"))
    expect(otto.page.locator("#combat-recent")).to_contain_text("parried: no damage")
    tap(nora, "#combat-end-turn")
    expect(pia.page.locator("#combat-status")).to_contain_text("Round 2")

    # Round 2. Maren throws a grenade into band 1: it lands there; Fate says the Goblin is hit.
    pia.page.locator("#combat-more > summary").click()
    pia.page.locator("#aoe-band").select_option("1")
    pia.page.locator("#aoe-targets").fill("1")
    expect(pia.page.locator("#combat-more form:has(#aoe-band) .odds")).to_contain_text("%")
    tap(pia, "#combat-aoe", face(7, "PS"))
    expect(otto.page.locator("#combat-pending")).to_contain_text("The blast hits band 1")
    tap(pia, "#combat-aoe-hit", 100)  # Tom's Fate: Awesome; the Goblin's Poor is lower
    expect(nora.page.locator("#combat-recent")).to_contain_text("Goblin is hit")
    tap(pia, "#combat-end-turn")

    # Tom fumbles (Catastrophic attack) and rolls on the Fumble table.
    tap(otto, "#combat-attack", 1)
    expect(otto.page.locator("#combat-pending")).to_contain_text("fumbles")
    tap(otto, "#combat-fumble", 100)
    expect(pia.page.locator("#combat-recent")).to_contain_text("recovers fully")
    tap(otto, "#combat-end-turn")
    tap(nora, "#combat-end-turn")

    # Round 3. Maren moves back into the Goblin's band and finishes it.
    tap(pia, "#combat-move-roll", face(9, "PR"))
    tap(pia, "#combat-move-free-1")
    tap(pia, "#combat-attack", 100)
    expect(nora.page.locator("#combat-recent")).to_contain_text("every foe is defeated")
    expect(otto.page.locator(f"[data-fighter='{ids['Goblin']}']")).to_contain_text("defeated")
    nora.page.reload()  # a reconnecting screen shows the round, the turn and the track at once
    expect(nora.page.locator("#combat-status")).to_contain_text("Round 3")
    problems += check(nora, "narrator", ["#combat-end-turn"], width=1280)
    nora.page.locator("#combat-narrator > summary").click()
    tap(nora, "#combat-end")
    expect(pia.page.locator("#combat-status")).to_contain_text("The combat is over")

    # The ART page with the set-up form, on a phone.
    phone = tabs.open("nora-phone")
    sign_in(phone, base, "nora", next=f"{table}/systems/art")
    phone.page.locator("details.art-setup > summary").click()
    problems += check(phone, "setup", ["#combat-setup button[type=submit]"])

    # Every step is in the log, and the chain verifies.
    log = httpx2.get(f"{base}/api/campaigns/{campaign_id}/log", params={"limit": 500}, headers=who["nora"]).json()
    actions = [e["action"] for e in log["entries"] if e["action"] and e["action"].startswith("combat_")]
    for expected in (
        "combat_setup",
        "combat_initiative",
        "combat_attack",
        "combat_move_roll",
        "combat_move",
        "combat_wait",
        "combat_foe_attack",
        "combat_defend",
        "combat_parry",
        "combat_aoe",
        "combat_aoe_hit",
        "combat_fumble",
        "combat_end_turn",
        "combat_end",
    ):
        assert expected in actions, expected
    assert len(actions) == step_of(pia)  # one entry per step (version 1 is the set-up's)
    verify = pia.page.request.get(f"{base}{table}/verify")
    assert verify.status == 200 and "Intact" in verify.text()

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    assert tabs.errors() == [], "\n".join(tabs.errors())
    for tab in tabs.opened:
        tab.context.close()


def test_protecting_a_companion_and_playing_dead_on_the_phones(browser: Any, scripted: tuple[Any, Path]) -> None:
    """The Goblin attacks Maren before Tom has acted: Tom's phone offers to protect her (not Maren's); he jumps in,
    is hit and plays dead; the narrator's track says which foes are fooled, the phones do not."""
    server, faces = scripted
    tabs = Tabs(browser, server)
    base = tabs.base
    campaign_id, _who, ids = _old_mill(base, swords=False)
    table = f"/campaigns/{campaign_id}"
    pia, otto, nora = at_the_table(tabs, base, table)
    problems: list[str] = []

    def tap(tab: Tab, selector: str, *values: int) -> None:
        before = int(tab.page.locator("#encounter").get_attribute("data-version") or 0)
        faces.write_text(json.dumps(list(values)))
        tab.page.locator(selector).click()
        for t in (pia, otto, nora):
            expect(t.page.locator("#encounter")).to_have_attribute("data-version", str(before + 1))

    n = nora.page
    n.goto(f"{base}{table}/systems/art")
    n.locator("details.art-setup > summary").click()
    n.get_by_label("Goblin", exact=True).check()
    n.get_by_label("Adventurers start in band").fill("1")
    n.get_by_label("Foes start in band").fill("1")
    n.get_by_role("button", name="Start the combat").click()
    n.locator("#open-combat").click()
    url = n.url
    for tab in (pia, otto):
        tab.page.goto(url)
    tap(pia, f"#combat-initiative-{ids['Maren']}", face(7, "GD"))
    tap(otto, f"#combat-initiative-{ids['Tom']}", face(7, "PR"))
    tap(pia, "#combat-end-turn")
    otto.page.get_by_label("Wait, to act after").select_option(label="Goblin")
    tap(otto, "#combat-wait")
    nora.page.locator("#fa-target").select_option(str(ids["Maren"]))
    tap(nora, "#combat-foe-attack")
    protect = f"#combat-protect-{ids['Tom']}"
    expect(otto.page.locator(protect)).to_be_visible()
    expect(otto.page.locator("#combat-pending .odds")).to_contain_text("Chance to get in front")
    assert pia.page.locator("[id^=combat-protect-]").count() == 0
    problems += check(otto, "protect", [protect])
    tap(otto, protect, 100)
    expect(otto.page.locator("#combat-recent")).to_contain_text("Tom jumps in front of Maren")
    tap(otto, "#combat-defend", 1)
    play_dead = f"#combat-play-dead-{ids['Tom']}"
    expect(otto.page.locator(play_dead)).to_be_visible()
    assert pia.page.locator("[id^=combat-play-dead-]").count() == 0
    problems += check(otto, "play-dead", [play_dead])
    tap(otto, play_dead, 100)
    expect(otto.page.locator(f"[data-fighter='{ids['Tom']}']")).to_contain_text("playing dead")
    expect(nora.page.locator(f"[data-fighter='{ids['Tom']}']")).to_contain_text("fools: Goblin")
    assert "fools:" not in otto.page.locator("#combat-track").inner_text()
    problems += check(otto, "playing-dead", [])

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    assert tabs.errors() == [], "\n".join(tabs.errors())
    for tab in tabs.opened:
        tab.context.close()
