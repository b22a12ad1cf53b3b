"""Live everywhere (issue 14), in real Chromium: a narrator on a laptop and players on 390x844 phones.

1. Every panel follows the stream: a change made from another client shows in the open page without a reload
   (session bar, members, characters, the dice box's "As" list, prompts with a toast, encounters, a sheet, its
   recent log, the Cat page, the narrator screen).
2. The result comes to the player: after a roll made with the keyboard the result is in view and focused, and
   the form keeps its choices.
3. Failures show: the live badge says "reconnecting…" within 2 s of losing the stream and "live" when it is back;
   a request whose answer is lost shows an error with a retry that reuses the Idempotency-Key (one entry).
4. The dice dialog warns about a roll that can never succeed and shows one error, not two.
5. First contact: the landing page, the invite page before sign-in, the invite link's copy button.
axe-core checks every page state visited (0 serious or critical violations). Phone screenshots go to
test-artifacts/screenshots/live-*.png (docs/screenshots/ holds copies, docs/LIVE.md shows them).
Skipped unless TEST_CHROMIUM names a Chromium binary (see tests/browser/conftest.py)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
import utils.server as shared
from playwright.sync_api import Page, expect
from utils.cat import ROOF_RUNNER
from utils.server import LiveServer, start_server, stop_server

from . import axe
from .pages import Tab, Tabs, api_campaign, api_invite, api_log, api_user, check_page, sign_in, wait_live

pytestmark = [pytest.mark.browser, pytest.mark.server]


def _mark(page: Page) -> None:
    page.evaluate("() => { window.__fateboardTestMark = true; }")


def _still_marked(page: Page) -> bool:
    return page.evaluate("() => window.__fateboardTestMark === true")


def _character(
    base: str, campaign_id: int, who: dict[str, str], name: str, system: str, sheet: dict[str, Any] | None = None
) -> int:
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters",
        headers=who,
        json={"name": name, "system": system, **({"sheet": sheet} if sheet else {})},
    )
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _table(base: str) -> tuple[int, dict[str, dict[str, str]]]:
    who = {n: api_user(base, n) for n in ("nora", "pia")}
    r = httpx2.post(base + "/api/campaigns", json={"name": "Rooftops", "systems": ["dice", "cat"]}, headers=who["nora"])
    assert r.status_code == 201, r.text
    campaign_id = r.json()["id"]
    code = api_invite(base, campaign_id, who["nora"])
    assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who["pia"]).status_code == 200
    return campaign_id, who


def _axe(tab: Tab, label: str, problems: list[str]) -> None:
    problems.extend(axe.violations(tab.page, label))


def test_every_panel_follows_the_stream(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who = _table(base)
    table = f"/campaigns/{campaign_id}"
    smoke = _character(base, campaign_id, who["pia"], "Smoke", "cat", ROOF_RUNNER)
    _character(base, campaign_id, who["pia"], "Wren", "dice")
    nora, pia = tabs.open("nora", desktop=True), tabs.open("pia")
    for tab in (nora, pia):
        sign_in(tab, base, tab.name, next=table)
        wait_live(tab.page)
        _mark(tab.page)
    problems: list[str] = []
    _axe(nora, "live-table-laptop", problems)
    _axe(pia, "live-table-phone", problems)

    # The session bar: the narrator starts a session, the phone's bar says so.
    expect(pia.page.locator("#session-panel")).to_contain_text("No session running.")
    nora.page.locator("#session-title").fill("Night one")
    nora.page.get_by_role("button", name="Start session").click()
    expect(pia.page.locator("#session-panel")).to_contain_text("Session 1: Night one")

    # Members and characters: Otto joins and makes a cat; the laptop's panels and its dice box's "As" list follow.
    otto = api_user(base, "otto")
    code = api_invite(base, campaign_id, who["nora"])
    assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=otto).status_code == 200
    expect(nora.page.locator("#members-panel")).to_contain_text("otto")
    expect(pia.page.locator("#members-panel")).to_contain_text("otto")
    tom = _character(base, campaign_id, otto, "Tom", "cat", {**ROOF_RUNNER, "cat_name": "Tom"})
    expect(nora.page.locator("#characters-panel")).to_contain_text("Tom")
    expect(nora.page.locator("#character_id option", has_text="Tom")).to_have_count(1)
    expect(pia.page.locator("#characters-panel")).to_contain_text("Tom")

    # A prompt: the narrator calls for Wren's roll; Pia's phone shows it, with a toast that leads to it.
    nora.page.locator("#prompts-panel summary", has_text="Call for a roll").click()
    nora.page.get_by_label("Whose roll").select_option(label="Wren")
    nora.page.locator("#prompt-expression").fill("1d20")
    nora.page.get_by_role("button", name="Send").click()
    prompt = pia.page.locator("#prompts-panel li.prompt", has_text="Wren")
    expect(prompt).to_be_visible()
    toast = pia.page.locator("#toast")
    expect(toast).to_be_visible()
    _axe(pia, "live-prompt-toast-phone", problems)
    toast.get_by_role("link").click()
    expect(prompt).to_be_focused()

    # An encounter: Tom challenges Smoke (from Otto's client); both open pages list the fight.
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/actions",
        headers=otto,
        json={
            "system": "cat",
            "action": "challenge",
            "character_id": tom,
            "params": {"opponent_id": smoke, "weapon": "claws"},
        },
    )
    assert r.status_code == 201, r.text
    expect(nora.page.locator("#encounters-panel a.big-link")).to_have_count(1)
    expect(pia.page.locator("#encounters-panel a.big-link")).to_have_count(1)
    for tab in (nora, pia):
        assert _still_marked(tab.page), f"{tab.name}'s page was reloaded"
    _axe(nora, "live-table-laptop-after", problems)

    # A sheet: Pia has Smoke open; the narrator changes it; her own roll shows in its recent log.
    pia.page.goto(f"{base}{table}/characters/{smoke}")
    wait_live(pia.page)
    _mark(pia.page)
    expect(pia.page.locator(".cat-stats")).to_contain_text("9")
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters/{smoke}/adjust",
        headers=who["nora"],
        json={"changes": {"lives": 7}, "reason": "a close call"},
    )
    assert r.status_code == 201, r.text
    expect(pia.page.locator(".cat-stats div", has_text="Lives")).to_contain_text("7")
    pia.page.locator("#test-fate").get_by_role("button", name="Test fate").click()
    expect(pia.page.locator(".result")).to_be_visible()
    seq = int(re.search(r"#(\d+)", pia.page.locator(".result").inner_text()).group(1))
    expect(pia.page.locator(f"#recent #entry-{seq}")).to_be_visible()
    # A prompt for Smoke arrives on the open sheet.
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/prompts",
        headers=who["nora"],
        json={
            "character_id": smoke,
            "system": "cat",
            "action": "test_fate",
            "locked": {"trait": "claws", "difficulty": "hard"},
        },
    )
    assert r.status_code == 201, r.text
    expect(pia.page.locator("[data-prompts] .prompt")).to_have_count(1)
    expect(pia.page.locator("#toast")).to_be_visible()
    assert _still_marked(pia.page)
    _axe(pia, "live-sheet-phone", problems)

    # The Cat page and the narrator screen on the laptop follow too.
    nora.page.goto(f"{base}{table}/systems/cat")
    wait_live(nora.page)
    _character(base, campaign_id, otto, "Mouser", "cat", {**ROOF_RUNNER, "cat_name": "Mouser"})
    expect(nora.page.locator("#system")).to_contain_text("Mouser")
    _axe(nora, "live-cat-page-laptop", problems)
    nora.page.goto(f"{base}{table}/narrator")
    wait_live(nora.page)
    _mark(nora.page)
    glance = nora.page.locator(f"#glance-{smoke}")
    expect(glance).to_contain_text("Lives")
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters/{smoke}/adjust",
        headers=who["nora"],
        json={"changes": {"lives": 5}, "reason": "another close call"},
    )
    assert r.status_code == 201, r.text
    expect(glance.locator("div", has_text="Lives")).to_contain_text("5")
    # One call for a roll to several characters at once; the phone's campaign page gets both.
    pia.page.goto(base + table)
    wait_live(pia.page)
    screen = nora.page.locator("#group-call")
    screen.get_by_label("Smoke").check()
    screen.get_by_label("Wren").check()
    screen.get_by_label("Dice (leave empty to let each player choose)").fill("1d6")
    screen.get_by_role("button", name="Send to all ticked").click()
    expect(nora.page.locator("#group-call .result")).to_contain_text("Smoke, Wren")
    expect(nora.page.locator("#group-call .result")).to_be_focused()
    expect(nora.page.locator("#screen-prompts li[data-prompt-id]")).to_have_count(4)
    expect(pia.page.locator("#prompts-panel li.prompt code", has_text="1d6")).to_have_count(2)
    assert _still_marked(nora.page)
    problems += check_page(nora, "live-narrator-screen", ["#group-call button.primary"], width=1280)
    problems += check_page(pia, "live-table-phone", ["#dicebox button[type=submit]"])
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], tabs.errors()


def test_the_result_comes_to_the_player_and_keeps_the_choices(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who = _table(base)
    table = f"/campaigns/{campaign_id}"
    smoke = _character(base, campaign_id, who["pia"], "Smoke", "cat", ROOF_RUNNER)
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=f"{table}/characters/{smoke}")
    page = pia.page
    wait_live(page)
    problems: list[str] = []

    # The roll dialog, with the keyboard: choose Claws and Hard, then press Enter on "Test fate".
    dialog = page.locator("#test-fate")
    dialog.get_by_label("Trait").select_option("claws")
    dialog.get_by_label("Hard").check()
    button = dialog.get_by_role("button", name="Test fate")
    button.focus()
    page.keyboard.press("Enter")
    result = page.locator("#sheet .result")
    expect(result).to_be_focused()
    expect(result).to_be_in_viewport()
    expect(result).to_have_attribute("aria-live", "polite")
    expect(page.locator(".cat-result .cat-die").first).to_be_visible()
    expect(dialog.get_by_label("Trait")).to_have_value("claws")  # the form kept the player's choices
    expect(dialog.get_by_label("Hard")).to_be_checked()
    problems += check_page(pia, "live-result-phone", ["#test-fate button.primary"])
    # Tab goes on from the result, not from the top of the page.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement !== document.body")

    # The dice box on the campaign page: Enter in the field rolls; the result is focused next to the field.
    page.goto(base + table)
    wait_live(page)
    field = page.locator("#expression")
    field.fill("2d20kh1")
    field.press("Enter")
    result = page.locator("#dicebox .result")
    expect(result).to_be_focused()
    expect(result).to_be_in_viewport()
    expect(field).to_have_value("2d20kh1")
    # The log line shows the faces, the dropped one marked.
    entry = page.locator("#log-entries li.entry").last
    expect(entry.locator(".die")).to_have_count(2)
    expect(entry.locator(".die-dropped")).to_have_count(1)
    expect(entry.locator("time")).to_have_attribute(
        "title", re.compile(r"\d{4} \d{1,2}:\d{2}\s?[AP]M UTC")
    )  # the reader's format
    problems += check_page(pia, "live-dicebox-phone", ["#dicebox button[type=submit]"])
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], tabs.errors()


def _pia_at_her_table(tabs: Tabs, base: str) -> tuple[int, Tab, dict[str, str]]:
    """A new campaign of Nora's with Pia in it; Pia's phone on its page, the stream live; Nora's API auth."""
    nora, pia_auth = api_user(base, "nora"), api_user(base, "pia")
    campaign_id = api_campaign(base, nora, [pia_auth])
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=f"/campaigns/{campaign_id}")
    wait_live(pia.page)
    return campaign_id, pia, nora


def test_failures_show_the_badge_and_a_retry_on_the_same_key(
    tabs: Tabs, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    base = live_server.url
    campaign_id, pia, nora = _pia_at_her_table(tabs, base)
    page = pia.page
    problems: list[str] = []

    # The answer to a roll is lost on the way back (the server did roll): an error with a retry shows.
    lost: list[str] = []

    def lose_answer(route: Any) -> None:
        lost.append(route.request.post_data or "")
        route.fetch()  # the server acts and answers; the phone never hears it
        route.abort("connectionreset")

    page.route("**/roll", lose_answer)
    page.locator("#expression").fill("1d20")
    page.locator("#dicebox").get_by_role("button", name="Roll").click()
    failure = page.locator("#dicebox .request-error")
    expect(failure).to_be_visible(timeout=15_000)  # the server rolls first (route.fetch): slow on a busy machine
    expect(failure.get_by_role("button", name="Try again")).to_be_focused()
    # A background fetch inside the same form (the odds of the expression) leaves the error and its retry.
    with page.expect_response(re.compile(r"/odds\?")):
        page.evaluate(
            "(url) => htmx.ajax('GET', url, {source: '#expression', target: '#odds', swap: 'innerHTML'})",
            f"/campaigns/{campaign_id}/odds?expression=1d20",
        )
    expect(failure).to_be_visible()
    problems += check_page(pia, "live-retry-phone", ["#dicebox .request-error button"])
    page.unroute("**/roll")
    failure.get_by_role("button", name="Try again").click()
    result = page.locator("#dicebox .result")
    expect(result).to_contain_text("already rolled")  # the same Idempotency-Key: the first roll, not a second
    expect(result).to_be_focused()
    assert len(lost) == 1
    rolls = [e for e in api_log(base, campaign_id, nora) if e["action"] == "roll"]
    assert len(rolls) == 1, rolls

    # The stream is lost (the server stops): "reconnecting…" within 2 s; back to "live" when it returns.
    stop_server(live_server)
    started = time.monotonic()
    expect(page.locator("#live-status")).to_have_text("reconnecting…", timeout=2000)
    assert time.monotonic() - started < 2.0
    problems += axe.violations(page, "live-reconnecting-phone")
    page.screenshot(
        path=str(Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots" / "live-reconnecting-390.png")
    )
    port = int(base.rsplit(":", 1)[1])
    monkeypatch.setattr(shared, "_free_port", lambda: port)
    server = start_server(live_server.database_url, tmp_path)
    try:
        expect(page.locator("#live-status")).to_have_text("live", timeout=20_000)
    finally:
        stop_server(server)
    assert problems == [], "\n".join(problems)
    assert pia.csp_violations() == []


def test_the_dice_dialog_warns_and_shows_one_error(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, pia, nora = _pia_at_her_table(tabs, base)
    page = pia.page
    field = page.locator("#expression")
    field.fill("6d6>=7")
    expect(page.locator("#odds")).to_contain_text("can never succeed")
    field.fill("2d")
    page.locator("#dicebox").get_by_role("button", name="Roll").click()
    expect(page.locator("#dicebox .field-error")).to_be_visible()
    expect(page.locator("#dicebox .error")).to_have_count(1)  # the field's error, not the odds' as well
    problems = check_page(pia, "live-dice-error-phone", ["#dicebox button[type=submit]"])
    field.fill("2d6")
    expect(page.locator("#dicebox .error")).to_have_count(0)  # editing the field clears its old error
    assert problems == [], "\n".join(problems)


def test_first_contact_landing_invite_and_copy(tabs: Tabs) -> None:
    base = tabs.base
    nora = api_user(base, "nora")
    campaign_id = api_campaign(base, nora, [], name="Lanterns")
    code = api_invite(base, campaign_id, nora)
    problems: list[str] = []

    visitor = tabs.open("visitor")
    visitor.page.goto(base + "/")
    expect(visitor.page.get_by_role("heading", level=1)).to_have_text("Fateboard")
    expect(visitor.page.locator("main")).to_contain_text("role-playing")
    problems += check_page(visitor, "live-landing", ["main a.button"])
    height = visitor.page.evaluate("() => document.documentElement.scrollHeight")
    assert height <= 844, f"the landing page is {height}px tall: more than one phone screen"
    visitor.page.goto(f"{base}/join/{code}")
    expect(visitor.page.get_by_role("heading", level=1)).to_have_text("Join Lanterns")
    expect(visitor.page.locator("main")).to_contain_text("Narrated by nora")
    problems += check_page(visitor, "live-invite", ["main a.button"])
    visitor.page.get_by_role("link", name="Create an account").click()
    visitor.page.get_by_label("Username").fill("quinn")
    visitor.page.get_by_label("Password", exact=True).fill("correct horse")
    visitor.page.get_by_label("Password, again").fill("correct horse")
    visitor.page.get_by_role("button", name="Create account").click()
    expect(visitor.page).to_have_url(f"{base}/join/{code}")  # back to the join after signing up
    visitor.page.get_by_role("button", name="Join as a player").click()
    expect(visitor.page).to_have_url(f"{base}/campaigns/{campaign_id}")

    narrator = tabs.open("nora", permissions=["clipboard-read", "clipboard-write"])
    sign_in(narrator, base, "nora", next=f"/campaigns/{campaign_id}")
    copy = narrator.page.locator("#members-panel [data-copy]").first
    copy.click()
    expect(copy).to_have_text("Copied")
    copied = narrator.page.evaluate("() => navigator.clipboard.readText()")
    assert copied.endswith(f"/join/{code}")
    problems += check_page(narrator, "live-invite-copy", ["#members-panel button.primary"])
    assert problems == [], "\n".join(problems)
