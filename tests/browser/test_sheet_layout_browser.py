"""The one sheet layout in a phone-sized Chromium (390x844). An ART sheet, which had no live hooks before it, shows a
prompt the narrator calls for without a reload. Every system's sheet, for its player and for the narrator, has what a
player does most on the first screen (issue 21): the key numbers ([data-key]), the prompt they are asked to answer,
else the main roll ([data-primary]); for the narrator the call for a roll ([data-narrator-call]). The sheets' heights
are written to test-artifacts/sheet-heights.md (docs/PERFORMANCE.md, "Sheets on a phone", has the before and after).
Screenshots: test-artifacts/screenshots/layout-*.png and sheet-*.png (the first screen)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, expect
from utils.sheets import CASES

from .pages import (
    DEMO_PASSWORD,
    PASSWORD,
    ROOT,
    SHOTS,
    Tabs,
    api_campaign,
    api_user,
    character_named,
    check_page,
    seed_demo,
    sign_in,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]

SCREEN = 844
DEMO = {
    "dice": "Wren the Lamplighter",
    "cat": "Smoke",
    "catfight": "Tecka",
    "art": "Maren Quickhand",
    "rabbits": "Clover Quickfoot",
}
ACTION = "button.primary, button[type=submit], a.big-link"

# Where the first screen's parts are (css px from the top of the page, scrolled to the top).
MEASURE = """
(action) => {
  const bottom = el => el ? Math.round(el.getBoundingClientRect().bottom + scrollY) : null;
  const top = el => el ? Math.round(el.getBoundingClientRect().top + scrollY) : null;
  const shown = el => el && el.getClientRects().length > 0;
  const first = (root, sel) => root ? Array.from(root.querySelectorAll(sel)).find(shown) || null : null;
  const prompt = first(document, "[data-prompts] > *");
  const primary = first(document, "[data-primary]");
  const call = first(document, "[data-narrator-call]");
  return {
    height: document.documentElement.scrollHeight,
    key: top(first(document, "[data-key]")),
    prompt: prompt ? bottom(first(prompt, action) || prompt) : null,
    primary: primary ? bottom(first(primary, action) || primary.querySelector("h2") || primary) : null,
    call: call ? bottom(call.querySelector("summary") || call) : null,
  };
}
"""


def first_screen_problems(page: Page, name: str, narrator: bool) -> tuple[dict[str, Any], list[str]]:
    page.evaluate("() => window.scrollTo(0, 0)")
    where = page.evaluate(MEASURE, ACTION)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"sheet-{name}-390.png"))  # the first screen only: what a player sees
    problems = []
    if where["key"] is not None and where["key"] > SCREEN:
        problems.append(f"{name}: the key numbers start at {where['key']}px, below the first screen")
    main = where["prompt"] if where["prompt"] is not None else where["primary"]
    if main is None:
        problems.append(f"{name}: no prompt and no main roll ([data-primary]) on the sheet")
    elif main > SCREEN:
        what = "the prompt's roll" if where["prompt"] is not None else "the main roll"
        problems.append(f"{name}: {what} ends at {main}px, below the first screen ({SCREEN}px)")
    if narrator and where["call"] is not None and where["call"] > SCREEN:
        problems.append(f"{name}: the narrator's call ends at {where['call']}px, below the first screen")
    return where, problems


def test_a_prompt_reaches_an_open_art_sheet_live(tabs: Tabs, live_server: Any) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    maren = character_named(base, campaign_id, nora, "Maren Quickhand")
    sheet_path = f"/campaigns/{campaign_id}/characters/{maren['id']}"

    pia = tabs.open("pia")
    sign_in(pia, base, "pia", DEMO_PASSWORD, next=sheet_path)
    page = pia.page
    expect(page.locator("#sheet h1")).to_have_text("Maren Quickhand")
    called = page.locator(".art-prompt", has_text="Cross the rope bridge")
    expect(called).to_have_count(0)
    expect(page.locator("form:has(#tr-attr) .art-odds")).not_to_be_empty()  # htmx is running
    page.wait_for_timeout(1000)  # the stream starts at "now": let it open before the prompt is called

    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/prompts",
        headers=nora,
        json={
            "character_id": maren["id"],
            "system": "art",
            "action": "trait_roll",
            "locked": {"attribute": "DEX", "difficulty": "PR"},
            "note": "Cross the rope bridge",
        },
    )
    assert r.status_code == 201, r.text

    expect(called).to_have_count(1, timeout=15_000)
    expect(called.locator(".art-odds")).to_contain_text("against Poor")
    problems = check_page(pia, "layout-art-prompt", [".art-prompt button[type=submit]"])
    assert not problems, problems


def test_every_demo_sheet_has_its_main_action_on_the_first_screen(tabs: Tabs, live_server: Any) -> None:
    """The demo's sheets as seeded (prompts waiting, a last roll, a duel running), for the player and the narrator:
    measured, screenshotted, and held to the first screen. The table of heights: test-artifacts/sheet-heights.md."""
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    rows, problems = [], []
    for who in ("pia", "nora"):
        tab = tabs.open(who)
        sign_in(tab, base, who, DEMO_PASSWORD, next=f"/campaigns/{campaign_id}")
        for system, name in DEMO.items():
            character = character_named(base, campaign_id, nora, name)
            tab.page.goto(f"{base}/campaigns/{campaign_id}/characters/{character['id']}")
            expect(tab.page.locator("#sheet h1")).to_have_text(name)
            tab.page.wait_for_timeout(300)  # the odds load (htmx) and settle the page's height
            where, found = first_screen_problems(tab.page, f"{system}-{who}", narrator=who == "nora")
            problems += found
            rows.append((system, who, where))
    out = ROOT / "test-artifacts" / "sheet-heights.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        "| sheet | viewer | height (px) | key numbers at | main action ends at | narrator's call ends at |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for system, who, w in rows:
        main = w["prompt"] if w["prompt"] is not None else w["primary"]
        lines.append(f"| {system} | {who} | {w['height']} | {w['key']} | {main} | {w['call'] or '—'} |")
    out.write_text("\n".join(lines) + "\n")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("system_id", list(CASES))
def test_a_new_characters_main_roll_is_on_the_first_screen(tabs: Tabs, system_id: str) -> None:
    """A new character (no prompt, no last roll): the main roll's button itself is on the first screen."""
    base = tabs.base
    narrator, player = api_user(base, "nora"), api_user(base, "pia")
    campaign_id = api_campaign(base, narrator, [player], systems=() if system_id == "dice" else (system_id,))
    sheet = CASES[system_id][0]
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters",
        headers=player,
        json={"name": "Hero", "system": system_id, "sheet": sheet},
    )
    assert r.status_code == 201, r.text
    for who in ("pia", "nora"):
        tab = tabs.open(who)
        sign_in(tab, base, who, PASSWORD, next=f"/campaigns/{campaign_id}/characters/{r.json()['id']}")
        expect(tab.page.locator("#sheet h1")).to_have_text("Hero")
        where, problems = first_screen_problems(tab.page, f"new-{system_id}-{who}", narrator=who == "nora")
        assert where["prompt"] is None and where["primary"] is not None, where
        assert not problems, problems
