"""Push over plain http (issue 35, the new group's second major): a page that came over http:// to a name other than
localhost is no secure context, so no browser offers push there, and the button used to answer "This browser
cannot receive notifications" — the wrong cause. Now the notification panels (a campaign's, the account's) say
that HTTPS is needed, link to the page's https:// address and name docs/NOTIFY.md's section, in en, de and da.

127.0.0.1 and localhost ARE secure contexts in Chromium, so the server is browsed as http://fateboard.test:PORT
(Chromium's --host-resolver-rules maps that name to 127.0.0.1: loopback only). The same page over 127.0.0.1 keeps
its button. Screenshots: test-artifacts/screenshots/notify-http-*.png. Skipped unless TEST_CHROMIUM is set."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect
from utils.server import LiveServer

from .pages import LAUNCH_ARGS, PHONE, SHOTS, Tab, Tabs, api_campaign, api_user, page_level_problems, sign_in

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
