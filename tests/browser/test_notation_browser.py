"""The dice box's odds line on a phone (390x844): typing Roll20 notation shows how it was read, in words, before the
roll, in the reader's language; a bad operator shows the column; the roll's log line marks each die; the notation
reference page fits. Screenshots: test-artifacts/screenshots/notation-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .pages import SHOTS, Tabs, api_campaign, api_user, check_page, page_problems, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]


def test_the_odds_line_reads_the_notation_before_the_roll(tabs: Tabs) -> None:
    base = tabs.base
    nora, pia = api_user(base, "nora"), api_user(base, "pia")
    campaign = api_campaign(base, nora, [pia])
    table = f"/campaigns/{campaign}"
    problems: list[str] = []
    for lang, read_as, words, average in (
        ("en", "Read as:", "each die showing 4 or more adds another die", "27.48"),
        ("de", "Gelesen als:", "4 oder mehr", "27,48"),
        ("da", "Læst som:", "4 eller mere", "27,48"),
    ):
        tab = tabs.open(f"pia-{lang}", locale=lang, extra_http_headers={"Accept-Language": lang})
        sign_in(tab, base, "pia", next=table)
        page = tab.page
        box = page.locator("#dicebox")
        box.locator("#expression").fill("3d6!>4 + {1d8!,1d6!}kh1 # sneak")
        odds = page.locator("#odds")
        expect(odds).to_contain_text(read_as)
        expect(odds).to_contain_text(words)
        expect(odds).to_contain_text(average)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#dicebox").screenshot(path=str(SHOTS / f"notation-odds-{lang}-390.png"))
        page.evaluate("() => document.querySelectorAll('[style=\"\"]').forEach(e => e.removeAttribute('style'))")
        problems += page_problems(page, f"notation-odds-{lang}")
        if lang == "en":
            box.locator("#expression").fill("3d6x")
            expect(odds).to_contain_text("at column 4")
            box.locator("#expression").fill("4d6r1kh3 [str] # stats")
            expect(odds).to_contain_text("reroll a die showing exactly 1")
            box.get_by_role("button", name="Roll", exact=True).click()
            expect(page.locator("#log-entries li.entry").first).to_contain_text("[str]")
            expect(page.locator("#log-entries li.entry").first).to_contain_text("stats")
            page.locator("#dicebox").screenshot(path=str(SHOTS / "notation-rolled-en-390.png"))
            page.locator("#log-entries li.entry").first.screenshot(path=str(SHOTS / "notation-log-en-390.png"))
        assert not tab.csp_violations(), tab.csp_violations()
    reference = tabs.open("reader")
    reference.page.goto(base + "/help/notation")
    problems += check_page(reference, "notation-reference", [])
    assert not reference.csp_violations(), reference.csp_violations()
    assert not problems, problems
