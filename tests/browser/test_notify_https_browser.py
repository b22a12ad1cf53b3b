"""Push over plain http and the offline page (issue 35, the new group's second major and a minor): a page that came
over http:// to a name other than localhost is no secure context, so no browser offers push there, and the button
used to answer "This browser cannot receive notifications" — the wrong cause. Now the notification panels (a
campaign's, the account's) say that HTTPS is needed, link to the page's https:// address and name docs/NOTIFY.md's
section, in en, de and da. The offline page speaks the account's language and asks for no missing icon.

127.0.0.1 and localhost ARE secure contexts in Chromium, so the server is browsed as http://fateboard.test:PORT
(Chromium's --host-resolver-rules maps that name to 127.0.0.1: loopback only). The same page over 127.0.0.1 keeps
its button. Screenshots: test-artifacts/screenshots/notify-http-*.png. Skipped unless TEST_CHROMIUM is set."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect
from utils.server import LiveServer

from .pages import (
    LAUNCH_ARGS,
    PASSWORD,
    PHONE,
    REPORT_CSP,
    SHOTS,
    Tab,
    Tabs,
    api_campaign,
    api_user,
    page_level_problems,
    sign_in,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]
CHROMIUM = os.environ.get("TEST_CHROMIUM", "")
HOST = "fateboard.test"

SAYS = {
    "en": ("Notifications need a secure connection (HTTPS)", "Open this page over HTTPS"),
    "de": ("Benachrichtigungen brauchen eine sichere Verbindung (HTTPS)", "Diese Seite über HTTPS öffnen"),
    "da": ("Notifikationer kræver en sikker forbindelse (HTTPS)", "Åbn denne side over HTTPS"),
}
LOCALES = {"en": "en-GB", "de": "de-DE", "da": "da-DK"}


@pytest.fixture(scope="module")
def named_browser(browser: Any) -> Iterator[Any]:
    """A second Chromium (from the same Playwright) that resolves fateboard.test to 127.0.0.1, nothing else."""
    chromium = browser.browser_type.launch(
        executable_path=CHROMIUM, args=[*LAUNCH_ARGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"]
    )
    yield chromium
    chromium.close()


@pytest.mark.parametrize("lang", ["en", "de", "da"])
def test_plain_http_says_that_https_is_needed(named_browser: Any, live_server: LiveServer, lang: str) -> None:
    port = urlsplit(live_server.url).port
    base = f"http://{HOST}:{port}"
    name = f"nora{lang}"
    nora = api_user(live_server.url, name)
    cid = api_campaign(live_server.url, nora, [])
    tabs = Tabs(named_browser, live_server)
    tab = Tab(named_browser, name, {**PHONE, "locale": LOCALES[lang]})
    tabs.opened.append(tab)
    try:
        sign_in(tab, base, name, next=f"/campaigns/{cid}")
        page = tab.page
        assert page.evaluate("() => window.isSecureContext") is False
        box = page.locator("#notify-panel [data-push]")
        note = box.locator("[data-push-insecure]")
        expect(note).to_be_visible()
        expect(note).to_contain_text(SAYS[lang][0])
        expect(note).to_contain_text("docs/NOTIFY.md")
        link = note.get_by_role("link", name=SAYS[lang][1])
        expect(link).to_have_attribute("href", f"https://{HOST}/campaigns/{cid}")
        expect(box.locator("[data-push-subscribe]")).to_be_hidden()
        expect(box).not_to_contain_text("cannot receive notifications")
        note.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"notify-http-campaign-{lang}.png"))

        # The account page's devices panel says the same.
        page.goto(f"{base}/account")
        account_note = page.locator("#devices-panel [data-push-insecure]")
        expect(account_note).to_be_visible()
        expect(account_note).to_contain_text(SAYS[lang][0])
        expect(page.locator("#devices-panel [data-push-subscribe]")).to_be_hidden()
        expect(account_note.get_by_role("link", name=SAYS[lang][1])).to_have_attribute(
            "href", f"https://{HOST}/account"
        )
        problems = page_level_problems(tabs)
        assert not problems, problems
    finally:
        tab.context.close()


def test_a_secure_context_keeps_the_button(tabs: Tabs) -> None:
    """127.0.0.1 is a secure context: the button is there and the note is not."""
    base = tabs.base
    nora = api_user(base, "nora")
    cid = api_campaign(base, nora, [])
    tab = tabs.open("nora")
    sign_in(tab, base, "nora", next=f"/campaigns/{cid}")
    assert tab.page.evaluate("() => window.isSecureContext") is True
    expect(tab.page.locator("#notify-panel [data-push-subscribe]")).to_be_visible()
    expect(tab.page.locator("#notify-panel [data-push-insecure]")).to_be_hidden()


def test_the_offline_page_speaks_the_accounts_language_and_has_its_icon(
    browser: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    """Issue 35: the offline page followed the browser's language (English here), not the account's (German), and
    asked for a /favicon.ico that is not there (a 404)."""
    base = live_server.url
    nora = api_user(base, "nora")
    cid = api_campaign(base, nora, [])
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=LAUNCH_ARGS, locale="en-GB", **PHONE
    )
    context.add_init_script(REPORT_CSP)
    missing: list[str] = []
    context.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(f"{base}/signin?next=/account")
        page.locator("#signin-form #username").fill("nora")
        page.locator("#signin-form #password").fill(PASSWORD)
        page.locator("#signin-form button").click()
        expect(page).to_have_url(f"{base}/account")
        page.locator("#locale").select_option("de")
        page.locator("form[action='/account/language'] button").click()
        expect(page.locator("html")).to_have_attribute("lang", "de")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not page.evaluate("() => !!navigator.serviceWorker.controller"):
            page.reload()
            time.sleep(0.3)
        assert page.evaluate("() => !!navigator.serviceWorker.controller")
        page.goto(f"{base}/campaigns/{cid}")  # a page in German: the worker notes the language
        expect(page.locator("html")).to_have_attribute("lang", "de")
        page.wait_for_timeout(300)
        context.set_offline(True)
        page.goto(f"{base}/campaigns/{cid}")
        expect(page.locator("h1")).to_have_text("Keine Verbindung")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "offline-de.png"))
        context.set_offline(False)
        page.goto(f"{base}/offline?lang=da")
        expect(page.locator("h1")).to_have_text("Ingen forbindelse")
        page.wait_for_timeout(300)
        assert missing == [], missing  # the icon is the app's own, no /favicon.ico
    finally:
        context.close()
