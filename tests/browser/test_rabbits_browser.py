"""Rabbits pages in a phone-sized Chromium (390x844) against the seeded demo: the sheet with the roll dialog and
its live odds, Fate on the demo's roll, a test rolled, the creation form with an error, the narrator's pages.
Screenshots go to test-artifacts/screenshots/rabbits-*.png."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .pages import (
    DEMO_PASSWORD,
    Tabs,
    api_user,
    character_named,
    check_page,
    seed_demo,
    sign_in,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]


def test_a_rabbit_on_a_phone(tabs: Tabs, live_server: Any) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    pia_token = api_user(base, "pia", DEMO_PASSWORD, create=False)
    clover = character_named(base, campaign_id, pia_token, "Clover Quickfoot")
    sheet_path = f"/campaigns/{campaign_id}/characters/{clover['id']}"
    problems: list[str] = []

    pia = tabs.open("pia")
    sign_in(pia, base, "pia", DEMO_PASSWORD, next=sheet_path)
    page = pia.page
    odds = page.locator("#rabbits-test .rabbits-odds")
    expect(odds).to_contain_text("to pass")
    expect(page.locator("#rabbits-last")).to_contain_text("failed")
    problems += check_page(pia, "rabbits-sheet", ["#rabbits-test button[type=submit]", "#rabbits-last button"])

    # The dialog: choosing a wise adds a die and the odds follow.
    page.locator("#test-skill").select_option("Scout")
    page.locator("#test-ob").fill("3")
    expect(odds).to_contain_text("3D vs Ob 3")
    page.locator("#rabbits-test summary", has_text="Add dice").click()
    page.locator("#test-wise").select_option("Fox-wise")
    expect(odds).to_contain_text("4D vs Ob 3")
    expect(odds).to_contain_text("Wise +1")
    problems += check_page(pia, "rabbits-dialog", ["#rabbits-test button[type=submit]"])

    # Fate on the demo's roll (it showed two 6s): the follow-up rerolls them on the same roll.
    page.get_by_role("button", name=re.compile("Spend Fate")).click()
    expect(page.locator(".result")).to_contain_text("spent Fate")
    expect(page.get_by_role("button", name=re.compile("Spend Fate"))).to_have_count(0)
    problems += check_page(pia, "rabbits-after-fate", [])
    page.reload()

    page.locator("#test-skill").select_option("Scout")
    page.locator("#test-ob").fill("1")
    page.get_by_role("button", name="Roll the test").click()
    expect(page.locator(".result")).to_contain_text("tested Scout")
    problems += check_page(pia, "rabbits-rolled", ["#rabbits-test button[type=submit]"])

    # Creation: an error next to its field.
    page.goto(f"{base}/campaigns/{campaign_id}/characters/new/rabbits")
    page.get_by_label("Name").fill("Bramble")
    page.locator("#ab-nature").evaluate("e => e.removeAttribute('max')")
    page.locator("#ab-nature").fill("9")
    page.get_by_role("button", name="Create the rabbit").click()
    expect(page.locator("#ab-nature + .field-error")).to_contain_text("Nature must be from 1 to 7")
    problems += check_page(pia, "rabbits-create-error", ["#create-form button.primary"])

    nora = tabs.open("nora")
    sign_in(nora, base, "nora", DEMO_PASSWORD, next=sheet_path)
    expect(nora.page.locator("#rabbits-call summary")).to_be_visible()
    problems += check_page(nora, "rabbits-sheet-narrator", [])
    nora.page.goto(f"{base}/campaigns/{campaign_id}/systems/rabbits")
    nora.page.get_by_label("Whose turn").select_option("players")
    nora.page.locator("form").filter(has=nora.page.get_by_label("Whose turn")).get_by_role(
        "button", name="Save"
    ).click()
    expect(nora.page.locator("#system .result")).to_contain_text("players' turn")
    problems += check_page(nora, "rabbits-campaign", ["#system button.primary"])

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    # The creation form's deliberate mistake is answered with a 422, which Chromium logs; nothing else may be.
    errors = [e for e in tabs.errors() if "status of 422" not in e]
    assert errors == [], "\n".join(errors)
