"""The first two minutes of an ART fight, as a new group plays it (issue 21, points 3-6): Pia makes Maren with the
balanced method and Otto makes Tom with the random method, both through the creation page on a 390x844 phone,
each with the starting weapon the form offers; Vex, made the old way without any gear, takes one up on the combat
page. The Goblin starts four bands away. Every phone sees the whole track and the Goblin within 390 px, the attack
target is the Goblin (never a teammate) unless an ally is picked on purpose, moves offer only reachable bands
(the narrator's foe too), the AOE form fits, and no step stalls. No CSP violation. Screenshots:
test-artifacts/screenshots/art-first-fight-*.png."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect
from utils.art import FOE, PAIRS, balanced
from utils.art_fight import face
from utils.dice_server import scripted_server

from .pages import TAP, Tab, Tabs, api_invite, api_user, at_the_table, page_problems, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.server]

WIDTH = 390


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    with scripted_server(tmp_path, "fight.db") as started:
        yield started


def check(tab: Tab, name: str, buttons: list[str]) -> list[str]:
    """Screenshot; nothing wider than the phone (the range track included: no sideways scrolling anywhere); no
    serious accessibility violation; buttons big enough to tap."""
    page = tab.page
    screenshot(page, f"art-first-fight-{name}-{WIDTH}")
    page.evaluate("() => document.querySelectorAll('[style=\"\"]').forEach(e => e.removeAttribute('style'))")
    problems = page_problems(page, f"art-first-fight-{name}", WIDTH)
    for selector in buttons:
        for i in range(page.locator(selector).count()):
            box = page.locator(selector).nth(i).bounding_box()
            if box and box["height"] < TAP:
                problems.append(f"{name}: {selector} is {box['height']:.0f}px tall")
    return problems


def whole_track_in_view(tab: Tab, name: str) -> list[str]:
    """Every band of the track, and every token on it, lies within the 390 px of the screen, at once."""
    problems = []
    page = tab.page
    page.locator("#combat-track").scroll_into_view_if_needed()
    for what in (".art-band", ".art-token"):
        for i in range(page.locator(f"#combat-track {what}").count()):
            box = page.locator(f"#combat-track {what}").nth(i).bounding_box()
            assert box is not None
            if box["x"] < 0 or box["x"] + box["width"] > WIDTH + 0.5:
                label = page.locator(f"#combat-track {what}").nth(i).inner_text().strip()
                problems.append(f"{name}: {what} {label!r} spans x {box['x']:.0f}-{box['x'] + box['width']:.0f}")
    return problems


# The width a select needs to show its longest option whole (the text, its padding, the arrow), and what it has.
SELECT_NEEDS = """
el => { const c = document.createElement("canvas").getContext("2d"); const cs = getComputedStyle(el);
  c.font = cs.font; const text = Math.max(...Array.from(el.options).map(o => c.measureText(o.text).width));
  return {need: Math.ceil(text + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 18),
          have: el.clientWidth}; }
"""


def cut_off(tab: Tab, name: str, *selects: str) -> list[str]:
    """Selects whose longest option does not fit (the text is cut off on a phone)."""
    problems = []
    for selector in selects:
        size = tab.page.locator(selector).evaluate(SELECT_NEEDS)
        if size["need"] > size["have"]:
            problems.append(f"{name}: {selector} needs {size['need']}px to show its options, has {size['have']}px")
    return problems


def selected_target(tab: Tab) -> str:
    return tab.page.locator("#atk-target option:checked").inner_text()


def test_the_first_fight_from_new_characters_on_phones(browser: Any, scripted: tuple[Any, Path]) -> None:
    server, faces = scripted
    tabs = Tabs(browser, server)
    base = tabs.base
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    r = httpx2.post(base + "/api/campaigns", json={"name": "The Crossing", "systems": ["art"]}, headers=who["nora"])
    campaign_id = r.json()["id"]
    for name in ("pia", "otto"):
        code = api_invite(base, campaign_id, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
    # Vex: an existing character made before starting gear, with none (the API lists gear itself).
    fields = {k: v for k, v in balanced("Vex Marlow").items() if k != "name"}
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters",
        headers=who["pia"],
        json={"name": "Vex Marlow", "system": "art", "sheet": fields},
    )
    assert r.status_code == 201, r.text
    vex = r.json()["id"]
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters",
        headers=who["nora"],
        json={"name": "Goblin", "system": "art", "kind": "npc", "sheet": dict(FOE)},
    )
    goblin = r.json()["id"]
    table = f"/campaigns/{campaign_id}"
    pia, otto, nora = at_the_table(tabs, base, table)
    problems: list[str] = []

    def script(*values: int) -> None:
        faces.write_text(json.dumps(list(values)))

    # Maren, balanced, on Pia's phone: the form's starting gear is a Blade and armor unless changed.
    p = pia.page
    p.goto(f"{base}{table}/characters/new/art?what=adventurer&method=balanced")
    p.locator("#name").fill("Maren")
    for code, (a, b) in PAIRS.items():
        p.locator(f"#{code}_a").select_option(str(a))
        p.locator(f"#{code}_b").select_option(str(b))
    expect(p.locator("#starting_weapon option:checked")).to_contain_text("Blade")
    problems += check(pia, "create-balanced", ["#create-form button.primary"])
    p.locator("#create-form button.primary").click()
    expect(p.locator("main")).to_contain_text("Blade")
    maren = int(p.url.rsplit("/", 1)[1])

    # Tom, random, on Otto's phone, with a bow; his attributes are rolled on the sheet (all 7s: Middle Class).
    o = otto.page
    o.goto(f"{base}{table}/characters/new/art?what=adventurer&method=random")
    o.locator("#name").fill("Tom")
    o.locator("#starting_weapon").select_option("Bow")
    problems += check(otto, "create-random", ["#create-form button.primary"])
    o.locator("#create-form button.primary").click()
    script(*([4, 3] * 10))
    o.get_by_role("button", name="Roll all the rest").click()
    expect(o.locator("main")).to_contain_text("Middle Class")
    expect(o.locator("main")).to_contain_text("Bow")
    tom = int(o.url.rsplit("/", 1)[1])

    # The narrator sets up the combat: 8 bands, the adventurers in band 1, the Goblin four bands away in band 5.
    n = nora.page
    n.goto(f"{base}{table}/systems/art")
    n.locator("details.art-setup > summary").click()
    n.get_by_label("Goblin", exact=True).check()
    for cid in (maren, tom, vex):  # every adventurer is ticked already
        expect(n.locator(f"#combat-setup input[name=adventurers][value='{cid}']")).to_be_checked()
    n.get_by_label("Bands on the track").fill("8")
    n.get_by_label("Adventurers start in band").fill("1")
    n.get_by_label("Foes start in band").fill("5")
    n.get_by_role("button", name="Start the combat").click()
    n.locator("#open-combat").click()
    url = n.url
    for tab in (pia, otto):
        tab.page.goto(url)
        expect(tab.page.locator("#combat-track")).to_be_visible()

    def version(tab: Tab) -> int:
        return int(tab.page.locator("#encounter").get_attribute("data-version") or 0)

    def tap(tab: Tab, selector: str, *values: int) -> None:
        before = version(tab)
        script(*values)
        tab.page.locator(selector).click()
        try:
            for t in (pia, otto, nora):
                expect(t.page.locator("#encounter")).to_have_attribute("data-version", str(before + 1))
        except AssertionError:
            errors = tab.page.locator("#combat-error, .error").all_inner_texts()
            raise AssertionError(f"{selector} on {tab.name}'s screen stalled: {errors} {tab.errors}") from None

    problems += whole_track_in_view(otto, "initiative")
    expect(otto.page.locator(f"[data-fighter='{goblin}']")).to_be_in_viewport()
    tap(pia, f"#combat-initiative-{maren}", face(7, "GD"))
    tap(otto, f"#combat-initiative-{tom}", face(7, "PR"))
    tap(pia, f"#combat-initiative-{vex}", face(7, "IN"))
    expect(p.locator("#combat-status")).to_contain_text("Maren's turn")

    # Maren: her Blade is ready, the target is the Goblin (not a teammate); she runs toward it. The bands
    # offered are the ones her roll reaches: 3 bands with the action, 1 free; never band 5 (four away).
    expect(p.locator("#atk-weapon option:checked")).to_contain_text("Blade")
    assert selected_target(pia).startswith("Goblin")
    assert p.locator("#atk-target optgroup").nth(1).get_attribute("label") == "Allies (friendly fire)"
    expect(p.locator("#combat-attack-panel .odds")).to_contain_text(
        "Cannot attack: Goblin is out of reach of Blade (4 bands away)"
    )
    problems += check(pia, "maren-turn", ["#combat-attack", "#combat-move-roll", "#combat-end-turn"])
    problems += whole_track_in_view(pia, "maren-turn")
    tap(pia, "#combat-move-roll", face(9, "GD"))
    offered = sorted(
        p.locator("#combat-turn .art-band-buttons button").evaluate_all("buttons => buttons.map(b => b.id)")
    )
    # the bands the free move reaches are not offered again for the action (issue 35)
    assert offered == sorted(["combat-move-free-0", "combat-move-free-2", "combat-move-3", "combat-move-4"]), offered
    tap(pia, "#combat-move-4")
    expect(otto.page.locator("[data-band='4'] .art-token")).to_contain_text("Maren")
    tap(pia, "#combat-end-turn")

    # Tom: his bow reaches the Goblin four bands off; it is preselected; he hits it.
    expect(o.locator("#combat-turn")).to_contain_text("Your turn, Tom")
    assert selected_target(otto).startswith("Goblin")
    expect(o.locator("#atk-weapon option:checked")).to_contain_text("Bow")
    o.locator("#combat-more > summary").click()  # the AOE form fits the phone too
    box = o.locator("#aoe-weapon").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, box
    problems += cut_off(otto, "tom-turn", "#aoe-weapon", "#atk-target", "#atk-weapon")
    problems += check(otto, "tom-turn", ["#combat-attack", "#combat-aoe"])
    problems += whole_track_in_view(otto, "tom-turn")
    tap(otto, "#combat-attack", face(7, "GD"))
    expect(o.locator("#combat-recent")).to_contain_text("Goblin takes Good damage")
    tap(otto, "#combat-end-turn")

    # Vex has no weapon at all: the Attack panel offers the starting weapon she lacks; then she shoots.
    expect(p.locator("#combat-turn")).to_contain_text("Your turn, Vex Marlow")
    assert "a free action below" not in p.locator("#combat-turn").inner_text()
    p.locator("#arm-class").select_option("Bow")
    problems += check(pia, "vex-arms", ["#combat-arm"])
    tap(pia, "#combat-arm")
    expect(p.locator("#combat-recent")).to_contain_text("takes up the starting weapon")
    assert selected_target(pia).startswith("Goblin")
    tap(pia, "#combat-attack", face(5, "PT"))
    tap(pia, "#combat-end-turn")

    # The Goblin (Poor Agility: one band) may go to band 4 or 6 only; the narrator moves it next to Maren.
    expect(n.locator("#combat-turn")).to_contain_text("Your turn, Goblin")
    assert n.locator("#fm-band option").all_inner_texts() == ["4", "6"]
    n.locator("#fm-band").select_option("4")
    tap(nora, "#combat-foe-move")
    tap(nora, "#combat-end-turn")

    # Round 2: Maren and the Goblin share band 4; she attacks it with the Blade.
    expect(p.locator("#combat-status")).to_contain_text("Round 2")
    assert selected_target(pia).startswith("Goblin")
    expect(p.locator("#combat-attack-panel .odds")).to_contain_text("the narrator knows the level")
    problems += whole_track_in_view(pia, "round-2")
    expect(pia.page.locator(f"[data-fighter='{goblin}']")).to_be_in_viewport()
    tap(pia, "#combat-attack", face(4, "GD"))
    expect(o.locator("#combat-recent")).to_contain_text("Goblin takes Good damage")
    problems += check(pia, "round-2", ["#combat-end-turn"])

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    assert tabs.errors() == [], "\n".join(tabs.errors())
    for tab in tabs.opened:
        tab.context.close()
