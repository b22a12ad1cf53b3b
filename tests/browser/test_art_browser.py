"""ART Engine pages in a phone-sized Chromium (390x844) against the seeded demo: the sheet with live exact odds,
the narrator's prompt answered, a roll with its follow-ups, the creation picker with an error next to its field,
the foe sheet and the narrator's ART page. Screenshots go to test-artifacts/screenshots/art-*.png."""

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


def test_an_adventurer_on_a_phone(tabs: Tabs, live_server: Any) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora_token = api_user(base, "nora", DEMO_PASSWORD, create=False)
    maren = character_named(base, campaign_id, nora_token, "Maren Quickhand")
    goblin = character_named(base, campaign_id, nora_token, "Goblin Chieftain")
    sheet_path = f"/campaigns/{campaign_id}/characters/{maren['id']}"
    problems: list[str] = []

    pia = tabs.open("pia")
    sign_in(pia, base, "pia", DEMO_PASSWORD, next=sheet_path)
    page = pia.page
    # The demo's climb: 73 on row 14 is Good.
    expect(page.locator("#art-last")).to_contain_text("Good")
    roll_form = page.locator("form:has(#tr-attr)")
    odds = roll_form.locator(".art-odds")
    page.locator("#tr-attr").select_option("STR")
    page.locator("#tr-diff").select_option("PR")
    expect(odds).to_contain_text("row 9 against Poor")
    roll_form.get_by_label("Climbing +4").check()
    roll_form.get_by_label("Rock climbing +1").check()
    expect(odds).to_contain_text("row 14 against Poor")
    expect(odds).to_contain_text("72.0%")
    problems += check_page(pia, "art-sheet", ["form:has(#tr-attr) button[type=submit]"])

    # The narrator's prompt (Agility vs Inferior) is answered on the sheet with its values locked.
    prompt = page.locator(".art-prompt")
    expect(prompt).to_contain_text("Agility")
    expect(prompt.locator(".art-odds")).to_contain_text("against Inferior")
    prompt.get_by_role("button", name="Roll").click()
    expect(page.locator(".result")).to_contain_text("rolls Agility")
    expect(page.locator(".art-prompt")).to_have_count(0)
    problems += check_page(pia, "art-rolled", [])
    page.reload()

    # A roll from the form; afterwards the last-roll card offers what the roll allows.
    page.locator("#tr-attr").select_option("CHA")
    page.locator("#tr-diff").select_option("GT")
    roll_form.get_by_role("button", name="Roll").click()
    expect(page.locator(".result")).to_contain_text("rolls Charm")
    expect(page.locator("#art-last")).to_contain_text("against Great")
    problems += check_page(pia, "art-last-roll", [])

    # Creation: the balanced picker, with an error next to its field.
    page.goto(f"{base}/campaigns/{campaign_id}/characters/new/art")
    page.get_by_label("Name").fill("Sela")
    problems += check_page(pia, "art-create", ["#create-form button.primary"])
    page.reload()
    page.get_by_label("Name").fill("Sela")
    page.get_by_role("button", name="Create").click()
    error = page.locator("#AGI_a ~ .field-error")
    expect(error).to_contain_text("Choose two numbers from the list for Agility")
    expect(page.get_by_label("Name")).to_have_value("Sela")
    problems += check_page(pia, "art-create-error", [])

    nora = tabs.open("nora")
    sign_in(nora, base, "nora", DEMO_PASSWORD, next=f"/campaigns/{campaign_id}/characters/{goblin['id']}")
    expect(nora.page.locator(".art-levels")).to_contain_text("Inferior")
    problems += check_page(nora, "art-foe", ["form button[type=submit]"])
    nora.page.goto(f"{base}{sheet_path}")
    expect(nora.page.locator(".art-call")).to_be_visible()
    nora.page.locator(".art-call > summary").click()  # folded at the top of the sheet: one tap opens it
    problems += check_page(nora, "art-sheet-narrator", [".art-call button[type=submit]"])
    nora.page.goto(f"{base}/campaigns/{campaign_id}/systems/art")
    problems += check_page(nora, "art-campaign", ["#system button[type=submit]"])
    nora.page.reload()
    nora.page.get_by_label(re.compile("Your table as CSV")).fill("row,CT\n0,1")
    nora.page.get_by_role("button", name="Use this table").click()
    expect(nora.page.locator("#csv ~ .field-error")).to_contain_text("header")
    problems += check_page(nora, "art-campaign-error", [])

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    errors = [
        e for e in tabs.errors() if "status of 422" not in e and "Code 422" not in e
    ]  # the refused forms, shown next to their field
    assert errors == [], "\n".join(errors)
