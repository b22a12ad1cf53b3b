"""Installable and notifiable, in a real Chromium at 390x844: the manifest and service worker pass Chromium's own
installability check (read through the DevTools protocol), the service worker keeps only the app shell (never a
campaign's page), the offline page says the table needs a connection, and the notification panels (campaign page:
the member's choice and the narrator's Discord bridge; account page: devices) work on a phone with no CSP report."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from utils.server import LiveServer

from .pages import LAUNCH_ARGS, PASSWORD, PHONE, REPORT_CSP, Tabs, api_campaign, api_user, check_page, sign_in

pytestmark = pytest.mark.browser
CHROMIUM = os.environ.get("TEST_CHROMIUM", "")


def test_the_app_is_installable_and_its_service_worker_caches_only_the_shell(
    browser: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    base = live_server.url
    nora = api_user(base, "nora")
    cid = api_campaign(base, nora, [])
    # A profile on disk: Chromium does not offer to install from an incognito context (Playwright's default).
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=LAUNCH_ARGS, **PHONE
    )
    context.add_init_script(REPORT_CSP)
    page = context.pages[0] if context.pages else context.new_page()
    errors_seen: list[str] = []
    page.on("console", lambda msg: errors_seen.append(msg.text) if msg.type == "error" else None)
    page.goto(f"{base}/signin?next=/campaigns/{cid}")
    page.locator("#signin-form #username").fill("nora")
    page.locator("#signin-form #password").fill(PASSWORD)
    page.locator("#signin-form button").click()
    expect(page).to_have_url(f"{base}/campaigns/{cid}")
    # The worker registers itself on every page; wait until it controls this one.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not page.evaluate("() => !!navigator.serviceWorker.controller"):
        page.reload()
        time.sleep(0.3)
    assert page.evaluate("() => !!navigator.serviceWorker.controller")
    cdp = context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == [], errors
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.webmanifest") and not manifest.get("errors")
    cached = page.evaluate("""async () => {
        const out = [];
        for (const name of await caches.keys()) {
            for (const request of await (await caches.open(name)).keys()) { out.push(new URL(request.url).pathname); }
        }
        return out.sort();
    }""")
    assert "/offline" in cached and "/static/css/app.css" in cached
    assert not [p for p in cached if p.startswith("/campaigns") or p.startswith("/api") or p.startswith("/account")]
    # Offline, a page of the app answers with the offline page from the worker's cache.
    context.set_offline(True)
    page.goto(f"{base}/campaigns/{cid}")
    expect(page.locator("h1")).to_have_text("No connection")
    context.set_offline(False)
    context.close()
    assert [e for e in errors_seen if "CSP" in e or "Content Security Policy" in e] == []


def test_the_notification_panels_on_a_phone(tabs: Tabs, live_server: LiveServer) -> None:
    base = tabs.base
    nora, pia = api_user(base, "nora"), api_user(base, "pia")
    cid = api_campaign(base, nora, [pia])
    narrator = tabs.open("nora")
    sign_in(narrator, base, "nora", next=f"/campaigns/{cid}")
    page = narrator.page
    panel = page.locator("#notify-panel")
    expect(panel.get_by_role("button", name="Notify me on this device")).to_be_visible()
    # A webhook outside the allow-list is refused next to its field, and nothing is saved.
    panel.get_by_text("Discord", exact=True).click()
    panel.locator("#webhook-url").fill("https://example.org/api/webhooks/1/abc")
    panel.get_by_role("button", name="Save the bridge").click()
    expect(panel.locator("#webhook-url-error")).to_contain_text("not on the outbound allow-list")
    panel.scroll_into_view_if_needed()
    problems = check_page(narrator, "notify-campaign-narrator", ["#notify-panel button"])
    # The member's choice: nothing for this campaign, kept after a reload.
    player = tabs.open("pia")
    sign_in(player, base, "pia", next=f"/campaigns/{cid}")
    choice = player.page.locator("#notify-panel")
    expect(choice.locator("#webhook-url")).to_have_count(0)  # players have no Discord form
    choice.get_by_label("Nothing").check()
    choice.get_by_role("button", name="Save").click()
    player.page.reload()
    expect(player.page.locator("#notify-panel").get_by_label("Nothing")).to_be_checked()
    player.page.goto(f"{base}/account")
    expect(player.page.locator("#devices-panel")).to_contain_text("No device gets notifications yet.")
    problems += check_page(player, "notify-account", ["#devices-panel button"])
    assert problems == []
    assert tabs.csp_violations() == []
    assert PHONE["viewport"] == {"width": 390, "height": 844}
