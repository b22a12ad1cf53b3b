"""A forgotten password on a phone (390x844), through a mail caught by an SMTP server on 127.0.0.1: confirm an
address on the account page, sign out, "Forgot your password?", follow the link, choose a new password, in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect
from utils.server import start_server, stop_server

from .pages import Tabs, api_user, check_page, sign_in

pytestmark = pytest.mark.browser


@pytest.fixture
def mailbox() -> Iterator[Any]:
    pytest.importorskip("aiosmtpd", reason="needs aiosmtpd (the dev extras)")
    from utils.smtp import MailBox

    box = MailBox()
    yield box
    box.close()


def test_a_player_resets_a_forgotten_password_through_the_mail(browser: Any, mailbox: Any, tmp_path: Path) -> None:
    server = start_server(
        f"sqlite:///{tmp_path / 'mail.db'}",
        tmp_path,
        extra_env={"FATEBOARD_SMTP_URL": mailbox.url, "FATEBOARD_SECRET_KEY_FILE": str(tmp_path / "instance" / "key")},
    )
    tabs = Tabs(browser, server)
    try:
        base = server.url
        api_user(base, "pia")
        tab = tabs.open("pia")
        page = tab.page
        sign_in(tab, base, "pia", next="/account")
        page.locator("#email-address").fill("pia@example.org")
        page.get_by_role("button", name="Send a confirmation link").click()
        expect(page.get_by_role("status").filter(has_text="We sent a link")).to_be_visible()
        page.goto(base + urlsplit(mailbox.link(mailbox.wait(1)[0])).path)
        expect(page.get_by_text("Your e-mail address is confirmed.")).to_be_visible()
        page.get_by_role("button", name="Sign out").click()

        page.goto(base + "/signin")
        page.get_by_role("link", name="Forgot your password?").click()
        page.locator("#who").fill("pia")
        problems = check_page(tab, "forgot-password", ["#forgot-form button"])
        page.get_by_role("button", name="Send me a link").click()
        expect(page.get_by_role("status")).to_contain_text("a link to choose a new password is on its way")
        link = mailbox.link(mailbox.wait(2)[1])
        page.goto(base + urlsplit(link).path)
        page.locator("#password").fill("a brand new secret")
        page.locator("#password2").fill("a brand new secret")
        problems += check_page(tab, "reset-password", ["#reset-form button"])
        page.get_by_role("button", name="Save the new password").click()
        expect(page).to_have_url(base + "/campaigns")
        page.goto(base + urlsplit(link).path)  # single use
        expect(page.get_by_role("alert")).to_contain_text("expired or was used already")
        assert problems == []
        # The used link answers 404 (the page says why): the only console error is that expected status.
        assert [e for e in tabs.errors() if "status of 404" not in e] == [] and tabs.csp_violations() == []
    finally:
        for opened in tabs.opened:
            opened.context.close()
        stop_server(server)
