"""Taps on a phone (390x844, issue 21): every control on the main pages is a 44x44 css px target, a destructive
one-tap button asks first, and an invite leads a new player to create an account (the password rule stated).

The tap-target check measures every visible link, button, field, select, <summary> and [role=button] with all
<details> opened; a checkbox or radio counts by its label (the row a thumb taps: label.check, 44px tall). The one
allow-list: links inside running text (computed display `inline`, e.g. "Have an account? Sign in"), which a
paragraph's line height sets, as WCAG 2.5.8's inline exception allows."""

from __future__ import annotations

import re
from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect

from .pages import DEMO_PASSWORD, TAP, Tab, Tabs, api_user, check_page, seed_demo, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]

SMALL_TARGETS = """
(tap) => {
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const describe = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.getAttribute("name") ? "[name=" + el.getAttribute("name") + "]" : "") +
    " '" + (el.textContent || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 40) + "'";
  const small = [], counted = new Set();
  document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]")
    .forEach(el => {
      if (!shown(el) || el.closest(".sr-only")) return;
      if (el.tagName === "A" && getComputedStyle(el).display === "inline") return;  // a link in running text
      let box = el;
      if (el.matches("input[type=checkbox], input[type=radio]")) box = el.closest("label") || el.labels[0] || el;
      if (counted.has(box)) return;
      counted.add(box);
      const r = box.getBoundingClientRect();
      if (r.width < tap - 0.5 || r.height < tap - 0.5)
        small.push(describe(el) + (box !== el ? " (its label)" : "") + ": " + Math.round(r.width) + "x" +
                   Math.round(r.height));
    });
  return small;
}
"""


def small_targets(tab: Tab, path: str) -> list[str]:
    """The page as it is now (every <details> opened): the controls smaller than a 44x44 target."""
    tab.page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    return [f"{tab.name} {path}: {t}" for t in tab.page.evaluate(SMALL_TARGETS, TAP)]


def test_every_control_on_the_main_pages_is_a_44px_target(tabs: Tabs, live_server: Any) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    r = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=nora)
    assert r.status_code == 200, r.text
    sheets = [f"/campaigns/{campaign_id}/characters/{c['id']}" for c in r.json()["characters"]]
    code = httpx2.post(f"{base}/api/campaigns/{campaign_id}/invites", json={}, headers=nora).json()["code"]
    pages = [
        "/campaigns",
        f"/campaigns/{campaign_id}",
        "/account",
        "/help",
        *sheets,
        *(f"/campaigns/{campaign_id}/systems/{s}" for s in ("cat", "catfight", "art", "rabbits")),
    ]
    small: list[str] = []
    visitor = tabs.open("visitor")
    for path in ("/", "/signin", "/signup", f"/join/{code}"):
        visitor.page.goto(base + path)
        small += small_targets(visitor, path)
    for who in ("pia", "nora"):
        tab = tabs.open(who)
        sign_in(tab, base, who, DEMO_PASSWORD, next="/campaigns")
        extra = [f"/campaigns/{campaign_id}/narrator"] if who == "nora" else []
        encounters: list[str] = []
        for path in pages + extra:
            tab.page.goto(base + path)
            expect(tab.page.locator("main")).to_be_visible()
            encounters += re.findall(r'href="(/campaigns/\d+/encounters/\d+)"', tab.page.content())
            small += small_targets(tab, path)
        for path in sorted(set(encounters)):  # the duels and fights the demo has running
            tab.page.goto(base + path)
            small += small_targets(tab, path)
    assert not small, "\n".join(small)


def test_ending_the_session_asks_first(tabs: Tabs, live_server: Any) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora = tabs.open("nora")
    sign_in(nora, base, "nora", DEMO_PASSWORD, next=f"/campaigns/{campaign_id}")
    page = nora.page
    page.locator("#session-panel").get_by_role("button", name="Start session").click()  # no question: nothing lost
    end = page.locator("#session-panel").get_by_role("button", name="End session")
    expect(end).to_be_visible()
    nora.accept_dialogs = False  # "no": nothing happens
    end.click()
    page.wait_for_timeout(500)
    assert nora.dialogs == ["End the session for everyone?"]
    expect(end).to_be_visible()
    nora.accept_dialogs = True  # "yes": the session ends
    end.click()
    expect(page.locator("#session-panel").get_by_role("button", name="Start session")).to_be_visible()
    assert len(nora.dialogs) == 2


def test_an_invite_leads_a_new_player_to_create_an_account(tabs: Tabs, live_server: Any) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    code = httpx2.post(f"{base}/api/campaigns/{campaign_id}/invites", json={}, headers=nora).json()["code"]
    new = tabs.open("newcomer")
    new.page.goto(f"{base}/join/{code}")
    primary = new.page.locator("main a.button.primary")
    expect(primary).to_have_text("Create an account")
    expect(new.page.locator("main a.button.secondary")).to_have_text("Sign in to join")
    problems = check_page(new, "invite-new-player", ["main a.button"])
    primary.click()
    expect(new.page.locator("#password-help")).to_have_text(re.compile(r"^At least 8 characters\."))
    expect(new.page.locator("#password")).to_have_attribute("aria-describedby", "password-help")
    problems += check_page(new, "signup-password-rule", ["#signup-form button"])
    assert not problems, problems
