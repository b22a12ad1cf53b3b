"""The journeys a phone user takes on the core pages: two people rolling live, a blind roll, a dropped stream caught
up, every page checked for fit and errors, bad input shown next to its field. Every page state visited is checked
with axe-core (0 serious or critical violations). Fixtures and helpers: conftest.py and pages.py in this folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import utils.server as shared
from playwright.sync_api import Page, expect
from utils.server import LiveServer, start_server, stop_server

from . import axe
from .pages import (
    DEMO_PASSWORD,
    Tabs,
    api_campaign,
    api_invite,
    api_log,
    api_roll,
    api_user,
    check_page,
    seed_demo,
    sign_in,
    sign_up,
    wait_live,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]


def log_ids(page: Page) -> list[str]:
    return page.locator("#log-entries li.entry").evaluate_all("els => els.map(e => e.id)")


def roll_in_dicebox(page: Page, expression: str) -> None:
    box = page.locator("#dicebox")
    box.get_by_label("Dice", exact=True).fill(expression)
    box.get_by_role("button", name="Roll", exact=True).click()


def mark_page(page: Page) -> None:
    """A flag in the page's JavaScript state: still there later means the page was not reloaded meanwhile."""
    page.evaluate("() => { window.__fateboardTestMark = true; }")


def still_marked(page: Page) -> bool:
    return page.evaluate("() => window.__fateboardTestMark === true")


# --- 1. the "done when" journey ---


def test_two_people_sign_up_join_and_see_each_others_rolls_live(tabs: Tabs) -> None:
    base = tabs.base
    problems: list[str] = []
    a = tabs.open("alice")
    a.page.goto(base + "/signup")
    problems += axe.violations(a.page, "signup")
    sign_up(a.page, "alice")
    expect(a.page).to_have_url(base + "/campaigns")
    problems += axe.violations(a.page, "campaigns")

    a.page.get_by_label("Name").fill("Night Watch")
    a.page.get_by_role("button", name="Create campaign").click()
    expect(a.page).to_have_url(re.compile(re.escape(base) + r"/campaigns/\d+$"))
    campaign_url = a.page.url

    members = a.page.locator("#members-panel")
    members.get_by_role("button", name="Create invite link").click()
    link = members.get_by_label("Invite link")
    expect(link).to_have_value(re.compile(re.escape(base) + r"/join/[\w-]+$"))
    invite = link.input_value()
    invite_path = invite[len(base) :]
    problems += axe.violations(a.page, "campaign-with-invite")

    # B opens the link signed out: the invite names the campaign and its narrator, and its sign-up link comes
    # back to the invite.
    b = tabs.open("bob")
    b.page.goto(invite)
    expect(b.page).to_have_url(invite)
    expect(b.page.get_by_role("heading", level=1)).to_have_text("Join Night Watch")
    expect(b.page.locator("main")).to_contain_text("Narrated by alice")
    expect(b.page.get_by_role("link", name="Sign in to join")).to_have_attribute("href", f"/signin?next={invite_path}")
    problems += axe.violations(b.page, "invite-signed-out")
    b.page.get_by_role("link", name="Create an account").click()
    expect(b.page).to_have_url(re.compile(re.escape(base) + r"/signup\?next="))
    sign_up(b.page, "bob")
    expect(b.page).to_have_url(invite)
    expect(b.page.get_by_role("heading", level=1)).to_have_text("Join Night Watch")
    problems += axe.violations(b.page, "invite-signed-in")
    b.page.get_by_role("button", name="Join as a player").click()
    expect(b.page).to_have_url(campaign_url)
    expect(b.page.locator(".table-head .badge")).to_have_text("player")

    for tab in (a, b):
        wait_live(tab.page)
        mark_page(tab.page)

    # A rolls; the odds line shows the range first; B sees the entry arrive without reloading.
    a.page.locator("#dicebox").get_by_label("Dice", exact=True).fill("2d6+1")
    expect(a.page.locator("#odds")).to_contain_text("3–13")
    a.page.locator("#dicebox").get_by_role("button", name="Roll", exact=True).click()
    expect(a.page.locator("#dicebox .result")).to_contain_text("#1")
    seen_by_b = b.page.locator("#log-entries li.entry", has_text="2d6")
    expect(seen_by_b).to_have_count(1)
    expect(seen_by_b).to_have_id("entry-1")
    problems += axe.violations(a.page, "rolled-with-odds")
    problems += axe.violations(b.page, "entry-arrived")

    # B rolls; A sees it live.
    roll_in_dicebox(b.page, "1d20")
    expect(b.page.locator("#dicebox .result")).to_contain_text("#2")
    seen_by_a = a.page.locator("#log-entries li.entry", has_text="1d20")
    expect(seen_by_a).to_have_count(1)
    expect(seen_by_a).to_have_id("entry-2")

    for tab in (a, b):
        assert still_marked(tab.page), f"{tab.name}'s page was reloaded"
        assert log_ids(tab.page) == ["entry-1", "entry-2"]
    for seq in (1, 2):  # both saw the same public entries
        for part in (".summary", ".total"):
            assert (
                a.page.locator(f"#entry-{seq} {part}").inner_text()
                == b.page.locator(f"#entry-{seq} {part}").inner_text()
            )
    problems += axe.violations(a.page, "two-rolls-alice") + axe.violations(b.page, "two-rolls-bob")
    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == []


# --- 2. a blind roll ---


def test_a_blind_roll_shows_its_total_to_the_narrator_only(tabs: Tabs) -> None:
    base = tabs.base
    nora, pia, otto = (api_user(base, n) for n in ("nora", "pia", "otto"))
    campaign_id = api_campaign(base, nora, [pia, otto])
    table = f"/campaigns/{campaign_id}"
    a, b, c = tabs.open("nora"), tabs.open("pia"), tabs.open("otto")
    for tab in (a, b, c):
        sign_in(tab, base, tab.name, next=table)
        wait_live(tab.page)

    box = b.page.locator("#dicebox")
    box.locator("summary", has_text="Options").click()
    box.get_by_label("Who sees it").select_option(label="Blind (narrators only)")
    roll_in_dicebox(b.page, "3d6")
    expect(box.locator(".result")).to_contain_text("rolled blind")

    truth = api_log(base, campaign_id, nora)[-1]
    seq, total, summary = truth["seq"], truth["outcome"]["total"], truth["text"]
    assert truth["visibility"] == "blind" and truth["actor"] == "pia"
    assert summary and str(total) in summary

    # The narrator sees the total, live.
    # "Total: 12" to a screen reader, "12" on screen (the words are .sr-only).
    expect(a.page.locator(f"#entry-{seq} .total")).to_have_text(re.compile(rf"(^|\s){total}$"))
    expect(a.page.locator(f"#entry-{seq} .summary")).to_contain_text(summary)
    # The roller sees that she rolled, not what came up; another player sees only that something happened.
    expect(b.page.locator(f"#entry-{seq}")).to_contain_text("rolled blind")
    expect(c.page.locator(f"#entry-{seq}")).to_contain_text("pia rolled in secret")
    problems: list[str] = []
    for tab in (a, b, c):
        problems += axe.violations(tab.page, f"blind-{tab.name}")

    for tab in (b, c):
        for how in ("live", "after a reload"):
            if how == "after a reload":
                tab.page.reload()
            entry = tab.page.locator(f"#entry-{seq}")
            expect(entry).to_have_count(1)
            expect(entry.locator(".total")).to_have_count(0)
            html = entry.evaluate("e => e.outerHTML")
            assert 'class="total"' not in html, f"{tab.name} ({how}): {html}"
            assert summary not in tab.page.content(), f"{tab.name} ({how}) can read the blind result"
        problems += axe.violations(tab.page, f"blind-{tab.name}-reloaded")
    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == []


# --- 3. the live log survives a dropped connection ---


def test_the_log_catches_up_in_order_after_the_stream_drops(
    tabs: Tabs, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    base = live_server.url
    nora, pia = api_user(base, "nora"), api_user(base, "pia")
    campaign_id = api_campaign(base, nora, [pia])
    b = tabs.open("pia")
    sign_in(b, base, "pia", next=f"/campaigns/{campaign_id}")
    wait_live(b.page)
    mark_page(b.page)
    streams: list[tuple[str, str | None]] = []  # (url, Last-Event-ID) of each stream request from here on
    b.page.on(
        "request", lambda r: streams.append((r.url, r.headers.get("last-event-id"))) if "/stream" in r.url else None
    )

    assert api_roll(base, campaign_id, nora, "1d20") == 1
    expect(b.page.locator("#entry-1")).to_be_visible()
    problems = axe.violations(b.page, "catch-up-live")

    # Chromium's offline emulation does not cut a stream that is already open (entries keep arriving), so
    # the phone goes offline (no reconnect can get through) and the server restarts on the same port and
    # database, which ends the open stream for real.
    b.context.set_offline(True)
    stop_server(live_server)
    expect(b.page.locator("#live-status")).to_have_text("reconnecting…")
    problems += axe.violations(b.page, "catch-up-reconnecting")
    port = int(base.rsplit(":", 1)[1])
    monkeypatch.setattr(shared, "_free_port", lambda: port)
    server = start_server(live_server.database_url, tmp_path)
    try:
        assert server.url == base
        missed = [
            api_roll(base, campaign_id, nora, "2d6"),
            api_roll(base, campaign_id, nora, "1d8", visibility="narrator"),  # shown to pia as hidden
            api_roll(base, campaign_id, pia, "1d4", note="rolled by pia's bot"),
            api_roll(base, campaign_id, nora, "1d12"),
        ]
        assert missed == [2, 3, 4, 5]
        assert log_ids(b.page) == ["entry-1"]

        b.context.set_offline(False)  # Chromium fires "online": app.js reconnects at once, with ?after=<last seq>
        wait_live(b.page)
        expect(b.page.locator("#log-entries li.entry")).to_have_count(5)
        assert api_roll(base, campaign_id, nora, "1d6") == 6  # and it is live again
        expect(b.page.locator("#entry-6")).to_be_visible()
        expect(b.page.locator("#live-status")).to_have_text("live")

        assert log_ids(b.page) == [f"entry-{n}" for n in range(1, 7)]  # in order, each once
        expect(b.page.locator("#entry-3")).to_contain_text("nora rolled in secret")
        expect(b.page.locator("#entry-4")).to_contain_text("rolled by pia's bot")
        assert still_marked(b.page), "the page was reloaded instead of catching up"
        # It asked for what it missed: app.js's own reconnect says ?after=1, the browser's says Last-Event-ID: 1.
        assert any(url.endswith("?after=1") or last == "1" for url, last in streams), streams
        problems += axe.violations(b.page, "catch-up-caught-up")
        assert problems == [], "\n".join(problems)
        assert b.csp_violations() == []
    finally:
        stop_server(server)


# --- 4. every page on a phone ---


def test_every_page_fits_a_phone_without_errors(tabs: Tabs, live_server: LiveServer) -> None:
    """The demo table, plus a member with the longest username allowed, on every page a phone user meets."""
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    table = f"/campaigns/{campaign_id}"
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    pia = api_user(base, "pia", DEMO_PASSWORD, create=False)
    api_roll(base, campaign_id, pia, "4d6kh3+1d8+2", note="Wren vaults the toll gate before it slams shut")
    api_roll(base, campaign_id, nora, "1d100", visibility="narrator")
    code = api_invite(base, campaign_id, nora)
    long_name = "Quinn_the_Lamplighters_Apprentice_No.042"  # usernames may be 40 characters long
    assert len(long_name) == 40
    quinn = api_user(base, long_name, DEMO_PASSWORD)
    problems: list[str] = []

    anonymous = tabs.open("anonymous")
    anonymous.page.goto(base + "/signin")
    problems += check_page(anonymous, "signin", ["#signin-form button.primary"])
    anonymous.page.goto(base + "/signup")
    problems += check_page(anonymous, "signup", ["#signup-form button.primary"])

    newcomer = tabs.open("quinn")
    sign_in(newcomer, base, long_name, DEMO_PASSWORD, next=f"/join/{code}")
    problems += check_page(newcomer, "join", ["main button.primary"])
    newcomer.page.get_by_role("button", name="Join as a player").click()
    expect(newcomer.page).to_have_url(base + table)
    api_roll(base, campaign_id, quinn, "1d20+5", note="Quinn_checks_every_lamp_on_the_road_twice_before_nightfall")
    newcomer.page.goto(base + "/account")
    newcomer.page.get_by_label("Token name").fill("discord-bot")
    newcomer.page.get_by_role("button", name="Create token").click()
    expect(newcomer.page.get_by_label("New token")).to_be_visible()
    problems += check_page(newcomer, "account", ["#tokens-panel button.primary"])

    narrator = tabs.open("nora")
    sign_in(narrator, base, "nora", DEMO_PASSWORD)
    problems += check_page(narrator, "campaigns", ["#create-campaign button.primary"])
    narrator.page.goto(base + table)
    wait_live(narrator.page)
    expect(narrator.page.locator("#odds")).to_contain_text("Type an expression")
    problems += check_page(narrator, "campaign-narrator", ["#dicebox button[type=submit]"])
    narrator.page.goto(base + "/docs")
    problems += check_page(narrator, "docs", [])

    player = tabs.open("pia")
    sign_in(player, base, "pia", DEMO_PASSWORD, next=table)
    wait_live(player.page)
    problems += check_page(player, "campaign-player", ["#dicebox button[type=submit]", ".prompt button.primary"])

    desktop = tabs.open("nora-desktop", desktop=True, storage_state=narrator.context.storage_state())
    desktop.page.goto(base + table)
    wait_live(desktop.page)
    problems += check_page(desktop, "campaign-desktop", ["#dicebox button[type=submit]"], width=1280)

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    assert tabs.errors() == [], "\n".join(tabs.errors())


# --- 5. bad input is shown next to its field ---


def test_bad_input_is_shown_next_to_its_field(tabs: Tabs) -> None:
    base = tabs.base
    nora = api_user(base, "nora")
    campaign_id = api_campaign(base, nora, [])
    tab = tabs.open("nora")
    sign_in(tab, base, "nora", next=f"/campaigns/{campaign_id}")
    page = tab.page
    wait_live(page)

    box = page.locator("#dicebox")
    box.get_by_label("Dice", exact=True).fill("3d")
    expect(page.locator("#odds .error")).to_be_visible()  # the odds line already says so while typing
    box.get_by_role("button", name="Roll", exact=True).click()
    error = box.locator(".field-error")
    expect(error).to_be_visible()
    expect(error).to_have_attribute("role", "alert")
    assert error.inner_text().strip()
    expect(box.get_by_label("Dice", exact=True)).to_have_value("3d")  # what was typed is kept, to fix it
    problems = axe.violations(page, "bad-dice")
    expect(page.locator("#log-entries li.entry")).to_have_count(0)
    assert api_log(base, campaign_id, nora) == []

    roll_in_dicebox(page, "3d6")  # fixed: the error goes, the roll is logged
    expect(box.locator(".result")).to_contain_text("#1")
    expect(box.locator(".field-error")).to_have_count(0)
    expect(page.locator("#log-entries li.entry")).to_have_count(1)
    problems += axe.violations(page, "bad-dice-fixed")

    anonymous = tabs.open("anonymous")
    signup = anonymous.page
    posts: list[str] = []
    signup.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    signup.goto(base + "/signup")
    sign_up(signup, "shorty", "short")
    password = signup.get_by_label("Password", exact=True)
    # The browser's own check (minlength) stops it first...
    assert password.evaluate("e => e.validity.tooShort") is True
    assert posts == []
    # ...and without it (an old browser, a script) the server's message appears right under the field.
    password.evaluate("e => e.removeAttribute('minlength')")
    signup.get_by_role("button", name="Create account").click()
    expect(signup.locator("#password + .field-error")).to_have_text("Use at least 8 characters.")
    expect(signup.get_by_label("Username")).to_have_value("shorty")
    expect(signup).to_have_url(base + "/signup")
    assert len(posts) == 1
    problems += axe.violations(signup, "bad-password")
    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == []
