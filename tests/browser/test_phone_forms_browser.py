"""Refused forms on a phone (390x844): the first error comes into view and its field takes focus, whether HTMX
swapped the answer (New Cat, a form deep in the ART sheet) or the browser loaded a whole page answered 4xx (New
ART character, a plain form post). static/js/app.js (revealError) does it for every form. Screenshots:
test-artifacts/screenshots/refused-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .pages import DEMO_PASSWORD, SHOTS, Tabs, api_user, character_named, seed_demo, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]

# Where the first error is, where the focus is, and whether both can be seen without scrolling.
IN_VIEW = """
() => {
  const err = document.querySelector(".field-error") || document.querySelector(".error[role=alert]");
  const a = document.activeElement;
  const seen = el => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.height > 0;
  };
  return {
    error: err ? err.textContent.trim() : null,
    errorInView: !!err && seen(err),
    errorTop: err ? Math.round(err.getBoundingClientRect().top) : null,
    focused: a ? (a.id || a.tagName) : null,
    focusedTag: a ? a.tagName : null,
    focusedInView: !!a && a !== document.body && seen(a),
    invalid: a ? a.getAttribute("aria-invalid") : null,
    describedBy: a && err ? (a.getAttribute("aria-describedby") || "").split(" ").includes(err.id) : false,
    scrolled: Math.round(scrollY),
  };
}
"""


def brought_to(page: Page, name: str, field: str | None = None) -> dict[str, Any]:
    """The refused form's first error is on screen with its field focused (and described by it)."""
    expect(page.locator(".field-error, .error[role=alert]").first).to_be_visible()
    page.wait_for_timeout(300)  # htmx settles 20 ms after the swap; app.js acts on the settle
    state = page.evaluate(IN_VIEW)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"refused-{name}-390.png"))  # the first screen, as the player sees it
    assert state["errorInView"], state
    assert state["focusedInView"] and state["focusedTag"] in ("INPUT", "SELECT", "TEXTAREA"), state
    assert state["invalid"] == "true" and state["describedBy"], state
    if field is not None:
        assert state["focused"] == field, state
    return state


def _demo(tabs: Tabs, live_server: Any) -> tuple[str, int, Page]:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", DEMO_PASSWORD, next=f"/campaigns/{campaign_id}")
    return base, campaign_id, pia.page


def test_a_refused_new_cat_shows_its_first_error_and_focuses_its_field(tabs: Tabs, live_server: Any) -> None:
    base, campaign_id, page = _demo(tabs, live_server)
    page.goto(f"{base}/campaigns/{campaign_id}/characters/new/cat")
    page.locator("#name").fill("Whiskers")
    for field, value in {"human_name": "Sir Whiskers", "cat_name": "Whiskers", "secret_name": "Moonpaw"}.items():
        page.locator(f"#{field}").fill(value)
    # Five reputations, far down the page, filled in: the button is at the bottom. No ranks chosen: refused.
    page.locator("#rep_name_1").fill("Best mouser")
    page.locator("#rep_rank_1").select_option("3")
    button = page.get_by_role("button", name="Create the cat")
    button.scroll_into_view_if_needed()
    before = page.evaluate("() => Math.round(scrollY)")
    button.click()
    state = brought_to(page, "new-cat", field="rank_claws")
    assert state["scrolled"] < before, (before, state)  # it moved up to the error, not left at the button
    assert state["error"] == "Choose a rank for Claws.", state


def test_a_refused_new_art_character_page_shows_its_first_error(tabs: Tabs, live_server: Any) -> None:
    """A plain form post (no HTMX): the whole page comes back 422 and app.js reveals the error on load."""
    base, campaign_id, page = _demo(tabs, live_server)
    page.goto(f"{base}/campaigns/{campaign_id}/characters/new/art")
    page.locator("#name").fill("Ada")
    for code, (a, b) in {"AGI": ("5", "4"), "ALE": ("4", "3")}.items():
        page.locator(f"#{code}_a").select_option(a)
        page.locator(f"#{code}_b").select_option(b)
    button = page.get_by_role("button", name="Create", exact=True)
    button.scroll_into_view_if_needed()
    with page.expect_navigation():
        button.click()
    assert page.evaluate("() => document.body.hasAttribute('data-refused')")
    state = brought_to(page, "new-art")
    assert state["scrolled"] > 0 or state["errorTop"] < 844, state


def test_a_refused_form_deep_in_the_art_sheet_shows_its_error(tabs: Tabs, live_server: Any) -> None:
    """An HTMX form far down a long sheet (buying a skill without a name): the error and its field, on screen."""
    base, campaign_id, page = _demo(tabs, live_server)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    maren = character_named(base, campaign_id, nora, "Maren Quickhand")
    page.goto(f"{base}/campaigns/{campaign_id}/characters/{maren['id']}")
    expect(page.locator("form:has(#tr-attr) .art-odds")).not_to_be_empty()  # htmx is running
    form = page.locator("form:has(#bs-name)")
    details = page.locator("details:has(#bs-name)")
    details.locator("summary").click()
    form.get_by_role("button", name="Buy the skill").click()
    brought_to(page, "art-sheet-skill", field="bs-name")
