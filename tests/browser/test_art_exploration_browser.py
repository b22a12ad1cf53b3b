"""An ART exploration scene in real browsers against a real server: the narrator (a laptop) starts the scene on
the ART page, two players on phones (390x844) see the phase track; Pia declares an action with its exact chance
shown before she rolls, and Otto's phone and the narrator's laptop show the step live. Screenshots:
test-artifacts/screenshots/art-xp-*.png. Skipped unless TEST_CHROMIUM names a Chromium binary."""

from __future__ import annotations

import httpx2
import pytest
from playwright.sync_api import expect
from utils.art import balanced_fields

from .pages import Tabs, api_invite, api_user, check_page, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]


def _table(base: str) -> int:
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    r = httpx2.post(
        base + "/api/campaigns", json={"name": "The Sunken Library", "systems": ["art"]}, headers=who["nora"]
    )
    assert r.status_code == 201, r.text
    campaign_id = r.json()["id"]
    for name, hero in (("pia", "Maren"), ("otto", "Tom")):
        code = api_invite(base, campaign_id, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
        r = httpx2.post(
            f"{base}/api/campaigns/{campaign_id}/characters",
            headers=who[name],
            json={"name": hero, "system": "art", "sheet": balanced_fields()},
        )
        assert r.status_code == 201, r.text
    return campaign_id


def test_a_player_declares_and_the_others_see_it_live(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id = _table(base)
    table = f"/campaigns/{campaign_id}"
    nora = tabs.open("nora", desktop=True)
    pia, otto = tabs.open("pia"), tabs.open("otto")
    for tab in (nora, pia, otto):
        sign_in(tab, base, tab.name, next=table)
    problems: list[str] = []

    # The narrator starts the scene with both adventurers on the track.
    nora.page.goto(f"{base}{table}/systems/art")
    scenes = nora.page.locator("#art-xp-scenes")
    scenes.get_by_label("Scene").fill("The reading room")
    scenes.get_by_role("button", name="Start the scene").click()
    scenes.get_by_role("link", name="Open the new scene").click()
    expect(nora.page.locator("#encounter h1")).to_have_text("The reading room")
    scene_url = nora.page.url
    for tab in (pia, otto):
        tab.page.goto(scene_url)
    expect(pia.page.locator(".art-xp-turn h2")).to_have_text("Your turn, Maren")
    expect(otto.page.locator(".art-xp-turn h2")).to_have_text("Your turn, Tom")
    expect(nora.page.locator("details.art-xp-for > summary")).to_have_count(2)

    # Pia declares; the exact chance is on the form before she rolls.
    page = pia.page
    form = page.locator(".art-xp-declare form")
    form.get_by_label("What does Maren do?").fill("Search the shelves")
    form.get_by_label("Attribute").select_option("DEX")
    form.get_by_label("Difficulty").select_option("PS")
    expect(form.locator(".art-odds")).to_contain_text("row 7 against Passable")
    expect(form.locator(".art-odds")).to_contain_text("%")
    problems += check_page(
        pia, "art-xp-acting", [".art-xp-declare form button[type=submit]", ".art-xp-turn > form button[type=submit]"]
    )
    form.get_by_role("button", name="Roll").click()
    expect(page.locator(".result")).to_contain_text("Search the shelves")
    expect(page.locator("#art-xp-waiting")).to_have_text("Waiting for Tom…")
    expect(page.locator(".art-xp-turn")).to_have_count(0)  # no buttons for a waiting player

    # Otto's phone and the narrator's laptop show the step at once (the live encounter event).
    for tab in (otto, nora):
        expect(tab.page.locator("#art-xp-who")).to_contain_text("Search the shelves")
        expect(tab.page.locator(".art-xp-recent")).to_contain_text("Maren: Search the shelves")
    expect(otto.page.locator(".art-xp-turn h2")).to_have_text("Your turn, Tom")
    problems += check_page(pia, "art-xp-waiting", [])
    problems += check_page(otto, "art-xp-other", [".art-xp-turn > form button[type=submit]"])
    problems += check_page(nora, "art-xp-narrator", [], width=1280)

    # The other kinds of declaration fold away on the phone; open, each has its own chance.
    otto.page.get_by_text("Shadow or track someone").click()
    otto.page.get_by_text("Travel", exact=True).click()
    expect(otto.page.locator(".art-xp-more .art-odds").first).to_contain_text("Chance of success")
    problems += check_page(otto, "art-xp-more", [".art-xp-more button[type=submit]"])

    # Otto lets a phase go by; a phone that reloads sees the current track at once.
    otto.page.get_by_role("button", name="Let a phase go by").click()
    expect(otto.page.locator(".art-xp-recent li").last).to_contain_text("Tom lets 1 phase")  # oldest first
    pia.page.reload()
    expect(pia.page.locator(".art-xp-recent li").last).to_contain_text("Tom lets 1 phase")

    # The players find the running scene on the ART page.
    pia.page.goto(f"{base}{table}/systems/art")
    expect(pia.page.locator("#art-xp-scenes a")).to_have_text("The reading room")
    problems += check_page(pia, "art-xp-campaign", ["#art-xp-scenes a"])

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    assert tabs.errors() == [], "\n".join(tabs.errors())
