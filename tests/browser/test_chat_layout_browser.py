"""The chat layout (issue 35, the new group's first major): talking needs the last log lines in view right above the
composer, on every page that has one. On a 390x844 phone without the keyboard, on the same phone with the keyboard
up (the viewport shrinks to 390x508 under `interactive-widget=resizes-content`), on the narrator's laptop, and on a
character's sheet: the newest log lines lie inside the viewport, above the composer's top edge, and are what the
browser finds at their own centre (nothing covers them). The campaign's other panels (prompts, encounters, the
pictures) stay above, reachable by scrolling; an open roll prompt keeps the page at the top where it is.
Screenshots: test-artifacts/screenshots/chat-*.png. Skipped unless TEST_CHROMIUM is set."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, expect

from .pages import DEMO_PASSWORD, SHOTS, Tab, Tabs, api_user, seed_demo, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]

KEYBOARD = {"width": 390, "height": 508}  # 844 less a phone keyboard: what resizes-content leaves the page

# The last `n` lines of the chat log: where they are, where the composer starts, and what is drawn on top of them.
LAST_LINES = """
([sel, n]) => {
  const log = document.querySelector(sel);
  const composer = document.getElementById("composer-panel");
  const lines = Array.from(log.querySelectorAll(":scope > li.entry")).slice(-n);
  const top = composer.getBoundingClientRect().top;
  return {
    viewport: innerHeight,
    composerTop: Math.round(top),
    scrolled: Math.round(scrollY),
    lines: lines.map(li => {
      const r = li.getBoundingClientRect();
      const x = r.left + Math.min(40, r.width / 2), y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      return {id: li.id, top: Math.round(r.top), bottom: Math.round(r.bottom), height: Math.round(r.height),
              covered: !(hit && li.contains(hit))};
    }),
  };
}
"""


def _last_lines_in_view(page: Page, what: str, n: int = 2, sel: str = "#log-entries") -> dict[str, Any]:
    page.wait_for_timeout(250)  # app.js settles the view 60 ms after a resize
    seen = page.evaluate(LAST_LINES, [sel, n])
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"chat-{what}.png"))
    assert len(seen["lines"]) == n, seen
    for line in seen["lines"]:
        assert line["height"] > 0, (what, seen)
        assert line["top"] >= 0 and line["bottom"] <= seen["viewport"], (what, seen)  # inside the viewport
        assert line["bottom"] <= seen["composerTop"], (what, seen)  # above the composer
        assert not line["covered"], (what, seen)  # nothing drawn over it
    return seen


def _talk(base: str, campaign_id: int, who: dict[str, str], lines: int, first: int = 0) -> None:
    for i in range(first, first + lines):
        r = httpx2.post(
            f"{base}/api/campaigns/{campaign_id}/messages", json={"text": f"Line {i + 1} of the evening."}, headers=who
        )
        assert r.status_code == 201, r.text


def _demo_table(tabs: Tabs, live_server: Any) -> tuple[str, int, dict[str, str]]:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    pia = api_user(base, "pia", DEMO_PASSWORD, create=False)
    _talk(base, campaign_id, pia, 14)
    return base, campaign_id, pia


def _phone(tabs: Tabs, base: str, campaign_id: int, next: str | None = None) -> Tab:
    tab = tabs.open("pia")
    sign_in(tab, base, "pia", DEMO_PASSWORD, next=next or f"/campaigns/{campaign_id}")
    expect(tab.page.locator("#live-status")).to_have_text("live")
    return tab


def test_the_last_lines_sit_above_the_composer_with_and_without_the_keyboard(tabs: Tabs, live_server: Any) -> None:
    base, campaign_id, pia_api = _demo_table(tabs, live_server)
    page = _phone(tabs, base, campaign_id).page
    newest = page.locator("#log-entries > li.entry").last
    expect(newest).to_contain_text("Line 14 of the evening.")

    # The page opens on its chat: no keyboard, 390x844.
    _last_lines_in_view(page, "phone-844", n=3)

    # The player taps the text field: the keyboard takes the bottom 336 px away.
    page.locator("#talk-text").click()
    page.set_viewport_size(KEYBOARD)
    _last_lines_in_view(page, "phone-keyboard-508", n=2)

    # Scrolled up to the pictures and prompts, then typing again (the keyboard still up): back to the chat.
    page.locator("#talk-text").blur()
    page.locator("#prompts-panel").scroll_into_view_if_needed()  # above the log (and the between-sessions panel)
    expect(page.locator("#prompts-panel")).to_be_in_viewport()
    page.locator("#talk-text").focus()
    _last_lines_in_view(page, "phone-keyboard-again-508", n=2)

    # A line arrives live and one is sent while typing: the newest stays right above the composer.
    _talk(base, campaign_id, pia_api, 1, first=14)
    expect(newest).to_contain_text("Line 15 of the evening.")
    _last_lines_in_view(page, "phone-keyboard-live-508", n=2)
    page.locator("#talk-text").fill("Sent with the keyboard up.")
    page.locator("#composer-panel button[type=submit]").click()
    expect(newest).to_contain_text("Sent with the keyboard up.")
    expect(page.locator("#composer-panel .talk-sent")).to_be_visible()
    _last_lines_in_view(page, "phone-keyboard-sent-508", n=2)

    # The keyboard goes away: 844 again, still nothing under the composer.
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#talk-text").focus()
    _last_lines_in_view(page, "phone-844-after", n=3)


def test_the_laptop_opens_on_the_chat(tabs: Tabs, live_server: Any) -> None:
    base, campaign_id, _ = _demo_table(tabs, live_server)
    nora = tabs.open("nora", desktop=True)
    sign_in(nora, base, "nora", DEMO_PASSWORD, next=f"/campaigns/{campaign_id}")
    expect(nora.page.locator("#live-status")).to_have_text("live")
    _last_lines_in_view(nora.page, "laptop-1280", n=4)


def test_a_sheet_brings_its_recent_log_above_the_composer_when_typing(tabs: Tabs, live_server: Any) -> None:
    base, campaign_id, pia_api = _demo_table(tabs, live_server)
    campaign = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=pia_api).json()
    pia_id = next(m["id"] for m in campaign["members"] if m["username"] == "pia")
    mine = next(c for c in campaign["characters"] if c["owner_id"] == pia_id)
    for i in range(4):
        body = {"text": f"In character, line {i + 1}.", "mode": "ic", "as_character_id": mine["id"]}
        r = httpx2.post(f"{base}/api/campaigns/{campaign_id}/messages", json=body, headers=pia_api)
        assert r.status_code == 201, r.text
    page = _phone(tabs, base, campaign_id, next=f"/campaigns/{campaign_id}/characters/{mine['id']}").page
    expect(page.locator("#recent ol.log > li.entry").last).to_contain_text("In character, line 4.")
    page.locator("#talk-text").click()
    page.set_viewport_size(KEYBOARD)
    _last_lines_in_view(page, "sheet-keyboard-508", n=2, sel="#recent ol.log")


def test_prompts_stay_reachable_above_the_chat(tabs: Tabs, live_server: Any) -> None:
    """The demo calls on pia three times: the page still opens on its chat, the prompts a scroll away above it."""
    base, campaign_id, _ = _demo_table(tabs, live_server)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    campaign = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=nora).json()
    pia_id = next(m["id"] for m in campaign["members"] if m["username"] == "pia")
    mine = next(c for c in campaign["characters"] if c["owner_id"] == pia_id)
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/prompts",
        json={"character_id": mine["id"], "note": "Climb the wall"},
        headers=nora,
    )
    assert r.status_code == 201, r.text
    page = _phone(tabs, base, campaign_id).page
    _last_lines_in_view(page, "phone-prompts-844", n=3)
    prompt = page.locator(f"#prompt-{r.json()['id']}")
    expect(prompt).not_to_be_in_viewport()
    prompt.scroll_into_view_if_needed()
    expect(prompt).to_be_in_viewport()
    page.locator("#talk-text").click()
    page.set_viewport_size(KEYBOARD)
    _last_lines_in_view(page, "phone-prompts-keyboard-508", n=2)


def test_the_composer_says_who_speaks_refocuses_a_bad_roll_and_a_mention_shows(tabs: Tabs, live_server: Any) -> None:
    """Three of issue 35's minors on the composer: its summary follows the choices ("in character · the
    narrators"), a malformed `/r` brings focus back to the text (not "Speak as"), and an @mention arriving live
    shows a toast that leads to its line."""
    base, campaign_id, _ = _demo_table(tabs, live_server)
    page = _phone(tabs, base, campaign_id).page
    summary = page.locator("#composer-panel [data-talk-summary]")
    expect(summary).to_have_text("out of character · everyone")
    page.locator("#composer-panel .composer-options > summary").click()
    page.locator("#talk-as").select_option(index=1)
    expect(summary).to_have_text("in character · everyone")
    page.locator("#talk-audience").select_option("narrator")
    expect(summary).to_have_text("in character · the narrators")
    page.locator("#talk-audience").select_option("public")
    page.locator("#talk-as").select_option("")

    page.locator("#talk-text").fill("/r 2d6+")
    page.locator("#composer-panel button[type=submit]").click()
    expect(page.locator("#composer-panel .field-error")).to_be_visible()
    expect(page.locator("#talk-text")).to_be_focused()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "chat-bad-roll-390.png"))

    otto = api_user(base, "otto", DEMO_PASSWORD, create=False)
    r = httpx2.post(f"{base}/api/campaigns/{campaign_id}/messages", json={"text": "@pia the gate, now"}, headers=otto)
    assert r.status_code == 201, r.text
    toast = page.locator("#toast")
    expect(toast).to_contain_text("otto mentions you")
    page.screenshot(path=str(SHOTS / "chat-mention-toast-390.png"))
    toast.get_by_role("link").click()
    expect(page.locator(f"#entry-{r.json()['seq']}")).to_be_focused()
