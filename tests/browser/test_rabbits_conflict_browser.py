"""A rabbit conflict played on two real phones (Chromium, 390x844) with the narrator on a laptop (1280), against a
real server with its real dice: the narrator sets it up on the Rabbits page, each captain rolls disposition from
the phone, each team scripts its volley in private (the other phone and the laptop see only "locked"), the
actions are revealed and rolled one by one, live on every screen, volley after volley until a team is at 0, and
the narrator records the compromise and a condition, which lands on the sheet. Every commitment checks.
Screenshots: test-artifacts/screenshots/rabbits-conflict-*.png. Skipped unless TEST_CHROMIUM is set."""

from __future__ import annotations

import re

import httpx2
import pytest
from playwright.sync_api import expect

from app.rolls import chain

from .pages import Tab, Tabs, api_invite, api_user, at_the_table, character_named, check_page

pytestmark = [pytest.mark.browser, pytest.mark.server]

# A chase (Scout for disposition and Attack, Pathfinder for Defend): good scouts with little Nature make short
# conflicts whatever the dice, and nobody rolls Nature (so nobody is taxed into retiring mid-test).
CLOVER = {"nature": 2, "will": 3, "health": 3, "skills": {"Scout": 6, "Pathfinder": 6}}
HAZEL = {"nature": 2, "will": 3, "health": 3, "skills": {"Scout": 6, "Pathfinder": 6}}
VOLLEYS = 12


def _campaign(base: str) -> tuple[int, dict[str, dict[str, str]], dict[str, int]]:
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    r = httpx2.post(base + "/api/campaigns", json={"name": "The Warren", "systems": ["rabbits"]}, headers=who["nora"])
    assert r.status_code == 201, r.text
    campaign_id = r.json()["id"]
    for name in ("pia", "otto"):
        code = api_invite(base, campaign_id, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
    ids = {}
    for player, name, sheet in (("pia", "Clover", CLOVER), ("otto", "Hazel", HAZEL)):
        r = httpx2.post(
            f"{base}/api/campaigns/{campaign_id}/characters",
            headers=who[player],
            json={"name": name, "system": "rabbits", "sheet": sheet},
        )
        assert r.status_code == 201, r.text
        ids[name] = r.json()["id"]
    return campaign_id, who, ids


def _step(tab: Tab) -> str:
    return tab.page.locator("#encounter > p.muted").last.inner_text()


def _click_and_sync(tab: Tab, selector: str, everyone: list[Tab]) -> None:
    """Tap a button; the tapping page shows the new step at once, every other screen gets it live."""
    before = _step(tab)
    tab.page.locator(selector).click()
    expect(tab.page.locator("#encounter > p.muted").last).not_to_have_text(before)
    step = _step(tab)
    for other in everyone:
        expect(other.page.locator("#encounter > p.muted").last).to_have_text(step)


def _script(tab: Tab, key: str, action: str, everyone: list[Tab], shot: str = "") -> list[str]:
    page = tab.page
    expect(page.locator("#encounter")).to_have_attribute("data-phase", "script")
    for n in (1, 2, 3):
        page.locator(f'#rc-script-{key} input[name="action_{n}"][value="{action}"]').check()
    problems = check_page(tab, shot, [f"#rc-lock-{key}", f"#rc-save-{key}"]) if shot else []
    _click_and_sync(tab, f"#rc-lock-{key}", everyone)
    expect(page.locator(f"form#rc-script-{key}")).to_have_count(0)  # locked (or, for the last team, revealed)
    return problems


def test_two_phones_and_a_narrator_play_a_conflict_to_its_compromise(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who, ids = _campaign(base)
    table = f"/campaigns/{campaign_id}"
    pia, otto, nora = at_the_table(tabs, base, table)
    problems: list[str] = []

    # The narrator sets the conflict up on the Rabbits page.
    page = nora.page
    page.goto(f"{base}{table}/systems/rabbits")
    page.locator("#conflict-setup summary").click()
    page.get_by_label("Type of conflict").select_option("chase")
    page.locator("#cs-a-name").fill("Warren")
    page.locator("#cs-a-goal").fill("Keep the burrow")
    page.locator(f'input[name="a_members"][value="{ids["Clover"]}"]').check()
    page.locator("#cs-b-name").fill("Raiders")
    page.locator("#cs-b-goal").fill("Take the clover field")
    page.locator(f'input[name="b_members"][value="{ids["Hazel"]}"]').check()
    problems += check_page(nora, "rabbits-conflict-setup", ["#cs-start"], width=1280)
    page.locator("#cs-start").click()
    page.locator("#open-conflict").click()
    expect(page.locator("#encounter h1")).to_have_text("Chase: Warren vs Raiders")
    url = page.url
    for tab in (pia, otto):
        tab.page.goto(f"{base}{table}")
        tab.page.locator("#encounters a", has_text="Chase: Warren vs Raiders").click()
        expect(tab.page).to_have_url(url)

    # Each captain rolls disposition from the phone; the exact odds are on the form.
    expect(pia.page.locator("#rc-dispo-form-a .rc-odds").first).to_contain_text("%")
    problems += check_page(pia, "rabbits-conflict-disposition", ["#rc-roll-dispo-a"])
    expect(otto.page.locator("#rc-dispo-form-a")).to_have_count(0)
    for tab, key in ((pia, "a"), (otto, "b")):
        _click_and_sync(tab, f"#rc-roll-dispo-{key}", [pia, otto, nora])
        if tab.page.locator(f"#rc-dfate-{key}").count():  # a 6 and Fate in hand: the disposition waits
            problems += check_page(tab, "rabbits-conflict-disposition-fate", [f"#rc-dfate-{key}", f"#rc-dkeep-{key}"])
            _click_and_sync(tab, f"#rc-dfate-{key}", [pia, otto, nora])
        expect(nora.page.locator(f"#rc-dispo-{key}")).to_be_visible()  # live on the other screens
    for tab in (pia, otto, nora):
        expect(tab.page.locator("#encounter")).to_have_attribute("data-phase", "script")

    volley = 0
    shot_fate = False
    while volley < VOLLEYS:
        volley += 1
        action = "defend" if volley == 1 else "attack"  # the first volley cannot end it: Defend never lowers
        problems += _script(pia, "a", action, [pia, otto, nora], "rabbits-conflict-scripting" if volley == 1 else "")
        expect(pia.page.locator("#rc-script-a h2")).to_contain_text("locked")
        if volley == 1:
            problems += check_page(pia, "rabbits-conflict-locked", [])
        # Nobody outside team A sees its choices: only that it locked.
        for tab in (otto, nora):
            expect(tab.page.locator("#rc-team-a .rc-status")).to_contain_text("locked")
            expect(tab.page.locator("#rc-script-a")).to_have_count(0)
        _script(otto, "b", action, [pia, otto, nora])
        for tab in (pia, otto, nora):
            expect(tab.page.locator("#rc-exchange")).to_be_visible()
        for _ in range(3):
            if volley == 1 and pia.page.locator("#rc-roll-a").count():
                expect(pia.page.locator("#rc-roll-form-a .rc-odds")).to_contain_text("%")
                problems += check_page(pia, "rabbits-conflict-reveal", ["#rc-roll-a"])
            for tab, key in ((pia, "a"), (otto, "b")):
                if tab.page.locator(f"#rc-roll-{key}").count():
                    _click_and_sync(tab, f"#rc-roll-{key}", [pia, otto, nora])
                if tab.page.locator(f"#rc-fate-{key}").count():  # a 6 and Fate in hand: the roll waits
                    if not shot_fate:
                        problems += check_page(tab, "rabbits-conflict-fate", [f"#rc-fate-{key}", f"#rc-keep-{key}"])
                        shot_fate = True
                    _click_and_sync(tab, f"#rc-{'fate' if volley == 1 else 'keep'}-{key}", [pia, otto, nora])
            if pia.page.locator("#encounter").get_attribute("data-phase") != "resolve":
                break
        if pia.page.locator("#encounter").get_attribute("data-phase") == "end":
            break
    else:
        raise AssertionError(f"no team reached 0 in {VOLLEYS} volleys")
    assert volley >= 2

    # The end: the narrator sees the figures, records the compromise in words and a condition.
    for tab in (pia, otto, nora):
        expect(tab.page.locator("#rc-end")).to_be_visible()
    expect(pia.page.locator("#rc-end")).to_contain_text("narrator records")
    expect(nora.page.locator("#rc-end")).to_contain_text(re.compile(r"owes (none|minor|compromise|major)"))
    nora.page.get_by_label("The compromise, in words").fill("The field is trampled; both warrens go hungry")
    nora.page.locator(f'input[name="conditions"][value="{ids["Hazel"]}:tired"]').check()
    problems += check_page(nora, "rabbits-conflict-end-narrator", ["#rc-record"], width=1280)
    nora.page.locator("#rc-record").click()
    for tab in (pia, otto, nora):
        expect(tab.page.locator("#encounter")).to_have_attribute("data-phase", "over")
        expect(tab.page.locator(".rc-words")).to_have_text("The field is trampled; both warrens go hungry")
    problems += check_page(otto, "rabbits-conflict-end", [])
    hazel = character_named(base, campaign_id, who["otto"], "Hazel")
    assert "tired" in hazel["sheet"]["conditions"], hazel

    # Every revealed action matches its commitment, on the page and in an export checked offline.
    expect(pia.page.locator("#rc-opened .rc-ok").first).to_be_visible()
    assert pia.page.locator("#rc-opened .error").count() == 0
    export = httpx2.get(f"{base}/api/campaigns/{campaign_id}/export", headers=who["pia"]).json()
    checked = chain.verify_entries(export["entries"], head=export["head"])
    assert checked.ok and checked.commitments_checked == 6 * volley, checked.problems

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    assert tabs.errors() == [], "\n".join(tabs.errors())
